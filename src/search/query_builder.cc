#include "search/query_builder.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "search/analyzer.h"
#include "search/document.h"
#include "search/field_ref.h"
#include "search/geo_query.h"
#include "search/match_all.h"
#include "search/nested_query.h"
#include "search/sort_values.h"
#include "search/function_score.h"
#include "search/terms.h"

namespace ttlstore::search {
namespace {

using model::CellType;
using model::CellValue;
using model::SearchFieldType;

}  // namespace

std::string TypeName(SearchFieldType t) {
  switch (t) {
    case SearchFieldType::kLong: return "LONG";
    case SearchFieldType::kDouble: return "DOUBLE";
    case SearchFieldType::kBoolean: return "BOOLEAN";
    case SearchFieldType::kKeyword: return "KEYWORD";
    case SearchFieldType::kText: return "TEXT";
    case SearchFieldType::kDate: return "DATE";
    case SearchFieldType::kGeoPoint: return "GEO_POINT";
    case SearchFieldType::kNested: return "NESTED";
    case SearchFieldType::kVector: return "VECTOR";
  }
  return "UNKNOWN";
}

std::string KindName(Query::Kind k) {
  switch (k) {
    case Query::Kind::kMatchAll: return "MatchAllQuery";
    case Query::Kind::kTerm: return "TermQuery";
    case Query::Kind::kTerms: return "TermsQuery";
    case Query::Kind::kRange: return "RangeQuery";
    case Query::Kind::kPrefix: return "PrefixQuery";
    case Query::Kind::kWildcard: return "WildcardQuery";
    case Query::Kind::kExists: return "ExistsQuery";
    case Query::Kind::kBool: return "BoolQuery";
    case Query::Kind::kMatch: return "MatchQuery";
    case Query::Kind::kMatchPhrase: return "MatchPhraseQuery";
    case Query::Kind::kGeoDistance: return "GeoDistanceQuery";
    case Query::Kind::kGeoBoundingBox: return "GeoBoundingBoxQuery";
    case Query::Kind::kGeoPolygon: return "GeoPolygonQuery";
    case Query::Kind::kNested: return "NestedQuery";
    case Query::Kind::kFunctionScore: return "FunctionsScoreQuery";
    case Query::Kind::kKnnVector: return "KnnVectorQuery";
  }
  return "Query";
}

namespace {

bool ValueFits(SearchFieldType t, const CellValue& v) { return QueryValueOf(t, v).has_value(); }

bool IsNumeric(SearchFieldType t) {
  return t == SearchFieldType::kLong || t == SearchFieldType::kDouble || t == SearchFieldType::kDate;
}

Status FieldError(const std::string& m) { return Error::Validation(m); }

Status Check(const model::SearchIndexMeta& index, const Query& q, int depth, size_t* nodes,
             const QueryScope& scope) {
  if (depth > kMaxQueryDepth) {
    return FieldError("The depth of the query exceeds the limit: " + std::to_string(kMaxQueryDepth));
  }
  if (++*nodes > kMaxQueryNodes) {
    return FieldError("The number of queries exceeds the limit: " + std::to_string(kMaxQueryNodes));
  }
  if (q.kind == Query::Kind::kMatchAll) return Status::Ok();
  if (q.kind == Query::Kind::kBool) {
    for (const auto* list : {&q.must, &q.must_not, &q.filter, &q.should}) {
      for (const auto& sub : *list) {
        if (auto s = Check(index, sub, depth + 1, nodes, scope); !s.ok()) return s;
      }
    }
    if (q.minimum_should_match && *q.minimum_should_match < 0) {
      return FieldError("minimum_should_match must be >= 0");
    }
    if (q.minimum_should_match && *q.minimum_should_match > int32_t(q.should.size())) {
      return FieldError("minimum_should_match [" + std::to_string(*q.minimum_should_match) +
                        "] is larger than the number of should queries [" +
                        std::to_string(q.should.size()) + "]");
    }
    return Status::Ok();
  }
  if (q.kind == Query::Kind::kNested) {
    return CheckNestedQuery(index, q, scope, [&](const Query& inner, const QueryScope& s) {
      return Check(index, inner, depth + 1, nodes, s);
    });
  }
  if (q.kind == Query::Kind::kFunctionScore) {
    if (q.must.size() != 1) return FieldError("FunctionsScoreQuery: query is required");
    if (auto s = Check(index, q.must[0], depth + 1, nodes, scope); !s.ok()) return s;
    for (const auto& fn : q.functions) {
      for (const auto& sub : fn.filter) {
        if (auto s = Check(index, sub, depth + 1, nodes, scope); !s.ok()) return s;
      }
    }
    return ValidateFunctionScore(index, q);
  }
  if (q.field.empty()) return FieldError(KindName(q.kind) + ": field_name is required");
  std::optional<FieldRef> ref = ResolveField(index, q.field);
  if (!ref) return FieldError("field:" + q.field + " is not found in index schema");
  RETURN_IF_ERROR(CheckFieldScope(*ref, q, scope));
  const model::SearchField* f = ref->field;
  if (q.kind == Query::Kind::kExists) return Status::Ok();
  if (!f->index) return FieldError("field:" + q.field + " is not indexed, can not be queried");
  std::string type = TypeName(f->type);
  if (q.kind == Query::Kind::kKnnVector) {
    // Served at the top of the query (alone, in a Bool or in a function score's query), never
    // inside a NestedQuery: a Vector field is never a sub-field (search_index_handlers.cc).
    if (!scope.path.empty() || !ref->scope.empty()) {
      return FieldError("KnnVectorQuery is not supported inside a NestedQuery");
    }
    if (f->type != SearchFieldType::kVector) {
      return FieldError("KnnVectorQuery is only supported on VECTOR fields, field:" + q.field +
                        " type:" + type);
    }
    if (q.top_k < 1 || q.top_k > kMaxKnnTopK) {
      return FieldError("KnnVectorQuery: top_k must be in [1, " + std::to_string(kMaxKnnTopK) +
                        "], but was " + std::to_string(q.top_k));
    }
    if (q.vector.size() != f->vector_dimension) {
      return FieldError("KnnVectorQuery: the dimension of float32_query_vector is " +
                        std::to_string(q.vector.size()) + ", but the dimension of field:" +
                        q.field + " is " + std::to_string(f->vector_dimension));
    }
    for (float v : q.vector) {
      if (!std::isfinite(v)) {
        return FieldError("KnnVectorQuery: float32_query_vector must hold finite numbers");
      }
    }
    if (!(q.min_score >= 0)) return FieldError("KnnVectorQuery: min_score must be >= 0");
    if (q.num_candidates != 0 && (q.num_candidates < q.top_k || q.num_candidates > kMaxKnnTopK)) {
      return FieldError("KnnVectorQuery: num_candidates must be in [top_k, " +
                        std::to_string(kMaxKnnTopK) + "], but was " +
                        std::to_string(q.num_candidates));
    }
    for (const auto& sub : q.knn_filter) {
      if (sub.kind == Query::Kind::kKnnVector) {
        return FieldError("KnnVectorQuery: the filter can't hold a KnnVectorQuery");
      }
      if (auto s = Check(index, sub, depth + 1, nodes, scope); !s.ok()) return s;
    }
    return Status::Ok();
  }
  if (f->type == SearchFieldType::kVector) {
    return FieldError(KindName(q.kind) + " is not supported on field:" + q.field + " type:" + type +
                      ", use KnnVectorQuery");
  }
  bool geo_kind = q.kind == Query::Kind::kGeoDistance || q.kind == Query::Kind::kGeoBoundingBox ||
                  q.kind == Query::Kind::kGeoPolygon;
  if (geo_kind != (f->type == SearchFieldType::kGeoPoint)) {
    return FieldError(KindName(q.kind) + " is not supported on field:" + q.field + " type:" + type);
  }
  if (geo_kind) return ValidateGeoQuery(q);
  switch (q.kind) {
    case Query::Kind::kTerm:
    case Query::Kind::kTerms: {
      if (q.terms.empty()) return FieldError(KindName(q.kind) + ": term is required");
      if (q.terms.size() > kMaxTermsPerQuery) {
        return FieldError("TermsQuery: the number of terms exceeds the limit: " +
                          std::to_string(kMaxTermsPerQuery));
      }
      for (const auto& t : q.terms) {
        if (!ValueFits(f->type, t)) {
          return FieldError("field:" + q.field + " type:" + type +
                            ", the value type of the query does not match the field type");
        }
      }
      return Status::Ok();
    }
    case Query::Kind::kRange: {
      if (!IsNumeric(f->type) && f->type != SearchFieldType::kKeyword) {
        return FieldError("RangeQuery is not supported on field:" + q.field + " type:" + type);
      }
      for (const auto* v : {&q.from, &q.to}) {
        if (*v && !ValueFits(f->type, **v)) {
          return FieldError("field:" + q.field + " type:" + type +
                            ", the value type of the query does not match the field type");
        }
      }
      return Status::Ok();
    }
    case Query::Kind::kPrefix:
    case Query::Kind::kWildcard: {
      if (f->type != SearchFieldType::kKeyword && f->type != SearchFieldType::kText) {
        return FieldError(KindName(q.kind) + " is not supported on field:" + q.field +
                          " type:" + type);
      }
      if (q.kind == Query::Kind::kWildcard) {
        // The service's limit and text (its FAQ "length of field value is longer than 32 for
        // the [WILDCARD_QUERY] query"), counted in characters.
        size_t chars = 0;
        for (unsigned char c : q.text) chars += (c & 0xC0) != 0x80;
        if (chars > kMaxWildcardChars) {
          return FieldError("length of field value is longer than " +
                            std::to_string(kMaxWildcardChars) + " for the [WILDCARD_QUERY] query");
        }
      } else if (q.text.size() > kMaxPatternBytes) {
        return FieldError(KindName(q.kind) + ": the value is longer than " +
                          std::to_string(kMaxPatternBytes) + " bytes");
      }
      return Status::Ok();
    }
    case Query::Kind::kMatch:
    case Query::Kind::kMatchPhrase:
      if (f->type != SearchFieldType::kText) {
        return FieldError(KindName(q.kind) + " is only supported on TEXT fields, field:" +
                          q.field + " type:" + type);
      }
      if (q.minimum_should_match && *q.minimum_should_match < 0) {
        return FieldError("minimum_should_match must be >= 0");
      }
      return Status::Ok();
    default: return Status::Ok();
  }
}

}  // namespace

Result<Xapian::Query> AtLeast(const std::vector<Xapian::Query>& qs, size_t m) {
  if (qs.empty() || m > qs.size()) return Xapian::Query::MatchNothing;
  if (m <= 1) return Xapian::Query(Xapian::Query::OP_OR, qs.begin(), qs.end());
  if (m == qs.size()) return Xapian::Query(Xapian::Query::OP_AND, qs.begin(), qs.end());
  // C(n, m), stopping once past the cap.
  double c = 1;
  for (size_t i = 0; i < m; ++i) c = c * double(qs.size() - i) / double(i + 1);
  if (c > double(kMaxShouldCombinations)) {
    return Error::Validation("minimum_should_match " + std::to_string(m) + " of " +
                             std::to_string(qs.size()) + " queries is too complex");
  }
  std::vector<Xapian::Query> ors;
  std::vector<size_t> pick(m);
  for (size_t i = 0; i < m; ++i) pick[i] = i;
  while (true) {
    std::vector<Xapian::Query> ands;
    for (size_t i : pick) ands.push_back(qs[i]);
    ors.emplace_back(Xapian::Query::OP_AND, ands.begin(), ands.end());
    int i = int(m) - 1;
    while (i >= 0 && pick[i] == qs.size() - m + size_t(i)) --i;
    if (i < 0) break;
    ++pick[i];
    for (size_t j = size_t(i) + 1; j < m; ++j) pick[j] = pick[j - 1] + 1;
  }
  return Xapian::Query(Xapian::Query::OP_OR, ors.begin(), ors.end());
}

bool WildMatch(std::string_view p, std::string_view s) {
  size_t pi = 0, si = 0, star = std::string_view::npos, mark = 0;
  while (si < s.size()) {
    if (pi < p.size() && (p[pi] == '?' || p[pi] == s[si])) {
      ++pi, ++si;
    } else if (pi < p.size() && p[pi] == '*') {
      star = pi++;
      mark = si;
    } else if (star != std::string_view::npos) {
      pi = star + 1;
      si = ++mark;
    } else {
      return false;
    }
  }
  while (pi < p.size() && p[pi] == '*') ++pi;
  return pi == p.size();
}

namespace {

Xapian::Query Or(const std::vector<std::string>& terms) {
  if (terms.empty()) return Xapian::Query::MatchNothing;
  return Xapian::Query(Xapian::Query::OP_OR, terms.begin(), terms.end());
}

Result<Xapian::Query> Build(const model::SearchIndexMeta& index, const Xapian::Database& db,
                            const Query& q, const KnnRunner* knn);

// Every document, each scoring 1: MatchAll, and the base of a Bool without scoring clauses
// (ConstScore, filters only), as Lucene's constant scores (the service's engine) give them.
// Xapian's own MatchAll weighs 0, which would zero a function score's product.
Xapian::Query ScoredMatchAll() {
  return Xapian::Query((new Xapian::FixedWeightPostingSource(1.0))->release());
}

Result<Xapian::Query> BuildFunctionScoreNode(const model::SearchIndexMeta& index,
                                             const Xapian::Database& db, const Query& q,
                                             const KnnRunner* knn) {
  auto inner = Build(index, db, q.must[0], knn);
  if (!inner.ok()) return inner.error();
  std::vector<Xapian::Query> filters;
  for (const auto& fn : q.functions) {
    if (fn.filter.empty()) {
      filters.push_back(MatchAll());
      continue;
    }
    auto f = Build(index, db, fn.filter[0], knn);
    if (!f.ok()) return f.error();
    filters.push_back(std::move(*f));
  }
  return BuildFunctionScore(index, db, q, *inner, filters);
}

Result<Xapian::Query> BuildBool(const model::SearchIndexMeta& index, const Xapian::Database& db,
                                const Query& q, const KnnRunner* knn) {
  auto all = [&](const std::vector<Query>& list) -> Result<std::vector<Xapian::Query>> {
    std::vector<Xapian::Query> out;
    for (const auto& sub : list) {
      auto r = Build(index, db, sub, knn);
      if (!r.ok()) return r.error();
      out.push_back(std::move(*r));
    }
    return out;
  };
  auto must = all(q.must);
  if (!must.ok()) return must.error();
  auto filter = all(q.filter);
  if (!filter.ok()) return filter.error();
  auto should = all(q.should);
  if (!should.ok()) return should.error();
  auto must_not = all(q.must_not);
  if (!must_not.ok()) return must_not.error();

  size_t m = q.minimum_should_match ? size_t(*q.minimum_should_match)
                                    : (q.must.empty() && q.filter.empty() ? 1 : 0);
  if (q.should.empty()) m = 0;
  std::vector<Xapian::Query> required = *must;
  if (m > 0) {
    auto at_least = AtLeast(*should, m);
    if (!at_least.ok()) return at_least.error();
    required.push_back(std::move(*at_least));
  }
  Xapian::Query positive = required.empty()
                               ? ScoredMatchAll()
                               : Xapian::Query(Xapian::Query::OP_AND, required.begin(), required.end());
  if (!filter->empty()) {
    positive = Xapian::Query(Xapian::Query::OP_FILTER, positive,
                             Xapian::Query(Xapian::Query::OP_AND, filter->begin(), filter->end()));
  }
  if (m == 0 && !should->empty()) {
    positive = Xapian::Query(Xapian::Query::OP_AND_MAYBE, positive,
                             Xapian::Query(Xapian::Query::OP_OR, should->begin(), should->end()));
  }
  if (!must_not->empty()) {
    positive = Xapian::Query(Xapian::Query::OP_AND_NOT, positive,
                             Xapian::Query(Xapian::Query::OP_OR, must_not->begin(), must_not->end()));
  }
  return positive;
}

}  // namespace

Result<Xapian::Query> BuildFieldLeaf(const model::SearchIndexMeta& index,
                                     const Xapian::Database& db, const Query& q,
                                     const FieldRef& ref, bool exact) {
  const model::SearchField& f = *ref.field;
  const std::string& key = ref.key;
  auto term_of = [&](const CellValue& given) -> std::string {
    CellValue v = *QueryValueOf(f.type, given);  // Check() made sure it fits
    if (IsNumeric(f.type)) return KeyTrieTerm(key, NumericKey(f.type, v), 0);
    if (f.type == SearchFieldType::kBoolean) return KeyValueTerm(key, v.boolean ? "t" : "f");
    return KeyValueTerm(key, v.bytes);
  };
  switch (q.kind) {
    case Query::Kind::kExists: return Xapian::Query(KeyExistsTerm(key));
    case Query::Kind::kGeoDistance:
    case Query::Kind::kGeoBoundingBox:
    case Query::Kind::kGeoPolygon: return BuildGeoQuery(ref, q, exact);
    case Query::Kind::kTerm: return Xapian::Query(term_of(q.terms[0]));
    case Query::Kind::kTerms: {
      std::vector<std::string> terms;
      for (const auto& v : q.terms) terms.push_back(term_of(v));
      return Or(terms);
    }
    case Query::Kind::kRange: {
      if (IsNumeric(f.type)) {
        uint64_t lo = 0, hi = UINT64_MAX;
        if (q.from) {
          lo = NumericKey(f.type, *QueryValueOf(f.type, *q.from));
          if (!q.include_lower) {
            if (lo == UINT64_MAX) return Xapian::Query::MatchNothing;
            ++lo;
          }
        }
        if (q.to) {
          hi = NumericKey(f.type, *QueryValueOf(f.type, *q.to));
          if (!q.include_upper) {
            if (hi == 0) return Xapian::Query::MatchNothing;
            --hi;
          }
        }
        if (lo > hi) return Xapian::Query::MatchNothing;
        return Or(KeyTrieRangeTerms(key, lo, hi));
      }
      // Keyword: the field's terms between the bounds, enumerated (bounded).
      std::string prefix = KeyPrefix('K', key);
      std::string from = q.from ? KeyValueTerm(key, q.from->bytes) : prefix;
      std::string to = q.to ? KeyValueTerm(key, q.to->bytes) : std::string();
      std::vector<std::string> terms;
      for (auto it = db.allterms_begin(prefix); it != db.allterms_end(prefix); ++it) {
        std::string t = *it;
        if (t < from || (t == from && q.from && !q.include_lower)) continue;
        if (q.to && (t > to || (t == to && !q.include_upper))) break;
        if (terms.size() >= kMaxExpansion) {
          return Error::Validation("RangeQuery on field:" + q.field + " matches more than " +
                                   std::to_string(kMaxExpansion) + " distinct values");
        }
        terms.push_back(std::move(t));
      }
      return Or(terms);
    }
    case Query::Kind::kPrefix: {
      std::string p = KeyValueTerm(key, q.text);
      return Xapian::Query(Xapian::Query::OP_WILDCARD, p, kMaxExpansion,
                           Xapian::Query::WILDCARD_LIMIT_ERROR);
    }
    case Query::Kind::kWildcard: {
      size_t lit = q.text.find_first_of("*?");
      if (lit == std::string::npos) return Xapian::Query(KeyValueTerm(key, q.text));
      std::string prefix = KeyValueTerm(key, q.text.substr(0, lit));
      std::string_view pattern = std::string_view(q.text).substr(lit);
      std::vector<std::string> terms;
      size_t scanned = 0;
      for (auto it = db.allterms_begin(prefix); it != db.allterms_end(prefix); ++it) {
        if (++scanned > kMaxWildcardScan) {
          return Error::Validation("WildcardQuery on field:" + q.field + " looks at more than " +
                                   std::to_string(kMaxWildcardScan) + " values");
        }
        std::string t = *it;
        if (!WildMatch(pattern, std::string_view(t).substr(prefix.size()))) continue;
        if (terms.size() >= kMaxExpansion) {
          return Error::Validation("WildcardQuery on field:" + q.field + " matches more than " +
                                   std::to_string(kMaxExpansion) + " distinct values");
        }
        terms.push_back(std::move(t));
      }
      return Or(terms);
    }
    case Query::Kind::kMatch:
    case Query::Kind::kMatchPhrase: {
      bool fuzzy = IsFuzzy(f);
      std::vector<Word> words;
      if (fuzzy) {
        for (auto& w : FuzzyQueryWords(f, q.text, index.analysis)) {
          uint32_t at = uint32_t(words.size());
          words.push_back(Word{std::move(w), at});
        }
      } else {
        words = AnalyzeText(f, q.text, index.analysis, AnalyzeFor::kQuery);
      }
      if (words.empty()) return Xapian::Query::MatchNothing;
      if (words.size() > kMaxTermsPerQuery) words.resize(kMaxTermsPerQuery);
      std::vector<Xapian::Query> terms;
      for (const auto& w : words) terms.emplace_back(KeyValueTerm(key, w.text));
      if (fuzzy || (q.kind == Query::Kind::kMatch && q.match_and)) {
        return Xapian::Query(Xapian::Query::OP_AND, terms.begin(), terms.end());
      }
      if (q.kind == Query::Kind::kMatchPhrase) {
        if (terms.size() == 1) return terms[0];
        // The words in order within the span of their positions: exactly adjacent words for
        // every analyzer but max_word, whose query pairs leave a run's last character out.
        uint32_t span = words.back().position - words.front().position + 1;
        return Xapian::Query(Xapian::Query::OP_PHRASE, terms.begin(), terms.end(),
                             Xapian::termcount(std::max<size_t>(span, terms.size())));
      }
      size_t m = q.minimum_should_match ? size_t(*q.minimum_should_match) : 1;
      if (m > terms.size()) return Xapian::Query::MatchNothing;
      return AtLeast(terms, m);
    }
    default: return MatchAll();
  }
}

namespace {

Result<Xapian::Query> BuildLeaf(const model::SearchIndexMeta& index, const Xapian::Database& db,
                                const Query& q) {
  if (q.kind == Query::Kind::kNested) return BuildNestedQuery(index, db, q);
  return BuildFieldLeaf(index, db, q, *ResolveField(index, q.field), true);
}

// A KnnVectorQuery: its filter built, then the runner's hits.
Result<Xapian::Query> BuildKnn(const model::SearchIndexMeta& index, const Xapian::Database& db,
                               const Query& q, const KnnRunner* knn) {
  if (!knn) {
    return Error::Validation("KnnVectorQuery is supported only in the query of a Search (not in "
                             "ParallelScan or a GroupByFilter's filters).");
  }
  Xapian::Query filter = MatchAll();
  if (!q.knn_filter.empty()) {
    auto f = Build(index, db, q.knn_filter[0], knn);
    if (!f.ok()) return f.error();
    filter = std::move(*f);
  }
  return (*knn)(q, filter);
}

Result<Xapian::Query> Build(const model::SearchIndexMeta& index, const Xapian::Database& db,
                            const Query& q, const KnnRunner* knn) {
  Result<Xapian::Query> r = q.kind == Query::Kind::kMatchAll ? Result<Xapian::Query>(ScoredMatchAll())
                            : q.kind == Query::Kind::kBool   ? BuildBool(index, db, q, knn)
                            : q.kind == Query::Kind::kFunctionScore
                                ? BuildFunctionScoreNode(index, db, q, knn)
                            : q.kind == Query::Kind::kKnnVector ? BuildKnn(index, db, q, knn)
                                                                : BuildLeaf(index, db, q);
  if (!r.ok()) return r;
  if (q.weight != 1.0f && q.weight > 0 && std::isfinite(q.weight)) {
    return Xapian::Query(Xapian::Query::OP_SCALE_WEIGHT, *r, double(q.weight));
  }
  return r;
}

}  // namespace

std::optional<CellValue> QueryValueOf(SearchFieldType t, const CellValue& v) {
  switch (t) {
    case SearchFieldType::kLong:
    case SearchFieldType::kDate: {
      if (v.type == CellType::kInteger) return v;
      if (v.type != CellType::kString || v.bytes.empty() || v.bytes.size() > 20) {
        return std::nullopt;
      }
      int64_t x = 0;
      auto [end, ec] = std::from_chars(v.bytes.data(), v.bytes.data() + v.bytes.size(), x);
      if (ec != std::errc() || end != v.bytes.data() + v.bytes.size()) return std::nullopt;
      return CellValue::Integer(x);
    }
    case SearchFieldType::kDouble: {
      if (v.type == CellType::kInteger) return v;
      if (v.type == CellType::kDouble) return std::isnan(v.dbl) ? std::nullopt : std::optional(v);
      if (v.type != CellType::kString || v.bytes.empty() || v.bytes.size() > 64) {
        return std::nullopt;
      }
      double d = 0;
      auto [end, ec] = std::from_chars(v.bytes.data(), v.bytes.data() + v.bytes.size(), d);
      if (ec != std::errc() || end != v.bytes.data() + v.bytes.size() || !std::isfinite(d)) {
        return std::nullopt;
      }
      return CellValue::Double(d);
    }
    case SearchFieldType::kBoolean:
      if (v.type == CellType::kBoolean) return v;
      if (v.type == CellType::kString && (v.bytes == "true" || v.bytes == "false")) {
        return CellValue::Boolean(v.bytes == "true");
      }
      return std::nullopt;
    case SearchFieldType::kKeyword:
    case SearchFieldType::kText:
      if (v.type == CellType::kString) return v;
      return std::nullopt;
    case SearchFieldType::kGeoPoint:
    case SearchFieldType::kNested: return std::nullopt;
    case SearchFieldType::kVector: return std::nullopt;
  }
  return std::nullopt;
}

int FieldIndex(const model::SearchIndexMeta& index, const std::string& name) {
  for (size_t i = 0; i < index.fields.size(); ++i) {
    if (index.fields[i].name == name) return int(i);
  }
  return -1;
}

Status ValidateQuery(const model::SearchIndexMeta& index, const Query& q) {
  size_t nodes = 0;
  return Check(index, q, 1, &nodes, QueryScope{});
}

Status ValidateScopedQuery(const model::SearchIndexMeta& index, const Query& q,
                           const QueryScope& scope) {
  size_t nodes = 0;
  return Check(index, q, 1, &nodes, scope);
}

Status ValidateSort(const model::SearchIndexMeta& index, const std::vector<SortKey>& sort) {
  if (sort.size() > 8) return Error::Validation("The number of sorters exceeds the limit: 8");
  for (const auto& k : sort) {
    if (k.key.kind != model::SearchSortKey::Kind::kField) continue;
    if (IsSlotSort(index, k)) {
      RETURN_IF_ERROR(ValidateSlotSort(index, k));
      continue;
    }
    const model::SearchField* f = index.FindField(k.key.field);
    if (!f) return Error::Validation("field:" + k.key.field + " is not found in index schema");
    if (!f->sort_and_agg || f->type == SearchFieldType::kText) {
      return Error::Validation("field:" + k.key.field + " must enable enable_sort_and_agg, but " +
                               "enable_sort_and_agg is not enabled");
    }
    if (k.mode_given && f->is_array) {
      return Error::Validation("field:" + k.key.field + " is an array: sorting it by min, max or "
                               "avg (FieldSort mode) is not supported by ttlstore");
    }
    if (k.missing_value && !ValueFits(f->type, *k.missing_value)) {
      return Error::Validation("field:" + k.key.field +
                               " missing value type does not match the field type");
    }
    if (k.missing_field.empty()) continue;
    const model::SearchField* m = index.FindField(k.missing_field);
    if (!m) return Error::Validation("field:" + k.missing_field + " is not found in index schema");
    if (!m->sort_and_agg || m->type == SearchFieldType::kText ||
        m->type == SearchFieldType::kGeoPoint || m->type == SearchFieldType::kNested) {
      return Error::Validation("field:" + k.missing_field + " must enable enable_sort_and_agg, " +
                               "but enable_sort_and_agg is not enabled");
    }
    // Long and Date share their sort form; other types only compare with their own.
    auto form = [](SearchFieldType t) {
      return t == SearchFieldType::kDate ? SearchFieldType::kLong : t;
    };
    if (form(m->type) != form(f->type)) {
      return Error::Validation("missing_field:" + k.missing_field + " type:" + TypeName(m->type) +
                               " does not match field:" + k.key.field + " type:" +
                               TypeName(f->type));
    }
  }
  return Status::Ok();
}

Result<Xapian::Query> BuildQuery(const model::SearchIndexMeta& index, const Xapian::Database& db,
                                 const Query& q, const KnnRunner* knn) {
  return Build(index, db, q, knn);
}

std::vector<std::string> TrieRangeTerms(size_t field, uint64_t lo, uint64_t hi) {
  return KeyTrieRangeTerms(FieldKey(field), lo, hi);
}

std::vector<std::string> KeyTrieRangeTerms(std::string_view field, uint64_t lo, uint64_t hi) {
  // Block indices at the current level: [a, b]. Each step emits the partial blocks at both
  // ends and climbs one level with the full blocks between them.
  std::vector<std::string> out;
  uint64_t a = lo, b = hi;
  for (int level = 0; level < kTrieLevels; ++level) {
    int shift = level * kTrieStep;
    auto emit = [&](uint64_t from, uint64_t to) {
      for (uint64_t p = from;; ++p) {
        out.push_back(KeyTrieTerm(field, shift >= 64 ? 0 : (p << shift), level));
        if (p == to) break;
      }
    };
    if (level == kTrieLevels - 1) {
      emit(a, b);
      break;
    }
    const uint64_t mask = (uint64_t{1} << kTrieStep) - 1;
    uint64_t next_a = (a >> kTrieStep) + ((a & mask) != 0 ? 1 : 0);
    bool has_next_b = (b & mask) == mask || (b >> kTrieStep) > 0;
    uint64_t next_b = (b & mask) == mask ? (b >> kTrieStep) : (b >> kTrieStep) - 1;
    // a's carry can make next_a 0 again only on overflow (a near 2^64 at level 0: impossible
    // since a >> 4 < 2^60).
    if (!has_next_b || next_a > next_b) {
      emit(a, b);
      break;
    }
    if ((a & mask) != 0) emit(a, (next_a << kTrieStep) - 1);
    if ((b & mask) != mask) emit((next_b + 1) << kTrieStep, b);
    a = next_a;
    b = next_b;
  }
  return out;
}

}  // namespace ttlstore::search
