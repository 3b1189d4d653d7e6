// Field collapsing: the check of the field and the collapsed page (see collapse.h).
#include "search/collapse.h"

#include <optional>

#include "search/terms.h"

namespace ttlstore::search {
namespace {

struct Item {
  CollapsedHit hit;
  std::string key;  // the key maker's key, when the order uses one
};

// Whether `a` comes before `b` in `order` (Xapian's: ties by docid ascending).
bool Before(const Item& a, const Item& b, MatchOrder order) {
  switch (order) {
    case MatchOrder::kRelevance:
      if (a.hit.weight != b.hit.weight) return a.hit.weight > b.hit.weight;
      break;
    case MatchOrder::kRelevanceThenKey:
      if (a.hit.weight != b.hit.weight) return a.hit.weight > b.hit.weight;
      if (a.key != b.key) return a.key < b.key;
      break;
    case MatchOrder::kKeyThenRelevance:
      if (a.key != b.key) return a.key < b.key;
      if (a.hit.weight != b.hit.weight) return a.hit.weight > b.hit.weight;
      break;
    case MatchOrder::kKey:
      if (a.key != b.key) return a.key < b.key;
      break;
  }
  return a.hit.docid < b.hit.docid;
}

}  // namespace

Status ValidateCollapse(const model::SearchIndexMeta& index, const std::string& field) {
  if (field.empty()) return Error::Validation("[collapse] field_name must not be null");
  const model::SearchField* f = index.FindField(field);
  if (!f) return Error::Validation("field:" + field + " is not found in index schema");
  if (f->type != model::SearchFieldType::kKeyword && f->type != model::SearchFieldType::kLong &&
      f->type != model::SearchFieldType::kDouble) {
    return Error::Validation("Collapse is only supported on KEYWORD, LONG and DOUBLE fields, "
                             "but field:" + field + " is not one");
  }
  if (!f->sort_and_agg) {
    return Error::Validation("field:" + field + " must enable enable_sort_and_agg, but "
                             "enable_sort_and_agg is not enabled");
  }
  if (f->is_array) {
    return Error::Validation("Collapse is not supported on array fields, but field:" + field +
                             " is an array");
  }
  return Status::Ok();
}

std::vector<CollapsedHit> CollapsedPage(const Xapian::Database& db, const Xapian::Query& q,
                                        size_t field_index,
                                        const std::function<void(Xapian::Enquire&)>& configure,
                                        const Xapian::KeyMaker& key, MatchOrder order,
                                        Xapian::doccount first, Xapian::doccount limit) {
  bool keyed = order != MatchOrder::kRelevance;
  auto item_of = [&](const Xapian::MSetIterator& m) {
    Item it;
    it.hit.docid = *m;
    it.hit.weight = m.get_weight();
    it.hit.doc = m.get_document();
    if (keyed) it.key = key(it.hit.doc);
    return it;
  };
  Xapian::Query exists(ExistsTerm(field_index));
  // The groups of the rows with the field, as many as the page could reach.
  Xapian::Enquire with(db);
  configure(with);
  with.set_query(Xapian::Query(Xapian::Query::OP_FILTER, q, exists));
  with.set_collapse_key(kSlotFieldBase + unsigned(field_index), 1);
  Xapian::MSet groups = with.get_mset(0, first + limit);
  // The group of the rows without it: its first row.
  Xapian::Enquire without(db);
  configure(without);
  without.set_query(Xapian::Query(Xapian::Query::OP_AND_NOT, q, exists));
  Xapian::MSet missing = without.get_mset(0, 1);

  std::vector<Item> all;
  all.reserve(groups.size() + 1);
  std::optional<Item> null_group;
  if (!missing.empty()) null_group = item_of(missing.begin());
  for (auto m = groups.begin(); m != groups.end(); ++m) {
    Item it = item_of(m);
    if (null_group && Before(*null_group, it, order)) {
      all.push_back(std::move(*null_group));
      null_group.reset();
    }
    all.push_back(std::move(it));
  }
  if (null_group) all.push_back(std::move(*null_group));
  std::vector<CollapsedHit> out;
  for (size_t i = first; i < all.size() && out.size() < limit; ++i) {
    out.push_back(std::move(all[i].hit));
  }
  return out;
}

}  // namespace ttlstore::search
