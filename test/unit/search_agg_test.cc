// The pure parts of Search aggregations (issue 32): percentile interpolation and date-histogram
// rounding (search/agg_eval.h, search/agg_dates.h), the decode of the protocol's aggregations
// and group-bys with its bounds, and the typed values of results
// (tablestore/search_agg_decode.h).
#include <gtest/gtest.h>

#include "search/agg_dates.h"
#include "search/agg_eval.h"
#include "search/agg_validate.h"
#include "tablestore/search.pb.h"
#include "tablestore/search_agg_decode.h"
#include "tablestore/search_query_decode.h"

namespace ttlstore::tablestore {
namespace {

namespace pb = ::ttlstore::otssearchpb;
using search::AggKind;
using search::GroupByKind;

TEST(SearchAggPure, PercentileInterpolatesBetweenRanks) {
  std::vector<long double> v = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  EXPECT_DOUBLE_EQ(double(search::PercentileOf(v, 0)), 1);
  EXPECT_DOUBLE_EQ(double(search::PercentileOf(v, 100)), 10);
  EXPECT_DOUBLE_EQ(double(search::PercentileOf(v, 50)), 5.5);
  EXPECT_DOUBLE_EQ(double(search::PercentileOf(v, 25)), 3.25);
  std::vector<long double> one = {42};
  EXPECT_DOUBLE_EQ(double(search::PercentileOf(one, 99)), 42);
}

TEST(SearchAggPure, DateRoundingFixedAndCalendar) {
  const int64_t day = 86400000;
  const int64_t t = search::DaysFromCivil(2024, 3, 15) * day + 5 * 3600000;  // 2024-03-15 05:00
  search::DateRounding days({1, search::DateUnit::kDay}, 0, 0);
  EXPECT_EQ(days.Floor(t), search::DaysFromCivil(2024, 3, 15) * day);
  EXPECT_EQ(days.Next(days.Floor(t)), search::DaysFromCivil(2024, 3, 16) * day);
  // In +08:00 the same instant is 13:00 local: the local day starts at 16:00 UTC the day before.
  search::DateRounding local({1, search::DateUnit::kDay}, 0, 8 * 3600000);
  EXPECT_EQ(local.Floor(t), search::DaysFromCivil(2024, 3, 15) * day - 8 * 3600000);
  search::DateRounding months({1, search::DateUnit::kMonth}, 0, 0);
  EXPECT_EQ(months.Floor(t), search::DaysFromCivil(2024, 3, 1) * day);
  EXPECT_EQ(months.Next(months.Floor(t)), search::DaysFromCivil(2024, 4, 1) * day);
  search::DateRounding quarters({1, search::DateUnit::kQuarter}, 0, 0);
  EXPECT_EQ(quarters.Floor(t), search::DaysFromCivil(2024, 1, 1) * day);
  // Weeks start on Monday: 2024-03-11.
  search::DateRounding weeks({1, search::DateUnit::kWeek}, 0, 0);
  EXPECT_EQ(weeks.Floor(t), search::DaysFromCivil(2024, 3, 11) * day);
  // Before the epoch, floors go down.
  EXPECT_EQ(days.Floor(-1), -day);
}

TEST(SearchAggPure, ZoneOffsets) {
  EXPECT_EQ(search::ParseZoneOffset("+08:00"), 8 * 3600000);
  EXPECT_EQ(search::ParseZoneOffset("-05:30"), -(5 * 3600000 + 30 * 60000));
  EXPECT_FALSE(search::ParseZoneOffset("8:00"));
  EXPECT_FALSE(search::ParseZoneOffset("+25:00"));
  EXPECT_FALSE(search::ParseZoneOffset(""));
}

TEST(SearchAggPure, SearchValuesRoundTrip) {
  for (const auto& v : {model::CellValue::Integer(-7), model::CellValue::Double(2.5),
                        model::CellValue::Boolean(true), model::CellValue::String("héllo")}) {
    auto back = DecodeSearchValue(EncodeSearchValue(v));
    ASSERT_TRUE(back.ok());
    EXPECT_TRUE(*back == v);
  }
}

// ---- Decode -----------------------------------------------------------------------------------

pb::Aggregation Agg(const std::string& name, pb::AggregationType type, const std::string& field) {
  pb::FieldAggregation f;
  f.set_field_name(field);
  pb::Aggregation a;
  a.set_name(name);
  a.set_type(type);
  a.set_body(f.SerializeAsString());
  return a;
}

pb::GroupBy ByField(const std::string& name, const std::string& field, const pb::GroupBys* subs) {
  pb::GroupByField f;
  f.set_field_name(field);
  f.set_size(3);
  if (subs) *f.mutable_sub_group_bys() = *subs;
  pb::GroupBy g;
  g.set_name(name);
  g.set_type(pb::GROUP_BY_FIELD);
  g.set_body(f.SerializeAsString());
  return g;
}

TEST(SearchAggDecode, AggregationsAndNestedGroupBys) {
  pb::Aggregations aggs;
  *aggs.add_aggs() = Agg("a", pb::AGG_SUM, "l");
  *aggs.add_aggs() = Agg("b", pb::AGG_DISTINCT_COUNT, "k");
  pb::GroupBys inner;
  *inner.add_group_bys() = ByField("in", "k", nullptr);
  pb::GroupBys outer;
  *outer.add_group_bys() = ByField("out", "l", &inner);
  std::string a = aggs.SerializeAsString(), g = outer.SerializeAsString();
  auto req = DecodeAggregations(&a, &g);
  ASSERT_TRUE(req.ok()) << req.error().message();
  ASSERT_EQ(req->aggs.size(), 2u);
  EXPECT_EQ(req->aggs[0].kind, AggKind::kSum);
  EXPECT_EQ(req->aggs[1].field, "k");
  ASSERT_EQ(req->group_bys.size(), 1u);
  EXPECT_EQ(req->group_bys[0].size, 3);
  ASSERT_EQ(req->group_bys[0].sub_group_bys.size(), 1u);
  EXPECT_EQ(req->group_bys[0].sub_group_bys[0].name, "in");
}

TEST(SearchAggDecode, BoundsAreRefusedBeforeDescending) {
  pb::Aggregations six;
  for (int i = 0; i < 6; ++i) *six.add_aggs() = Agg("a" + std::to_string(i), pb::AGG_COUNT, "l");
  std::string bytes = six.SerializeAsString();
  auto r = DecodeAggregations(&bytes, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("exceeds the limit: 5"), std::string::npos);

  // Group-bys nested four deep.
  pb::GroupBys level;
  *level.add_group_bys() = ByField("g4", "l", nullptr);
  for (int d = 3; d >= 1; --d) {
    pb::GroupBys up;
    *up.add_group_bys() = ByField("g" + std::to_string(d), "l", &level);
    level = up;
  }
  bytes = level.SerializeAsString();
  r = DecodeAggregations(nullptr, &bytes);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("nest deeper than the limit: 3"), std::string::npos);
}

TEST(SearchAggDecode, MalformedBytesAreRefused) {
  std::string junk = "\x0a\xff\xff\xff";  // a length past the end
  auto r = DecodeAggregations(&junk, nullptr);
  ASSERT_FALSE(r.ok());
  pb::Aggregation a;
  a.set_name("x");
  a.set_type(pb::AGG_AVG);
  a.set_body("\x12\x05\x00");  // missing: a truncated typed value
  pb::Aggregations aggs;
  *aggs.add_aggs() = a;
  std::string bytes = aggs.SerializeAsString();
  EXPECT_FALSE(DecodeAggregations(&bytes, nullptr).ok());
  pb::GroupBy g;
  g.set_name("g");
  g.set_type(pb::GroupByType(42));
  pb::GroupBys gs;
  *gs.add_group_bys() = g;
  bytes = gs.SerializeAsString();
  EXPECT_FALSE(DecodeAggregations(nullptr, &bytes).ok());
}

TEST(SearchAggDecode, DateHistogramFields) {
  pb::GroupByDateHistogram h;
  h.set_field_name("t");
  h.mutable_interval()->set_value(2);
  h.mutable_interval()->set_unit(pb::HOUR);
  h.set_time_zone("+08:00");
  pb::GroupBy g;
  g.set_name("h");
  g.set_type(pb::GROUP_BY_DATE_HISTOGRAM);
  g.set_body(h.SerializeAsString());
  pb::GroupBys gs;
  *gs.add_group_bys() = g;
  std::string bytes = gs.SerializeAsString();
  auto r = DecodeAggregations(nullptr, &bytes);
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->group_bys[0].date_interval.value, 2);
  EXPECT_EQ(r->group_bys[0].date_interval.unit, search::DateUnit::kHour);
  EXPECT_EQ(r->group_bys[0].time_zone_ms, 8 * 3600000);
  h.set_time_zone("Asia/Shanghai");
  g.set_body(h.SerializeAsString());
  *gs.mutable_group_bys(0) = g;
  bytes = gs.SerializeAsString();
  EXPECT_FALSE(DecodeAggregations(nullptr, &bytes).ok());
}

