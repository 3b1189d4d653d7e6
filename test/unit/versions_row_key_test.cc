// The `rows` family's key layout: byte order equals the service's row order, bounds with
// INF_MIN / INF_MAX, and the OTSInvalidPK checks.
#include "versions/row_key.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace ttlstore::versions {
namespace {

using model::CellValue;

std::vector<model::PrimaryKeyColumn> Schema() {
  return {{"gid", model::PkType::kInteger}, {"uid", model::PkType::kString}};
}

std::string Key(int64_t gid, std::string uid) {
  auto k = EncodeRowKey(7, Schema(), {{"gid", CellValue::Integer(gid)},
                                      {"uid", CellValue::String(std::move(uid))}});
  EXPECT_TRUE(k.ok());
  return k.ok() ? *k : "";
}

TEST(VersionsRowKey, ByteOrderIsRowOrder) {
  std::vector<std::string> ordered = {
      Key(INT64_MIN, ""), Key(-5, "b"), Key(-1, ""), Key(0, ""), Key(0, std::string("\0", 1)),
      Key(0, std::string("\0\0", 2)), Key(0, std::string("\0a", 2)), Key(0, "a"),
      Key(0, std::string("a\0", 2)), Key(0, "ab"), Key(0, "\xff"), Key(1, ""), Key(INT64_MAX, "z")};
  for (size_t i = 1; i < ordered.size(); ++i) EXPECT_LT(ordered[i - 1], ordered[i]) << i;
}

TEST(VersionsRowKey, DecodesWhatItEncodes) {
  std::string k = Key(-20013, std::string("u\0\xff", 3));
  std::vector<PkCell> pk;
  ASSERT_TRUE(DecodeRowKey(k, Schema(), &pk));
  ASSERT_EQ(pk.size(), 2u);
  EXPECT_EQ(pk[0].value, CellValue::Integer(-20013));
  EXPECT_EQ(pk[1].value, CellValue::String(std::string("u\0\xff", 3)));
  EXPECT_EQ(pk[1].name, "uid");
  EXPECT_FALSE(DecodeRowKey(k.substr(0, k.size() - 1), Schema(), &pk));
}

TEST(VersionsRowKey, InfBoundsEncloseEveryRowWithTheirPrefix) {
  auto min = EncodeRangeBound(7, Schema(), {{"gid", CellValue::Integer(3)},
                                            {"uid", CellValue::Marker(model::CellType::kInfMin)}});
  auto max = EncodeRangeBound(7, Schema(), {{"gid", CellValue::Integer(3)},
                                            {"uid", CellValue::Marker(model::CellType::kInfMax)}});
  ASSERT_TRUE(min.ok() && max.ok());
  for (const auto& k : {Key(3, ""), Key(3, "zzz"), Key(3, "\xff\xff\xff")}) {
    EXPECT_LE(*min, k);
    EXPECT_LT(k, *max);
  }
  EXPECT_LT(Key(2, "\xff"), *min);
  EXPECT_GE(Key(4, ""), *max);
  auto all_min = EncodeRangeBound(7, Schema(), {{"gid", CellValue::Marker(model::CellType::kInfMin)},
                                                {"uid", CellValue::Marker(model::CellType::kInfMin)}});
  auto all_max = EncodeRangeBound(7, Schema(), {{"gid", CellValue::Marker(model::CellType::kInfMax)},
                                                {"uid", CellValue::Marker(model::CellType::kInfMax)}});
  EXPECT_EQ(*all_min, TableRowsBegin(7));
  EXPECT_EQ(*all_max, TableRowsEnd(7));
}

TEST(VersionsRowKey, SchemaMismatchesAreInvalidPk) {
  auto count = EncodeRowKey(7, Schema(), {{"gid", CellValue::Integer(1)}});
  ASSERT_FALSE(count.ok());
  EXPECT_EQ(count.error().message(), "OTSInvalidPK:Validate PK size fail. Input: 1, Meta: 2.");
  auto name = EncodeRowKey(7, Schema(), {{"gid", CellValue::Integer(1)},
                                         {"PK2", CellValue::String("x")}});
  ASSERT_FALSE(name.ok());
  EXPECT_EQ(name.error().message(), "OTSInvalidPK:Validate PK name fail. Input: PK2, Meta: uid.");
  auto type = EncodeRowKey(7, Schema(), {{"gid", CellValue::String("1")},
                                         {"uid", CellValue::String("x")}});
  ASSERT_FALSE(type.ok());
  // The service's type names (the Java SDK's DataOperationTest, ParameterLegalityTest).
  EXPECT_EQ(type.error().message(),
            "OTSInvalidPK:Validate PK type fail. Input: VT_STRING, Meta: VT_INTEGER.");
  // Markers are only for range bounds.
  EXPECT_FALSE(EncodeRowKey(7, Schema(), {{"gid", CellValue::Marker(model::CellType::kInfMin)},
                                          {"uid", CellValue::String("x")}}).ok());
}

}  // namespace
}  // namespace ttlstore::versions
