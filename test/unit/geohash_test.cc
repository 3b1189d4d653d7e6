// search/geohash.h: the standard geohash (published examples), the cells it names, and where a
// point on a cell's edge goes.
#include "search/geohash.h"

#include <gtest/gtest.h>

namespace ttlstore::search {
namespace {

TEST(GeoHash, PublishedExamples) {
  EXPECT_EQ(GeoHash({42.6, -5.6}, 5), "ezs42");  // Wikipedia's "Geohash" article
  EXPECT_EQ(GeoHash({57.64911, 10.40744}, 11), "u4pruydqqvj");
  EXPECT_EQ(GeoHash({0, 0}, 1), "s");
  EXPECT_EQ(GeoHash({-90, -180}, 12), "000000000000");
  EXPECT_EQ(GeoHash({90, 180}, 3), "zzz");  // the world's top and right edges stay in the last cell
}

TEST(GeoHash, BoundsContainThePointAndHalveByAxis) {
  GeoHashCell c;
  ASSERT_TRUE(GeoHashBounds("ezs42", &c));
  EXPECT_LE(c.lat_lo, 42.6);
  EXPECT_GT(c.lat_hi, 42.6);
  EXPECT_LE(c.lon_lo, -5.6);
  EXPECT_GT(c.lon_hi, -5.6);
  // Five characters: 13 longitude bits and 12 latitude bits.
  EXPECT_DOUBLE_EQ(c.lon_hi - c.lon_lo, 360.0 / (1 << 13));
  EXPECT_DOUBLE_EQ(c.lat_hi - c.lat_lo, 180.0 / (1 << 12));
  ASSERT_TRUE(GeoHashBounds("", &c));
  EXPECT_EQ(c.lat_lo, -90);
  EXPECT_EQ(c.lon_hi, 180);
  EXPECT_FALSE(GeoHashBounds("ab", &c));  // 'a' is not a geohash digit
}

TEST(GeoHash, APointOnALowerEdgeIsInTheUpperCell) {
  GeoHashCell s;
  ASSERT_TRUE(GeoHashBounds("s", &s));  // [0, 45) x [0, 45)
  EXPECT_EQ(s.lat_lo, 0);
  EXPECT_EQ(s.lon_lo, 0);
  EXPECT_EQ(GeoHash({0, 0}, 1), "s");
  EXPECT_EQ(GeoHash({45, 45}, 1), "v");  // s's upper-right corner: v is [45, 90) x [45, 90)
}

}  // namespace
}  // namespace ttlstore::search