// The Go SDK sends an empty GroupBySort when no sorter was set (the default order stays), and a
// composite's suggested_size may exceed the limit (it is clamped, where `size` is refused).
TEST(SearchAggDecode, GoSdkShapes) {
  pb::GroupByField f;
  f.set_field_name("l");
  f.mutable_sort();
  pb::GroupBy g;
  g.set_name("g");
  g.set_type(pb::GROUP_BY_FIELD);
  g.set_body(f.SerializeAsString());
  pb::GroupByComposite c;
  *c.mutable_sources()->add_group_bys() = g;
  c.set_suggested_size(3000);
  pb::GroupBy cg;
  cg.set_name("c");
  cg.set_type(pb::GROUP_BY_COMPOSITE);
  cg.set_body(c.SerializeAsString());
  pb::GroupBys gs;
  *gs.add_group_bys() = g;
  *gs.add_group_bys() = cg;
  std::string bytes = gs.SerializeAsString();
  auto r = DecodeAggregations(nullptr, &bytes);
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_FALSE(r->group_bys[0].sort_given);
  EXPECT_EQ(r->group_bys[1].size, search::kMaxGroupSize);
}

// ---- Validation against an index --------------------------------------------------------------

model::SearchIndexMeta Index() {
  model::SearchIndexMeta ix;
  ix.name = "ix";
  model::SearchField l;
  l.name = "l";
  l.type = model::SearchFieldType::kLong;
  l.index = true;
  l.sort_and_agg = true;
  model::SearchField k = l;
  k.name = "k";
  k.type = model::SearchFieldType::kKeyword;
  model::SearchField plain = l;
  plain.name = "plain";
  plain.sort_and_agg = false;
  ix.fields = {l, k, plain};
  return ix;
}

