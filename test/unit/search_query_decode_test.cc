// The decode of the protocol's search queries into the engine's Query tree
// (tablestore/search_query_decode.h): each query type, typed values, sorts, and the bounds on
// nesting, clauses and terms.
#include "tablestore/search_query_decode.h"
#include "tablestore/search_shapes.h"

#include <gtest/gtest.h>

#include <cstring>

namespace ttlstore::tablestore {
namespace {

namespace pb = ::ttlstore::otssearchpb;

std::string IntValue(int64_t v) {
  std::string out(1, '\0');
  for (int i = 0; i < 8; ++i) out.push_back(char(uint64_t(v) >> (8 * i)));
  return out;
}
std::string StrValue(const std::string& s) {
  std::string out(1, '\x03');
  uint32_t n = s.size();
  for (int i = 0; i < 4; ++i) out.push_back(char(n >> (8 * i)));
  return out + s;
}

template <typename M>
pb::Query Wrap(pb::QueryType type, const M& m) {
  pb::Query q;
  q.set_type(type);
  q.set_query(m.SerializePartialAsString());
  return q;
}

pb::Query Term(const std::string& field, const std::string& value) {
  pb::TermQuery t;
  t.set_field_name(field);
  t.set_term(value);
  return Wrap(pb::TERM_QUERY, t);
}

TEST(SearchQueryDecode, ValuesOfEachType) {
  auto i = DecodeSearchValue(IntValue(-7));
  ASSERT_TRUE(i);
  EXPECT_EQ(*i, model::CellValue::Integer(-7));
  std::string d(1, '\x01');
  double x = 2.5;
  char bytes[8];
  std::memcpy(bytes, &x, 8);
  d.append(bytes, 8);
  auto dv = DecodeSearchValue(d);
  ASSERT_TRUE(dv);
  EXPECT_EQ(*dv, model::CellValue::Double(2.5));
  auto b = DecodeSearchValue(std::string("\x02\x01", 2));
  ASSERT_TRUE(b);
  EXPECT_EQ(*b, model::CellValue::Boolean(true));
  auto s = DecodeSearchValue(StrValue("héllo"));
  ASSERT_TRUE(s);
  EXPECT_EQ(*s, model::CellValue::String("héllo"));
}

TEST(SearchQueryDecode, RefusesMalformedValues) {
  EXPECT_FALSE(DecodeSearchValue(""));
  EXPECT_FALSE(DecodeSearchValue(std::string("\x00\x01", 2)));
  EXPECT_FALSE(DecodeSearchValue(std::string("\x03\xff\xff\xff\xff", 5)));
  EXPECT_FALSE(DecodeSearchValue(StrValue("abc") + "x"));
  EXPECT_FALSE(DecodeSearchValue(std::string("\x09", 1)));
}

TEST(SearchQueryDecode, TermRangeAndBool) {
  pb::RangeQuery r;
  r.set_field_name("n");
  r.set_range_from(IntValue(1));
  r.set_include_lower(false);
  pb::BoolQuery b;
  *b.add_must_queries() = Term("k", StrValue("a"));
  *b.add_filter_queries() = Wrap(pb::RANGE_QUERY, r);
  *b.add_should_queries() = Term("k", StrValue("b"));
  *b.add_should_queries() = Term("k", StrValue("c"));
  b.set_minimum_should_match(1);
  *b.add_must_not_queries() = Wrap(pb::MATCH_ALL_QUERY, pb::MatchAllQuery());
  auto q = DecodeQuery(Wrap(pb::BOOL_QUERY, b));
  ASSERT_TRUE(q) << q.error().message();
  EXPECT_EQ(q->kind, search::Query::Kind::kBool);
  ASSERT_EQ(q->must.size(), 1u);
  EXPECT_EQ(q->must[0].kind, search::Query::Kind::kTerm);
  EXPECT_EQ(q->must[0].terms[0], model::CellValue::String("a"));
  ASSERT_EQ(q->filter.size(), 1u);
  EXPECT_EQ(q->filter[0].kind, search::Query::Kind::kRange);
  EXPECT_EQ(*q->filter[0].from, model::CellValue::Integer(1));
  EXPECT_FALSE(q->filter[0].include_lower);
  EXPECT_FALSE(q->filter[0].to.has_value());
  EXPECT_EQ(q->should.size(), 2u);
  EXPECT_EQ(q->minimum_should_match, 1);
  EXPECT_EQ(q->must_not.size(), 1u);
}

TEST(SearchQueryDecode, TextQueries) {
  pb::MatchQuery m;
  m.set_field_name("t");
  m.set_text("quick fox");
  m.set_op(pb::AND);
  auto q = DecodeQuery(Wrap(pb::MATCH_QUERY, m));
  ASSERT_TRUE(q);
  EXPECT_EQ(q->kind, search::Query::Kind::kMatch);
  EXPECT_TRUE(q->match_and);
  pb::WildcardQuery w;
  w.set_field_name("k");
  w.set_value("k*y?");
  auto wq = DecodeQuery(Wrap(pb::WILDCARD_QUERY, w));
  ASSERT_TRUE(wq);
  EXPECT_EQ(wq->kind, search::Query::Kind::kWildcard);
  EXPECT_EQ(wq->text, "k*y?");
  pb::ExistsQuery e;
  EXPECT_FALSE(DecodeQuery(Wrap(pb::EXISTS_QUERY, e)));  // no field name
}

TEST(SearchQueryDecode, RefusesUnsupportedTypes) {
  // Every QueryType of our search.proto is decoded (KNN since vec32). A type it does not list
  // (the Java SDK's SUFFIX_QUERY = 19) arrives as an unknown enum value: no type, refused.
  pb::Query suffix;
  ASSERT_TRUE(suffix.ParseFromString(std::string("\x08\x13\x12\x00", 4)));
  auto r = DecodeQuery(suffix);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("Query type must be set"), std::string::npos);
  // KnnVectorQuery is decoded: an empty one lacks its field, then its top_k and vector.
  pb::Query knn;
  knn.set_type(pb::KNN_VECTOR_QUERY);
  auto k = DecodeQuery(knn);
  ASSERT_FALSE(k);
  EXPECT_NE(k.error().message().find("[knn_vector_query] field_name must not be null"),
            std::string::npos);
  pb::KnnVectorQuery m;
  m.set_field_name("v");
  auto no_top_k = DecodeQuery(Wrap(pb::KNN_VECTOR_QUERY, m));
  ASSERT_FALSE(no_top_k);
  EXPECT_NE(no_top_k.error().message().find("top_k must be set"), std::string::npos);
  m.set_top_k(5);
  auto no_vector = DecodeQuery(Wrap(pb::KNN_VECTOR_QUERY, m));
  ASSERT_FALSE(no_vector);
  EXPECT_NE(no_vector.error().message().find("float32_query_vector must not be empty"),
            std::string::npos);
  m.add_float32_query_vector(1.5f);
  m.add_float32_query_vector(-2.0f);
  *m.mutable_filter() = Term("k", StrValue("a"));
  auto ok = DecodeQuery(Wrap(pb::KNN_VECTOR_QUERY, m));
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->kind, search::Query::Kind::kKnnVector);
  EXPECT_EQ(ok->field, "v");
  EXPECT_EQ(ok->top_k, 5);
  EXPECT_EQ(ok->vector, (std::vector<float>{1.5f, -2.0f}));
  ASSERT_EQ(ok->knn_filter.size(), 1u);
  EXPECT_EQ(ok->knn_filter[0].kind, search::Query::Kind::kTerm);
  // Geo queries are decoded (issue 32): an empty one lacks its field.
  pb::Query geo;
  geo.set_type(pb::GEO_DISTANCE_QUERY);
  auto g = DecodeQuery(geo);
  ASSERT_FALSE(g);
  EXPECT_NE(g.error().message().find("geo_distance_query"), std::string::npos);
  pb::Query bad;
  bad.set_type(pb::TERM_QUERY);
  bad.set_query("\xff\xff\xff");
  EXPECT_FALSE(DecodeQuery(bad));
}

