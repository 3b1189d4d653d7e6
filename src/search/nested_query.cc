#include "search/nested_query.h"

#include "search/highlight.h"
#include "search/match_all.h"
#include "search/nested_eval.h"
#include "search/slot_source.h"
#include "search/terms.h"

namespace ttlstore::search {
namespace {

using model::SearchFieldType;

// Chosen bound on InnerHits (the service documents none; a value holds at most
// model::kMaxNestedDocs sub-documents).
constexpr int32_t kMaxInnerHitsWindow = int32_t(model::kMaxNestedDocs);

Status CheckInnerHits(const model::SearchIndexMeta& index, const Query& q) {
  const InnerHits& h = *q.inner_hits;
  if (h.offset < 0 || h.offset > kMaxInnerHitsWindow) {
    return Error::Validation("[inner_hits] offset must be in [0, " +
                             std::to_string(kMaxInnerHitsWindow) + "], but was " +
                             std::to_string(h.offset));
  }
  if (h.limit < 0 || h.limit > kMaxInnerHitsWindow) {
    return Error::Validation("[inner_hits] limit must be in [0, " +
                             std::to_string(kMaxInnerHitsWindow) + "], but was " +
                             std::to_string(h.limit));
  }
  if (h.sort.size() > 8) return Error::Validation("[inner_hits] at most 8 sorters");
  for (const auto& k : h.sort) {
    if (k.kind != InnerSortKey::Kind::kField) continue;
    auto ref = ResolveField(index, k.field);
    if (!ref) return Error::Validation("field:" + k.field + " is not found in index schema");
    if (ref->scope != q.field) {
      return Error::Validation("[inner_hits] sort field:" + k.field +
                               " is not a sub-field of the nested path " + q.field);
    }
    SearchFieldType t = ref->field->type;
    if (!ref->field->sort_and_agg || t == SearchFieldType::kText ||
        t == SearchFieldType::kNested || t == SearchFieldType::kGeoPoint) {
      return Error::Validation("field:" + k.field + " must enable enable_sort_and_agg, but " +
                               "enable_sort_and_agg is not enabled");
    }
  }
  if (h.highlight) RETURN_IF_ERROR(ValidateHighlight(index, *h.highlight, q.field));
  return Status::Ok();
}

// The candidates of `q` standing in a NestedQuery: every row one of whose sub-documents may match
// (see nested_query.h).
Result<Xapian::Query> Candidates(const model::SearchIndexMeta& index, const Xapian::Database& db,
                                 const Query& q) {
  switch (q.kind) {
    case Query::Kind::kMatchAll: return MatchAll();
    case Query::Kind::kNested: {
      FieldRef path = *ResolveField(index, q.field);
      ASSIGN_OR_RETURN(inner, Candidates(index, db, q.sub[0]));
      return Xapian::Query(Xapian::Query::OP_AND, Xapian::Query(KeyExistsTerm(path.key)), inner);
    }
    case Query::Kind::kBool: {
      std::vector<Xapian::Query> required;
      for (const auto* list : {&q.must, &q.filter}) {
        for (const auto& sub : *list) {
          ASSIGN_OR_RETURN(c, Candidates(index, db, sub));
          required.push_back(std::move(c));
        }
      }
      size_t m = q.minimum_should_match ? size_t(*q.minimum_should_match)
                                        : (q.must.empty() && q.filter.empty() ? 1 : 0);
      if (!q.should.empty() && m > 0) {
        std::vector<Xapian::Query> should;
        for (const auto& sub : q.should) {
          ASSIGN_OR_RETURN(c, Candidates(index, db, sub));
          should.push_back(std::move(c));
        }
        ASSIGN_OR_RETURN(at_least, AtLeast(should, m));
        required.push_back(std::move(at_least));
      }
      if (required.empty()) return MatchAll();
      return Xapian::Query(Xapian::Query::OP_AND, required.begin(), required.end());
    }
    default: return BuildFieldLeaf(index, db, q, *ResolveField(index, q.field), false);
  }
}

}  // namespace

Status CheckNestedQuery(
    const model::SearchIndexMeta& index, const Query& q, const QueryScope& scope,
    const std::function<Status(const Query&, const QueryScope&)>& check_inner) {
  if (q.field.empty()) return Error::Validation("NestedQuery: path is required");
  auto ref = ResolveField(index, q.field);
  if (!ref) return Error::Validation("field:" + q.field + " is not found in index schema");
  if (ref->field->type != SearchFieldType::kNested) {
    return Error::Validation("NestedQuery path:" + q.field + " type:" +
                             TypeName(ref->field->type) + " is not a NESTED field");
  }
  if (!scope.path.empty() && q.field.rfind(scope.path + ".", 0) != 0) {
    return Error::Validation("NestedQuery path:" + q.field + " is not inside the nested path " +
                             scope.path);
  }
  if (q.sub.size() != 1) return Error::Validation("NestedQuery: query is required");
  if (q.inner_hits) {
    if (!scope.inner_hits) {
      return Error::Validation("[inner_hits] of NestedQuery path:" + q.field + " are returned "
                               "only at the top of the query or inside a NestedQuery that has "
                               "inner_hits too");
    }
    RETURN_IF_ERROR(CheckInnerHits(index, q));
  }
  return check_inner(q.sub[0], QueryScope{q.field, q.inner_hits.has_value()});
}

Status CheckFieldScope(const FieldRef& ref, const Query& q, const QueryScope& scope) {
  if (ref.field->type == SearchFieldType::kNested && q.kind != Query::Kind::kExists) {
    return Error::Validation("field:" + q.field + " is a NESTED field: query its sub-fields "
                             "inside a NestedQuery with path " + q.field);
  }
  if (ref.scope == scope.path) return Status::Ok();
  if (scope.path.empty()) {
    return Error::Validation("field:" + q.field + " is in the NESTED field " + ref.scope +
                             ": query it inside a NestedQuery with path " + ref.scope);
  }
  return Error::Validation("field:" + q.field + " is not a sub-field of the nested path " +
                           scope.path + (ref.scope.empty() ? std::string()
                                                           : ": use a NestedQuery with path " +
                                                                 ref.scope));
}

Result<Xapian::Query> BuildNestedQuery(const model::SearchIndexMeta& index,
                                       const Xapian::Database& db, const Query& q) {
  auto tester = std::make_shared<const NestedQueryTester>(index, nullptr, q);
  ASSIGN_OR_RETURN(candidates, Candidates(index, db, q));
  auto test = std::make_shared<const SlotTestSource::Test>(
      [tester](std::string_view value, double* weight) { return tester->TestSlot(value, weight); });
  auto* source = new SlotTestSource(kSlotFieldBase + Xapian::valueno(tester->path().top), test,
                                    tester->MaxScore());
  return Xapian::Query(Xapian::Query::OP_FILTER, Xapian::Query(source->release()), candidates);
}

}  // namespace ttlstore::search
