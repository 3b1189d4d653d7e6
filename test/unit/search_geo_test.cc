// The geometry of GeoPoint fields (search/geo.h, search/geo_cells.h): the "lat,lon" parser, the
// grid, distance bounds of a rectangle against sampled points, and coverings checked against a
// brute-force test of random points (a point in a region lies in exactly one covering cell; a
// point in a "within" cell is in the region; a point outside every cell is outside the region).
// Also the slot forms of GeoPoint and Nested fields (search/geo_field.h, search/nested_field.h)
// and the bounded JSON reader.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>

#include "search/geo.h"
#include "search/geo_cells.h"
#include "search/geo_field.h"
#include "search/json_doc.h"
#include "search/nested_field.h"

namespace ttlstore::search {
namespace {

TEST(SearchGeo, ParsesPoints) {
  auto p = ParseGeoPoint("35.8,-45.91");
  ASSERT_TRUE(p);
  EXPECT_DOUBLE_EQ(p->lat, 35.8);
  EXPECT_DOUBLE_EQ(p->lon, -45.91);
  EXPECT_TRUE(ParseGeoPoint(" 30 , 120 "));
  EXPECT_TRUE(ParseGeoPoint("-90,-180"));
  EXPECT_TRUE(ParseGeoPoint("90,180"));
  EXPECT_TRUE(ParseGeoPoint("1e1,+2.5"));
  for (const char* bad : {"", "30", "30,", ",120", "91,0", "0,180.1", "a,b", "30,120,1", "1e400,0",
                          "nan,0", "0x10,0", "30;120", "- 1,2", "1.,", "."}) {
    EXPECT_FALSE(ParseGeoPoint(bad)) << bad;
  }
}

TEST(SearchGeo, GridAndDistances) {
  GeoPoint p{30.123456, 120.654321};
  GeoPoint q = DecodeGeo(EncodeGeo(p));
  EXPECT_LE(q.lat, p.lat);
  EXPECT_GT(q.lat, p.lat - kLatStep);
  EXPECT_LE(q.lon, p.lon);
  EXPECT_GT(q.lon, p.lon - kLonStep);
  EXPECT_EQ(EncodeLat(90), INT32_MAX);
  EXPECT_EQ(EncodeLon(-180), INT32_MIN);
  // One degree of latitude: pi R / 180.
  EXPECT_NEAR(ArcDistance({0, 0}, {1, 0}), kEarthRadiusM * M_PI / 180, 1e-6);
  EXPECT_NEAR(ArcDistance({0, 179.5}, {0, -179.5}), ArcDistance({0, 0}, {0, 1}), 1e-6);
  EXPECT_NEAR(PlaneDistance({0, 179.5}, {0, -179.5}), ArcDistance({0, 0}, {0, 1}), 1e-3);
}

TEST(SearchGeo, ArcDistanceBoundsHoldForSampledPoints) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> lat(-89, 89), lon(-179, 179), span(0.001, 40);
  for (int i = 0; i < 300; ++i) {
    GeoPoint c{lat(rng), lon(rng)};
    double lat0 = lat(rng), lon0 = lon(rng);
    double lat1 = std::min(90.0, lat0 + span(rng)), lon1 = std::min(180.0, lon0 + span(rng));
    double lo, hi;
    ArcDistanceBounds(c, lat0, lat1, lon0, lon1, &lo, &hi);
    std::uniform_real_distribution<double> a(lat0, lat1), b(lon0, lon1);
    for (int k = 0; k < 200; ++k) {
      double d = ArcDistance(c, {a(rng), b(rng)});
      EXPECT_GE(d, lo - 1e-6);
      EXPECT_LE(d, hi + 1e-6);
    }
  }
}

// Every random point near the region: in the region => in exactly one cell of the covering; in
// a within-cell => in the region.
void CheckCovering(const GeoRegion& region, GeoPoint around, double spread, uint64_t seed) {
  GeoCovering cover = CoverRegion(region);
  EXPECT_LE(cover.within.size() + cover.crossing.size(), kGeoMaxCoverCells);
  std::set<std::string> within, crossing;
  for (const auto& c : cover.within) within.insert(GeoCellTerm("0", c));
  for (const auto& c : cover.crossing) crossing.insert(GeoCellTerm("0", c));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> d(-spread, spread);
  int inside = 0;
  for (int k = 0; k < 20000; ++k) {
    double lat = std::clamp(around.lat + d(rng), -90.0, 90.0);
    double lon = around.lon + d(rng);
    if (lon > 180) lon -= 360;
    if (lon < -180) lon += 360;
    GeoCode code = EncodeGeo({lat, lon});
    int in_within = 0, in_crossing = 0;
    for (const auto& t : GeoPointTerms("0", code)) {
      in_within += int(within.count(t));
      in_crossing += int(crossing.count(t));
    }
    bool in = region.Contains(code);
    inside += in;
    if (in) {
      EXPECT_EQ(in_within + in_crossing, 1) << lat << "," << lon;
    }
    if (in_within) {
      EXPECT_TRUE(in) << lat << "," << lon;
    }
    EXPECT_LE(in_within + in_crossing, 1);
  }
  EXPECT_GT(inside, 100);
}

TEST(SearchGeo, CoveringsAreExact) {
  CheckCovering(*MakeGeoCircle({30, 120}, 50000), {30, 120}, 1, 1);
  CheckCovering(*MakeGeoCircle({30, 120}, 300), {30, 120}, 0.005, 2);
  CheckCovering(*MakeGeoCircle({0, 179.9}, 60000), {0, 179.9}, 1, 3);
  CheckCovering(*MakeGeoCircle({89.9, 0}, 30000), {89.9, 0}, 1, 4);
  CheckCovering(*MakeGeoBox({30.5, 119.5}, {29.5, 120.5}), {30, 120}, 1, 5);
  CheckCovering(*MakeGeoBox({1, 179.5}, {-1, -179.5}), {0, 180}, 1.5, 6);
  CheckCovering(*MakeGeoPolygon({{29.2, 119.2}, {30.8, 119.5}, {29.5, 120.8}}), {30, 120}, 1, 7);
  CheckCovering(*MakeGeoPolygon({{29.1, 119.1}, {30.9, 119.1}, {30.9, 119.6}, {29.6, 119.6},
                                 {29.6, 120.9}, {29.1, 120.9}}),
                {30, 120}, 1, 8);
}

TEST(SearchGeo, BoxIsExactOnTheGrid) {
  auto box = MakeGeoBox({30.2, 120}, {30.1, 120.1});
  EXPECT_TRUE(box->Contains(EncodeGeo({30.15, 120.05})));
  EXPECT_FALSE(box->Contains(EncodeGeo({30.2000001, 120.05})));
  // A point written at the bottom edge is kept just below it (30.1 is not on the grid), as the
  // service keeps it (the Python SDK's search_index_test).
  EXPECT_LT(DecodeGeo(EncodeGeo({30.1, 120.05})).lat, 30.1);
  EXPECT_FALSE(box->Contains(EncodeGeo({30.1, 120.05})));
}

TEST(SearchGeo, GeoSlotRoundTrips) {
  model::SearchField f;
  f.type = model::SearchFieldType::kGeoPoint;
  f.is_array = true;
  model::CellValue v;
  v.type = model::CellType::kString;
  v.bytes = R"(["1,2", "bad", "-3.5,170", 5])";
  auto codes = GeoValues(f, v);
  ASSERT_EQ(codes.size(), 2u);
  EXPECT_EQ(DecodeGeoSlot(EncodeGeoSlot(codes)), codes);
  EXPECT_TRUE(DecodeGeoSlot("\x01\x02").empty());
  f.is_array = false;
  v.bytes = "1,2";
  EXPECT_EQ(GeoValues(f, v).size(), 1u);
  v.bytes = "[\"1,2\"]";
  EXPECT_TRUE(GeoValues(f, v).empty());
}

TEST(SearchGeo, JsonIsBounded) {
  JsonValue v;
  EXPECT_TRUE(ParseJson(R"([{"a": 1, "b": "x", "c": [true, null, 2.5]}])", &v));
  ASSERT_EQ(v.type, JsonValue::Type::kArray);
  EXPECT_EQ(v.items[0].Find("a")->integer, 1);
  std::string deep(100000, '[');
  EXPECT_FALSE(ParseJson(deep, &v));
  EXPECT_FALSE(ParseJson("[1,]", &v));
  EXPECT_FALSE(ParseJson("{\"a\":1} x", &v));
}

TEST(SearchGeo, NestedSlotRoundTrips) {
  model::SearchField n;
  n.name = "n";
  n.type = model::SearchFieldType::kNested;
  for (auto [name, type] : {std::pair{"k", model::SearchFieldType::kKeyword},
                             std::pair{"l", model::SearchFieldType::kLong},
                             std::pair{"g", model::SearchFieldType::kGeoPoint}}) {
    model::SearchField sub;
    sub.name = name;
    sub.type = type;
    n.sub_fields.push_back(std::move(sub));
  }
  model::CellValue v;
  v.type = model::CellType::kString;
  v.bytes = R"([{"k": "a", "l": 3, "g": "1,2"}, null, {"k": 5, "l": 4, "x": 1}])";
  std::vector<NestedDoc> docs;
  ASSERT_TRUE(ParseNested(n, v, &docs));
  ASSERT_EQ(docs.size(), 2u);
  EXPECT_EQ(docs[1].offset, 2);
  std::vector<NestedDoc> back;
  ASSERT_TRUE(DecodeNestedSlot(n, EncodeNestedSlot(n, docs), &back));
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].fields[0].values[0].bytes, "a");
  EXPECT_EQ(back[0].fields[2].points.size(), 1u);
  EXPECT_TRUE(back[1].fields[0].empty());  // 5 is not a Keyword
  EXPECT_EQ(back[1].fields[1].values[0].integer, 4);
  // Truncated slot bytes never read past their end (the sanitizer build would see it).
  std::string slot = EncodeNestedSlot(n, docs);
  for (size_t cut = 0; cut < slot.size(); ++cut) {
    std::vector<NestedDoc> partial;
    DecodeNestedSlot(n, slot.substr(0, cut), &partial);
  }
  v.bytes = "not json";
  EXPECT_FALSE(ParseNested(n, v, &docs));
}

}  // namespace
}  // namespace ttlstore::search