TEST(SearchQueryDecode, BoundsNesting) {
  pb::Query q = Term("k", StrValue("a"));
  for (int i = 0; i < kMaxQueryDepth; ++i) {
    pb::BoolQuery b;
    *b.add_must_queries() = q;
    q = Wrap(pb::BOOL_QUERY, b);
  }
  EXPECT_TRUE(DecodeQuery(q));
  pb::BoolQuery b;
  *b.add_must_queries() = q;
  auto deep = DecodeQuery(Wrap(pb::BOOL_QUERY, b));
  ASSERT_FALSE(deep);
  EXPECT_NE(deep.error().message().find("nests too deeply"), std::string::npos);
}

TEST(SearchQueryDecode, BoundsClausesAndTerms) {
  pb::BoolQuery b;
  for (int i = 0; i <= kMaxBoolClauses; ++i) *b.add_should_queries() = Term("k", StrValue("a"));
  auto r = DecodeQuery(Wrap(pb::BOOL_QUERY, b));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(), "too many queries in bool_query");
  pb::TermsQuery t;
  t.set_field_name("k");
  for (int i = 0; i <= kMaxTerms; ++i) t.add_terms(IntValue(i));
  EXPECT_FALSE(DecodeQuery(Wrap(pb::TERMS_QUERY, t)));
  pb::BoolQuery empty;
  auto e = DecodeQuery(Wrap(pb::BOOL_QUERY, empty));
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error().message(), "[bool_query] sub query must not be null");
}

