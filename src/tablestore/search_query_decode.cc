#include "tablestore/search_query_decode.h"

#include <cstring>
#include <memory>

#include "search/agg_types.h"
#include "search/geo_query.h"
#include "tablestore/ots_error.h"
#include "tablestore/search_agg_decode.h"
#include "tablestore/search_function_decode.h"
#include "tablestore/search_hits_decode.h"
#include "tablestore/search_shapes.h"

namespace ttlstore::tablestore {
namespace {

namespace pb = ::ttlstore::otssearchpb;

template <typename Message>
Status Parse(std::string_view bytes, Message* m) {
  RETURN_IF_ERROR(CheckWire(bytes, WireShapeOf(*m)));
  if (!m->ParsePartialFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return Error::Validation(std::string(kParseFailedMessage));
  }
  return Status::Ok();
}

uint64_t LittleEndian(std::string_view b, size_t at, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v |= uint64_t(uint8_t(b[at + i])) << (8 * i);
  return v;
}

Result<search::GeoPoint> GeoPointOf(const std::string& text, std::string_view query,
                                   std::string_view what) {
  auto p = search::ParseGeoPoint(text);
  if (!p) {
    return Error::Validation("[" + std::string(query) + "] " + std::string(what) + " '" +
                             EchoForError(text) + "' is not a geo point: expected "
                             "'latitude,longitude' with latitude in [-90, 90] and longitude in "
                             "[-180, 180]");
  }
  return *p;
}

// InnerHits.sort: DocSort, ScoreSort and FieldSort on a sub-field (by its first value).
Result<std::vector<search::InnerSortKey>> DecodeInnerSort(const pb::Sort& sort) {
  if (sort.sorter_size() > kMaxSorters) {
    return Error::Validation("Too many sorters, the limit is " + std::to_string(kMaxSorters) +
                             ".");
  }
  std::vector<search::InnerSortKey> out;
  for (const auto& s : sort.sorter()) {
    search::InnerSortKey k;
    if (s.has_doc_sort()) {
      k.kind = search::InnerSortKey::Kind::kDoc;
      k.descending = s.doc_sort().order() == pb::SORT_ORDER_DESC;
    } else if (s.has_score_sort()) {
      k.kind = search::InnerSortKey::Kind::kScore;
      k.descending = !s.score_sort().has_order() || s.score_sort().order() == pb::SORT_ORDER_DESC;
    } else if (s.has_field_sort() && !s.field_sort().has_nested_filter() &&
               !s.field_sort().has_missing_value() && s.field_sort().missing_field().empty() &&
               !s.field_sort().has_mode()) {
      k.kind = search::InnerSortKey::Kind::kField;
      k.field = s.field_sort().field_name();
      k.descending = s.field_sort().order() == pb::SORT_ORDER_DESC;
    } else {
      return Error::Validation("[inner_hits] sort supports DocSort, ScoreSort and FieldSort "
                               "(without mode, missing values or nested_filter) in ttlstore.");
    }
    out.push_back(std::move(k));
  }
  return out;
}

// The decode of one tree: counts the nodes against kMaxQueryNodes.
class Decoder {
 public:
  Result<search::Query> Decode(const pb::Query& q, int depth) {
    if (++nodes_ > kMaxQueryNodes) {
      return Error::Validation("The query has too many sub queries, the limit is " +
                               std::to_string(kMaxQueryNodes) + ".");
    }
    if (!q.has_type()) return Error::Validation("Query type must be set.");
    search::Query out;
    const std::string& body = q.query();
    switch (q.type()) {
      case pb::MATCH_ALL_QUERY: {
        pb::MatchAllQuery m;
        RETURN_IF_ERROR(Parse(body, &m));
        out.kind = search::Query::Kind::kMatchAll;
        return out;
      }
      case pb::TERM_QUERY: {
        pb::TermQuery m;
        RETURN_IF_ERROR(Parse(body, &m));
        RETURN_IF_ERROR(NeedField(m.field_name(), "term_query"));
        if (!m.has_term()) return Error::Validation("[term_query] term must not be null");
        ASSIGN_OR_RETURN(v, DecodeSearchValue(m.term()));
        out.kind = search::Query::Kind::kTerm;
        out.field = m.field_name();
        out.terms.push_back(std::move(v));
        if (m.has_weight()) out.weight = m.weight();
        return out;
      }
      case pb::TERMS_QUERY: {
        pb::TermsQuery m;
        RETURN_IF_ERROR(Parse(body, &m));
        RETURN_IF_ERROR(NeedField(m.field_name(), "terms_query"));
        if (m.terms_size() == 0) return Error::Validation("[terms_query] terms must not be empty");
        if (m.terms_size() > kMaxTerms) {
          return Error::Validation("[terms_query] the number of terms must be no more than " +
                                   std::to_string(kMaxTerms) + ", but was " +
                                   std::to_string(m.terms_size()));
        }
        out.kind = search::Query::Kind::kTerms;
        out.field = m.field_name();
        for (const auto& t : m.terms()) {
          ASSIGN_OR_RETURN(v, DecodeSearchValue(t));
          out.terms.push_back(std::move(v));
        }
        if (m.has_weight()) out.weight = m.weight();
        return out;
      }
      case pb::RANGE_QUERY: {
        pb::RangeQuery m;
        RETURN_IF_ERROR(Parse(body, &m));
        RETURN_IF_ERROR(NeedField(m.field_name(), "range_query"));
        out.kind = search::Query::Kind::kRange;
        out.field = m.field_name();
        if (m.has_range_from()) {
          ASSIGN_OR_RETURN(v, DecodeSearchValue(m.range_from()));
          out.from = std::move(v);
        }
        if (m.has_range_to()) {
          ASSIGN_OR_RETURN(v, DecodeSearchValue(m.range_to()));
          out.to = std::move(v);
        }
        if (!out.from && !out.to) {
          return Error::Validation("[range_query] range_from and range_to can't both be null");
        }
        // The SDKs default both to true when a bound is given without them.
        out.include_lower = m.has_include_lower() ? m.include_lower() : true;
        out.include_upper = m.has_include_upper() ? m.include_upper() : true;
        return out;
      }
      case pb::PREFIX_QUERY: {
        pb::PrefixQuery m;
        RETURN_IF_ERROR(Parse(body, &m));
        RETURN_IF_ERROR(NeedField(m.field_name(), "prefix_query"));
        if (m.prefix().size() > kMaxPrefixBytes) {
          return Error::Validation("[prefix_query] prefix is too long, the limit is " +
                                   std::to_string(kMaxPrefixBytes) + " bytes");
        }
        out.kind = search::Query::Kind::kPrefix;
        out.field = m.field_name();
        out.text = m.prefix();
        if (m.has_weight()) out.weight = m.weight();
        return out;
      }
      case pb::WILDCARD_QUERY: {
        pb::WildcardQuery m;
        RETURN_IF_ERROR(Parse(body, &m));
        RETURN_IF_ERROR(NeedField(m.field_name(), "wildcard_query"));
        // Its 32-character limit is the engine's, with the service's text (search/).
        out.kind = search::Query::Kind::kWildcard;
        out.field = m.field_name();
        out.text = m.value();
        if (m.has_weight()) out.weight = m.weight();
        return out;
      }
      case pb::EXISTS_QUERY: {
        pb::ExistsQuery m;
        RETURN_IF_ERROR(Parse(body, &m));
        RETURN_IF_ERROR(NeedField(m.field_name(), "exists_query"));
        out.kind = search::Query::Kind::kExists;
        out.field = m.field_name();
        return out;
      }
      case pb::MATCH_QUERY: {
        pb::MatchQuery m;
        RETURN_IF_ERROR(Parse(body, &m));
        RETURN_IF_ERROR(NeedField(m.field_name(), "match_query"));
        out.kind = search::Query::Kind::kMatch;
        out.field = m.field_name();
        out.text = m.text();
        out.match_and = m.has_op() && m.op() == pb::AND;
        if (m.has_minimum_should_match()) {
          if (m.minimum_should_match() < 0) {
            return Error::Validation("[match_query] minimum_should_match must be >= 0");
          }
          out.minimum_should_match = m.minimum_should_match();
        }
        if (m.has_weight()) out.weight = m.weight();
        return out;
      }
      case pb::MATCH_PHRASE_QUERY: {
        pb::MatchPhraseQuery m;
        RETURN_IF_ERROR(Parse(body, &m));
        RETURN_IF_ERROR(NeedField(m.field_name(), "match_phrase_query"));
        out.kind = search::Query::Kind::kMatchPhrase;
        out.field = m.field_name();
        out.text = m.text();
        if (m.has_weight()) out.weight = m.weight();
        return out;
      }
      case pb::BOOL_QUERY: {
        if (depth >= kMaxQueryDepth) return TooDeep();
        pb::BoolQuery m;
        RETURN_IF_ERROR(Parse(body, &m));
        int clauses = m.must_queries_size() + m.must_not_queries_size() +
                      m.filter_queries_size() + m.should_queries_size();
        if (clauses > kMaxBoolClauses) {
          return Error::Validation("too many queries in bool_query");
        }
        if (clauses == 0) return Error::Validation("[bool_query] sub query must not be null");
        out.kind = search::Query::Kind::kBool;
        RETURN_IF_ERROR(DecodeAll(m.must_queries(), depth, &out.must));
        RETURN_IF_ERROR(DecodeAll(m.must_not_queries(), depth, &out.must_not));
        RETURN_IF_ERROR(DecodeAll(m.filter_queries(), depth, &out.filter));
        RETURN_IF_ERROR(DecodeAll(m.should_queries(), depth, &out.should));
        if (m.has_minimum_should_match()) {
          int32_t msm = m.minimum_should_match();
          if (msm < 0 || (msm > m.should_queries_size() && m.should_queries_size() > 0)) {
            return Error::Validation(
                "[bool_query] minimum_should_match must be in range [0, " +
                std::to_string(m.should_queries_size()) + "], but was " + std::to_string(msm));
          }
          out.minimum_should_match = msm;
        }
        return out;
      }
      case pb::CONST_SCORE_QUERY: {
        // A filter without scores: a Bool query with the one filter.
        if (depth >= kMaxQueryDepth) return TooDeep();
        pb::ConstScoreQuery m;
        RETURN_IF_ERROR(Parse(body, &m));
        if (!m.has_filter()) return Error::Validation("[const_score_query] filter must not be null");
        ASSIGN_OR_RETURN(inner, Decode(m.filter(), depth + 1));
        out.kind = search::Query::Kind::kBool;
        out.filter.push_back(std::move(inner));
        return out;
      }
      case pb::GEO_DISTANCE_QUERY: {
        pb::GeoDistanceQuery m;
        RETURN_IF_ERROR(Parse(body, &m));
        RETURN_IF_ERROR(NeedField(m.field_name(), "geo_distance_query"));
        out.kind = search::Query::Kind::kGeoDistance;
        out.field = m.field_name();
        if (!m.has_center_point()) {
          return Error::Validation("[geo_distance_query] center_point must not be null");
        }
        ASSIGN_OR_RETURN(center, GeoPointOf(m.center_point(), "geo_distance_query", "center_point"));
        out.points.push_back(center);
        if (!m.has_distance()) return Error::Validation("[geo_distance_query] distance must be set");
        out.distance = m.distance();
        return out;
      }
      case pb::GEO_BOUNDING_BOX_QUERY: {
        pb::GeoBoundingBoxQuery m;
        RETURN_IF_ERROR(Parse(body, &m));
        RETURN_IF_ERROR(NeedField(m.field_name(), "geo_bounding_box_query"));
        out.kind = search::Query::Kind::kGeoBoundingBox;
        out.field = m.field_name();
        if (!m.has_top_left() || !m.has_bottom_right()) {
          return Error::Validation("[geo_bounding_box_query] top_left and bottom_right must not "
                                   "be null");
        }
        ASSIGN_OR_RETURN(tl, GeoPointOf(m.top_left(), "geo_bounding_box_query", "top_left"));
        ASSIGN_OR_RETURN(br, GeoPointOf(m.bottom_right(), "geo_bounding_box_query", "bottom_right"));
        out.points = {tl, br};
        return out;
      }
      case pb::GEO_POLYGON_QUERY: {
        pb::GeoPolygonQuery m;
        RETURN_IF_ERROR(Parse(body, &m));
        RETURN_IF_ERROR(NeedField(m.field_name(), "geo_polygon_query"));
        out.kind = search::Query::Kind::kGeoPolygon;
        out.field = m.field_name();
        if (m.points_size() > int(search::kMaxPolygonPoints)) {
          return Error::Validation("[geo_polygon_query] points must hold at most " +
                                   std::to_string(search::kMaxPolygonPoints) + " vertices");
        }
        for (const auto& p : m.points()) {
          ASSIGN_OR_RETURN(pt, GeoPointOf(p, "geo_polygon_query", "points"));
          out.points.push_back(pt);
        }
        return out;
      }
      case pb::NESTED_QUERY: {
        if (depth >= kMaxQueryDepth) return TooDeep();
        pb::NestedQuery m;
        RETURN_IF_ERROR(Parse(body, &m));
        if (m.path().empty()) return Error::Validation("[nested_query] path must not be null");
        if (!m.has_query()) return Error::Validation("[nested_query] query must not be null");
        out.kind = search::Query::Kind::kNested;
        out.field = m.path();
        if (m.has_score_mode()) out.score_mode = static_cast<search::Query::ScoreMode>(m.score_mode());
        if (m.has_weight()) out.weight = m.weight();
        ASSIGN_OR_RETURN(inner, Decode(m.query(), depth + 1));
        out.sub.push_back(std::move(inner));
        if (m.has_inner_hits()) {
          const auto& h = m.inner_hits();
          search::InnerHits hits;
          if (h.has_highlight()) {
            ASSIGN_OR_RETURN(highlight, DecodeHighlight(h.highlight()));
            hits.highlight = std::move(highlight);
          }
          if (h.has_offset()) hits.offset = h.offset();
          if (h.has_limit()) hits.limit = h.limit();
          if (h.has_sort()) {
            ASSIGN_OR_RETURN(sort, DecodeInnerSort(h.sort()));
            hits.sort = std::move(sort);
          }
          out.inner_hits = std::move(hits);
        }
        return out;
      }
      case pb::FUNCTION_SCORE_QUERY:
      case pb::FUNCTIONS_SCORE_QUERY: {
        if (depth >= kMaxQueryDepth) return TooDeep();
        SubQueryDecoder sub = [&](const pb::Query& inner) { return Decode(inner, depth + 1); };
        return q.type() == pb::FUNCTION_SCORE_QUERY ? DecodeFunctionScoreQuery(body, sub)
                                                    : DecodeFunctionsScoreQuery(body, sub);
      }
      case pb::KNN_VECTOR_QUERY: {
        if (depth >= kMaxQueryDepth) return TooDeep();
        pb::KnnVectorQuery m;
        RETURN_IF_ERROR(Parse(body, &m));
        RETURN_IF_ERROR(NeedField(m.field_name(), "knn_vector_query"));
        out.kind = search::Query::Kind::kKnnVector;
        out.field = m.field_name();
        // Range checks against the index (top_k, dimension, num_candidates) are the engine's.
        if (!m.has_top_k()) return Error::Validation("[knn_vector_query] top_k must be set");
        out.top_k = m.top_k();
        if (m.float32_query_vector_size() == 0) {
          return Error::Validation("[knn_vector_query] float32_query_vector must not be empty");
        }
        out.vector.assign(m.float32_query_vector().begin(), m.float32_query_vector().end());
        if (m.has_filter()) {
          ASSIGN_OR_RETURN(filter, Decode(m.filter(), depth + 1));
          out.knn_filter.push_back(std::move(filter));
        }
        if (m.has_weight()) out.weight = m.weight();
        if (m.has_min_score()) out.min_score = m.min_score();
        if (m.has_num_candidates()) out.num_candidates = m.num_candidates();
        return out;
      }
      default:
        return Error::Validation("Unsupported query type: " +
                                 pb::QueryType_Name(q.type()) + " (" +
                                 std::to_string(int(q.type())) + ") is not supported by ttlstore.");
    }
  }