TEST(SearchAggValidate, TheServiceTexts) {
  auto ix = Index();
  search::AggRequest req;
  search::Aggregation a;
  a.name = "a";
  a.kind = AggKind::kAvg;
  a.field = "nope";
  req.aggs = {a};
  auto s = search::ValidateAggregations(ix, req);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message(), "[avg agg] field: nope does not exist");
  req.aggs[0].field = "plain";
  s = search::ValidateAggregations(ix, req);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message(), "[avg agg] field:plain must enable enable_sort_and_agg, but "
                               "enable_sort_and_agg is not enabled");
  req.aggs[0].kind = AggKind::kSum;
  req.aggs[0].field = "k";
  s = search::ValidateAggregations(ix, req);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message(), "[sum agg] field_name:k type:keyword is invalid, allow [long, double]");
  req.aggs[0].field = "l";
  EXPECT_TRUE(search::ValidateAggregations(ix, req).ok());

  search::GroupBy g;
  g.name = "g";
  g.kind = GroupByKind::kGeoGrid;
  req.group_bys = {g};
  g.field = "l";
  g.precision = 5;
  req.group_bys = {g};
  s = search::ValidateAggregations(ix, req);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message(),
            "[groupby_geo_grid] field_name:l type:long is invalid, allow [geo_point]");
}

}  // namespace
}  // namespace ttlstore::tablestore