TEST(SearchQueryDecode, BoundsTotalNodes) {
  // 4 levels of 1024-wide... would be enormous; 8 wide x depth 5 of should clauses = 37449
  // nodes, refused at kMaxQueryNodes without decoding the rest.
  pb::Query leaf = Term("k", StrValue("a"));
  pb::Query q = leaf;
  for (int d = 0; d < 5; ++d) {
    pb::BoolQuery b;
    for (int i = 0; i < 8; ++i) *b.add_should_queries() = q;
    q = Wrap(pb::BOOL_QUERY, b);
  }
  auto r = DecodeQuery(q);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("too many sub queries"), std::string::npos);
}

TEST(SearchQueryDecode, SearchQueryPagingAndSort) {
  pb::SearchQuery sq;
  *sq.mutable_query() = Wrap(pb::MATCH_ALL_QUERY, pb::MatchAllQuery());
  sq.set_offset(5);
  sq.set_limit(20);
  sq.set_get_total_count(true);
  auto* fs = sq.mutable_sort()->add_sorter()->mutable_field_sort();
  fs->set_field_name("n");
  fs->set_order(pb::SORT_ORDER_DESC);
  sq.mutable_sort()->add_sorter()->mutable_pk_sort();
  auto r = DecodeSearchQuery(sq.SerializePartialAsString());
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(r->offset, 5);
  EXPECT_EQ(r->limit, 20);
  EXPECT_TRUE(r->total_count);
  ASSERT_EQ(r->sort.size(), 2u);
  EXPECT_EQ(r->sort[0].key.kind, model::SearchSortKey::Kind::kField);
  EXPECT_TRUE(r->sort[0].key.descending);
  EXPECT_EQ(r->sort[1].key.kind, model::SearchSortKey::Kind::kPrimaryKey);

  sq.set_limit(1001);
  EXPECT_FALSE(DecodeSearchQuery(sq.SerializePartialAsString()));
  sq.set_limit(100);
  sq.set_offset(99950);
  EXPECT_FALSE(DecodeSearchQuery(sq.SerializePartialAsString()));
  sq.set_offset(0);
  sq.set_aggs("x");
  EXPECT_FALSE(DecodeSearchQuery(sq.SerializePartialAsString()));
}

// What the other SDKs send beyond the Node SDK: the Java SDK's trackTotalCount and
// SearchFilter, the Go and Java DisableDefaultPkSorter, missing_field and the "_first" /
// "_last" missing values.
TEST(SearchQueryDecode, OtherSdksSearchOptions) {
  pb::SearchQuery sq;
  *sq.mutable_query() = Term("k", StrValue("a"));
  sq.set_track_total_count(-1);  // the Java SDK's default: no count
  auto r = DecodeSearchQuery(sq.SerializePartialAsString());
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_FALSE(r->total_count);
  sq.set_track_total_count(2147483647);  // TRACK_TOTAL_COUNT: the exact count
  r = DecodeSearchQuery(sq.SerializePartialAsString());
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->total_count);
  EXPECT_EQ(r->total_count_limit, INT64_MAX);
  sq.set_track_total_count(50);
  r = DecodeSearchQuery(sq.SerializePartialAsString());
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->total_count);
  EXPECT_EQ(r->total_count_limit, 50);
  sq.set_track_total_count(-2);
  EXPECT_FALSE(DecodeSearchQuery(sq.SerializePartialAsString()));
  sq.clear_track_total_count();

  // SearchFilter: the query and the filter, the filter without scoring.
  *sq.mutable_filter()->mutable_query() = Term("n", IntValue(3));
  r = DecodeSearchQuery(sq.SerializePartialAsString());
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(r->query.kind, search::Query::Kind::kBool);
  ASSERT_EQ(r->query.must.size(), 1u);
  EXPECT_EQ(r->query.must[0].field, "k");
  ASSERT_EQ(r->query.filter.size(), 1u);
  EXPECT_EQ(r->query.filter[0].field, "n");
  sq.mutable_filter()->clear_query();
  EXPECT_FALSE(DecodeSearchQuery(sq.SerializePartialAsString()));
  sq.clear_filter();

  auto* sort = sq.mutable_sort();
  sort->set_disable_default_pk_sorter(true);
  auto* a = sort->add_sorter()->mutable_field_sort();
  a->set_field_name("a");
  a->set_missing_field("b");
  a->set_missing_value(StrValue("_first"));
  auto* b = sort->add_sorter()->mutable_field_sort();
  b->set_field_name("b");
  b->set_missing_value(StrValue("_last"));
  auto* c = sort->add_sorter()->mutable_field_sort();
  c->set_field_name("c");
  c->set_missing_value(StrValue("_other"));
  r = DecodeSearchQuery(sq.SerializePartialAsString());
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_TRUE(r->disable_default_pk_sorter);
  ASSERT_EQ(r->sort.size(), 3u);
  EXPECT_EQ(r->sort[0].missing_field, "b");
  EXPECT_EQ(r->sort[0].missing, search::SortKey::Missing::kFirst);
  EXPECT_FALSE(r->sort[0].missing_value);
  EXPECT_EQ(r->sort[1].missing, search::SortKey::Missing::kLast);
  EXPECT_FALSE(r->sort[1].missing_value);
  ASSERT_TRUE(r->sort[2].missing_value);
  EXPECT_EQ(*r->sort[2].missing_value, model::CellValue::String("_other"));
}

}  // namespace
}  // namespace ttlstore::tablestore