 private:
  static Status NeedField(const std::string& name, std::string_view what) {
    if (name.empty()) {
      return Error::Validation("[" + std::string(what) + "] field_name must not be null");
    }
    return Status::Ok();
  }
  static Error TooDeep() {
    return Error::Validation("The query nests too deeply, the limit is " +
                             std::to_string(kMaxQueryDepth) + " levels.");
  }
  Status DecodeAll(const google::protobuf::RepeatedPtrField<pb::Query>& in, int depth,
                   std::vector<search::Query>* out) {
    out->reserve(in.size());
    for (const auto& q : in) {
      ASSIGN_OR_RETURN(sub, Decode(q, depth + 1));
      out->push_back(std::move(sub));
    }
    return Status::Ok();
  }

  int nodes_ = 0;
};

}  // namespace

Result<model::CellValue> DecodeSearchValue(std::string_view b) {
  auto bad = [] { return Error::Validation("Invalid search value: malformed variant bytes."); };
  if (b.empty()) return bad();
  switch (uint8_t(b[0])) {
    case 0:
      if (b.size() != 9) return bad();
      return model::CellValue::Integer(static_cast<int64_t>(LittleEndian(b, 1, 8)));
    case 1: {
      if (b.size() != 9) return bad();
      uint64_t bits = LittleEndian(b, 1, 8);
      double d;
      std::memcpy(&d, &bits, sizeof d);
      return model::CellValue::Double(d);
    }
    case 2:
      if (b.size() != 2) return bad();
      return model::CellValue::Boolean(b[1] != 0);
    case 3: {
      if (b.size() < 5) return bad();
      uint64_t len = LittleEndian(b, 1, 4);
      if (len != b.size() - 5) return bad();
      return model::CellValue::String(std::string(b.substr(5)));
    }
    default:
      return Error::Validation("Invalid search value: unsupported type " +
                               std::to_string(uint8_t(b[0])) + ".");
  }
}

Result<search::Query> DecodeQuery(const pb::Query& query) {
  Decoder d;
  return d.Decode(query, 0);
}

namespace {

Status DecodeSortMode(int32_t mode, search::SortKey* k) {
  k->mode_given = true;
  switch (mode) {
    case pb::SORT_MODE_MIN: k->mode = search::SortKey::Mode::kMin; return Status::Ok();
    case pb::SORT_MODE_MAX: k->mode = search::SortKey::Mode::kMax; return Status::Ok();
    case pb::SORT_MODE_AVG: k->mode = search::SortKey::Mode::kAvg; return Status::Ok();
    default: return Error::Validation("Invalid sort mode: " + std::to_string(mode) + ".");
  }
}

Status DecodeNestedFilter(const pb::NestedFilter& f, search::SortKey* k) {
  if (f.path().empty()) return Error::Validation("[nested_filter] path must not be null");
  k->nested_path = f.path();
  if (f.has_filter()) {
    ASSIGN_OR_RETURN(q, DecodeQuery(f.filter()));
    k->nested_filter.push_back(std::move(q));
  }
  return Status::Ok();
}

}  // namespace

Result<std::vector<search::SortKey>> DecodeSort(const pb::Sort& sort) {
  if (sort.sorter_size() > kMaxSorters) {
    return Error::Validation("Too many sorters, the limit is " + std::to_string(kMaxSorters) +
                             ".");
  }
  std::vector<search::SortKey> out;
  for (const auto& s : sort.sorter()) {
    search::SortKey k;
    int set = s.has_field_sort() + s.has_score_sort() + s.has_pk_sort() +
              s.has_geo_distance_sort() + s.has_doc_sort();
    if (set != 1) return Error::Validation("A sorter must set exactly one sort.");
    if (s.has_field_sort()) {
      const auto& f = s.field_sort();
      if (f.field_name().empty()) {
        return Error::Validation("[field_sort] field_name must not be null");
      }
      if (f.has_nested_filter()) RETURN_IF_ERROR(DecodeNestedFilter(f.nested_filter(), &k));
      if (f.has_mode()) RETURN_IF_ERROR(DecodeSortMode(f.mode(), &k));
      k.key.kind = model::SearchSortKey::Kind::kField;
      k.key.field = f.field_name();
      k.key.descending = f.order() == pb::SORT_ORDER_DESC;
      if (f.has_missing_value()) {
        ASSIGN_OR_RETURN(v, DecodeSearchValue(f.missing_value()));
        // The SDKs' FIRST_WHEN_MISSING / LAST_WHEN_MISSING (Java FieldSort, Go FieldSort) are
        // these two strings: positions, not values, whatever the field's type.
        if (v.type == model::CellType::kString && (v.bytes == "_first" || v.bytes == "_last")) {
          k.missing = v.bytes == "_first" ? search::SortKey::Missing::kFirst
                                          : search::SortKey::Missing::kLast;
        } else {
          k.missing_value = std::move(v);
        }
      }
      k.missing_field = f.missing_field();
      k.mode_given = f.has_mode();
    } else if (s.has_score_sort()) {
      k.key.kind = model::SearchSortKey::Kind::kScore;
      // Scores sort descending unless asked otherwise (the SDKs' default order is DESC).
      k.key.descending = !s.score_sort().has_order() ||
                         s.score_sort().order() == pb::SORT_ORDER_DESC;
    } else if (s.has_pk_sort()) {
      k.key.kind = model::SearchSortKey::Kind::kPrimaryKey;
      k.key.descending = s.pk_sort().order() == pb::SORT_ORDER_DESC;
    } else if (s.has_geo_distance_sort()) {
      const auto& g = s.geo_distance_sort();
      if (g.field_name().empty()) {
        return Error::Validation("[geo_distance_sort] field_name must not be null");
      }
      k.key.kind = model::SearchSortKey::Kind::kField;
      k.key.field = g.field_name();
      k.key.descending = g.order() == pb::SORT_ORDER_DESC;
      k.geo = true;
      k.plane = g.distance_type() == pb::GEO_DISTANCE_PLANE;
      if (g.points_size() > 1000) {
        return Error::Validation("[geo_distance_sort] points must hold at most 1000 points");
      }
      for (const auto& p : g.points()) {
        ASSIGN_OR_RETURN(pt, GeoPointOf(p, "geo_distance_sort", "points"));
        k.geo_points.push_back(pt);
      }
      if (g.has_mode()) RETURN_IF_ERROR(DecodeSortMode(g.mode(), &k));
      if (g.has_nested_filter()) RETURN_IF_ERROR(DecodeNestedFilter(g.nested_filter(), &k));
    } else {
      // The SDKs' DocSort "only supports explicit settings within InnerHits" (Java DocSort).
      return Error::Validation("DocSort is only supported in the sort of InnerHits.");
    }
    out.push_back(std::move(k));
  }
  return out;
}

Result<search::SearchRequest> DecodeSearchQuery(std::string_view bytes) {
  pb::SearchQuery q;
  RETURN_IF_ERROR(Parse(bytes, &q));
  search::SearchRequest out;
  if (q.has_highlight()) {
    ASSIGN_OR_RETURN(highlight, DecodeHighlight(q.highlight()));
    out.highlight = std::move(highlight);
  }
  if (q.has_collapse()) {
    ASSIGN_OR_RETURN(collapse, DecodeCollapse(q.collapse()));
    out.collapse_field = std::move(collapse);
  }
  if (!q.has_query()) return Error::Validation("The query of the search query must be set.");
  if (q.has_aggs() || q.has_group_bys()) {
    ASSIGN_OR_RETURN(aggs, DecodeAggregations(q.has_aggs() ? &q.aggs() : nullptr,
                                              q.has_group_bys() ? &q.group_bys() : nullptr));
    if (!aggs.empty()) out.aggs = std::make_shared<const search::AggRequest>(std::move(aggs));
  }
  ASSIGN_OR_RETURN(query, DecodeQuery(q.query()));
  out.query = std::move(query);
  if (q.has_filter()) {
    // SearchFilter: the hits must match it too; it adds nothing to their scores.
    if (!q.filter().has_query()) return Error::Validation("[search_filter] query must not be null");
    ASSIGN_OR_RETURN(filter, DecodeQuery(q.filter().query()));
    search::Query both;
    both.kind = search::Query::Kind::kBool;
    both.must.push_back(std::move(out.query));
    both.filter.push_back(std::move(filter));
    out.query = std::move(both);
  }
  if (q.has_sort()) {
    ASSIGN_OR_RETURN(sort, DecodeSort(q.sort()));
    out.sort = std::move(sort);
    out.disable_default_pk_sorter = q.sort().disable_default_pk_sorter();
  }
  if (q.has_offset()) {
    if (q.offset() < 0) return Error::Validation("The offset must be >= 0, but was " +
                                                 std::to_string(q.offset()) + ".");
    out.offset = q.offset();
  }
  if (q.has_limit()) {
    if (q.limit() < 0 || q.limit() > kMaxSearchLimit) {
      return Error::Validation("The limit must be in range [0, " +
                               std::to_string(kMaxSearchLimit) + "], but was " +
                               std::to_string(q.limit()) + ".");
    }
    out.limit = q.limit();
  }
  if (int64_t(out.offset) + out.limit > kMaxOffsetPlusLimit) {
    return Error::Validation("The sum of offset and limit must be no more than " +
                             std::to_string(kMaxOffsetPlusLimit) +
                             ": use next_token to read further.");
  }
  if (q.has_token() && !q.token().empty()) {
    // The token carries the sort of the first page; a sort sent again with it is ignored.
    out.token = q.token();
  }
  // getTotalCount (Node, Go, Python) or trackTotalCount (Java, which sends -1 for none and
  // 2147483647 for the exact count; N > 0 counts up to N).
  out.total_count = q.get_total_count();
  if (q.has_track_total_count()) {
    int32_t t = q.track_total_count();
    if (t < -1 || t == 0) {
      return Error::Validation("track_total_count must be -1 or positive, but was " +
                               std::to_string(t) + ".");
    }
    if (t > 0) {
      out.total_count = true;
      if (t != INT32_MAX && !q.get_total_count()) out.total_count_limit = t;
    }
  }
  return out;
}

}  // namespace ttlstore::tablestore
