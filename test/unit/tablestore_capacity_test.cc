// The capacity units operations report (tablestore/capacity_units.h): row sizes as the service
// counts them and the 4 KB rounding.
#include "tablestore/capacity_units.h"

#include <gtest/gtest.h>

namespace ttlstore::tablestore {
namespace {

PbCell Cell(std::string name, model::CellValue v) {
  PbCell c;
  c.name = std::move(name);
  c.value = std::move(v);
  return c;
}

TEST(CapacityUnits, RoundsUpPer4KbAndCostsAtLeastOne) {
  EXPECT_EQ(CapacityUnitsOf(0), 1);
  EXPECT_EQ(CapacityUnitsOf(1), 1);
  EXPECT_EQ(CapacityUnitsOf(4096), 1);
  EXPECT_EQ(CapacityUnitsOf(4097), 2);
  // The service's example: 7.6 KB written is 2 units.
  EXPECT_EQ(CapacityUnitsOf(7782), 2);
  EXPECT_EQ(CapacityUnitsOf(size_t{1} << 40), 1 << 28);
  EXPECT_EQ(CapacityUnitsOf(size_t{1} << 50), INT32_MAX);  // saturates
}

// The vendor's storage-usage example: primary key ID (integer) = 1; Name 'zhangsan', Length
// 20, Comments two versions of 100 and 150 bytes.
PbRow VendorExampleRow() {
  PbRow row;
  row.primary_key.push_back(Cell("ID", model::CellValue::Integer(1)));
  row.attributes.push_back(Cell("Name", model::CellValue::String("zhangsan")));
  row.attributes.push_back(Cell("Length", model::CellValue::Integer(20)));
  row.attributes.push_back(Cell("Comments", model::CellValue::String(std::string(150, 'x'))));
  row.attributes.push_back(Cell("Comments", model::CellValue::String(std::string(100, 'x'))));
  return row;
}

TEST(CapacityUnits, RowSizeMatchesTheVendorsExample) {
  PbRow row = VendorExampleRow();
  EXPECT_EQ(PrimaryKeyDataSize(row), 10u);
  // MaxVersions 2, TTL 30 days: 10 + 20 + 22 + 282 = 334 bytes.
  EXPECT_EQ(RowCapacityDataSize(row, true), 334u);
  // MaxVersions 1, TTL -1 (the newest version only): 10 + 12 + 14 + 158 = 194 bytes.
  row.attributes.pop_back();
  EXPECT_EQ(RowCapacityDataSize(row, false), 194u);
}

TEST(CapacityUnits, VersionBytesFollowTheTableOptions) {
  model::VersionOptions o;
  EXPECT_FALSE(CountsVersionBytes(o));
  o.max_versions = 2;
  EXPECT_TRUE(CountsVersionBytes(o));
  o.max_versions = 1;
  o.time_to_live = 86400;
  EXPECT_TRUE(CountsVersionBytes(o));
}

TEST(CapacityUnits, ValueSizesByType) {
  PbRow row;
  row.primary_key.push_back(Cell("k", model::CellValue::String("")));  // empty string: 0
  row.attributes.push_back(Cell("d", model::CellValue::Double(1.5)));    // 1 + 8
  row.attributes.push_back(Cell("b", model::CellValue::Boolean(true)));  // 1 + 1
  row.attributes.push_back(Cell("x", model::CellValue::Blob("abc")));    // 1 + 3
  EXPECT_EQ(RowCapacityDataSize(row, false), 1u + 9 + 2 + 4);
}

TEST(CapacityUnits, DeletedCellsCountTheirNameOnly) {
  PbRow row;
  row.primary_key.push_back(Cell("pk", model::CellValue::Integer(7)));  // 10
  PbCell del;
  del.name = "gone";
  del.op = CellOp::kDeleteAllVersions;
  row.attributes.push_back(del);  // 4
  PbCell one = Cell("old", model::CellValue::Integer(0));
  one.op = CellOp::kDeleteOneVersion;
  one.value.reset();
  one.timestamp = 5;
  row.attributes.push_back(one);  // 3
  EXPECT_EQ(RowCapacityDataSize(row, true), 17u);
}

TEST(CapacityUnits, ReadsAndWrites) {
  PbRow row;
  row.primary_key.push_back(Cell("pk", model::CellValue::Integer(7)));            // 10
  row.attributes.push_back(Cell("v", model::CellValue::String(std::string(5000, 'a'))));  // 5001
  EXPECT_EQ(ReadConsumed(&row, false), (Consumed{2, 0}));
  EXPECT_EQ(ReadConsumed(nullptr, false), (Consumed{1, 0}));
  EXPECT_EQ(RangeConsumed({}, false), (Consumed{1, 0}));
  EXPECT_EQ(RangeConsumed({row, row}, false), (Consumed{3, 0}));  // 10022 bytes
  EXPECT_EQ(WriteConsumed(row, false, false), (Consumed{0, 2}));
  EXPECT_EQ(WriteConsumed(row, false, true), (Consumed{1, 2}));
  EXPECT_EQ(kFailedConditionConsumed, (Consumed{1, 1}));
}

}  // namespace
}  // namespace ttlstore::tablestore