namespace ttlstore::tablestore {
namespace {

namespace pb = ::ttlstore::otssearchpb;

TEST(SearchShapes, ListEveryRepeatedFieldOfEveryRequest) {
  auto counted = [](const auto& m) {
    WireCounts c = CountWire(m.SerializePartialAsString(), WireShapeOf(m));
    EXPECT_TRUE(c.well_formed);
    return c.repeated_entries;
  };
  pb::CreateSearchIndexRequest create;
  auto* schema = create.mutable_schema();
  for (int i = 0; i < 2; ++i) {
    auto* f = schema->add_field_schemas();
    f->add_date_formats("a");
    f->add_source_field_names("b");
    auto* sub = f->add_field_schemas();
    sub->add_date_formats("c");
    schema->mutable_index_setting()->add_routing_fields("r");
    schema->mutable_index_sort()->add_sorter()->mutable_pk_sort();
  }
  // 2 fields, each 1 date format + 1 source + 1 sub-field (with 1 date format); 2 routing
  // fields; 2 sorters.
  EXPECT_EQ(counted(create), 2u + 2 * 4 + 2 + 2);

  pb::SearchRequest search;
  search.mutable_columns_to_get()->add_column_names("a");
  search.mutable_columns_to_get()->add_column_names("b");
  search.add_routing_values("r");
  EXPECT_EQ(counted(search), 3u);
  EXPECT_EQ(CountWire(search.SerializePartialAsString(), WireShapeOf(search)).max_columns, 2u);

  pb::SearchQuery query;
  query.mutable_sort()->add_sorter()->mutable_field_sort()->set_field_name("f");
  query.mutable_sort()->add_sorter()->mutable_score_sort();
  query.mutable_query()->set_type(pb::MATCH_ALL_QUERY);
  query.mutable_filter()->mutable_query()->set_type(pb::MATCH_ALL_QUERY);
  EXPECT_EQ(counted(query), 2u);

  pb::UpdateSearchIndexRequest update;
  update.add_query_flow_weight("w");
  update.add_added_field_schemas("f");
  update.add_added_field_schemas("g");
  EXPECT_EQ(counted(update), 3u);

  pb::ParallelScanRequest scan;
  scan.mutable_columns_to_get()->add_column_names("a");
  scan.mutable_scan_query()->mutable_query()->set_type(pb::MATCH_ALL_QUERY);
  EXPECT_EQ(counted(scan), 1u);

  pb::BoolQuery b;
  for (int i = 0; i < 4; ++i) b.add_should_queries()->set_type(pb::MATCH_ALL_QUERY);
  EXPECT_EQ(counted(b), 4u);
  pb::TermsQuery terms;
  terms.add_terms("x");
  terms.add_terms("y");
  EXPECT_EQ(counted(terms), 2u);
}

TEST(SearchShapes, TooManyColumnsToGetAreRefused) {
  pb::SearchRequest search;
  for (int i = 0; i < 1025; ++i) search.mutable_columns_to_get()->add_column_names("c");
  EXPECT_FALSE(CheckWire(search.SerializePartialAsString(), WireShapeOf(search)).ok());
}

}  // namespace
}  // namespace ttlstore::tablestore
