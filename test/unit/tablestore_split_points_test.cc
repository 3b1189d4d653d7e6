// ComputeSplitPointsBySize through the front end on a real store: the limit, the bounds on the
// request, the shape of the answer (the SDK-level checks are in
// test/tablestore/splits_capacity.test.mjs).
#include <gtest/gtest.h>

#include <optional>
#include <tuple>
#include <vector>

#include "tablestore/plainbuffer.h"
#include "tablestore_env.h"

namespace ttlstore::tablestore {
namespace {

namespace pb = ::ttlstore::otspb;
using model::CellValue;

constexpr int64_t kMiB = 1024 * 1024;

class TablestoreSplitPoints : public ::testing::Test {
 protected:
  TablestoreSplitPoints()
      : env_(std::string("split_") +
             ::testing::UnitTest::GetInstance()->current_test_info()->name()) {}

  void SetUp() override {
    pb::CreateTableRequest req;
    req.mutable_table_meta()->set_table_name("t");
    auto* a = req.mutable_table_meta()->add_primary_key();
    a->set_name("a");
    a->set_type(pb::INTEGER);
    auto* b = req.mutable_table_meta()->add_primary_key();
    b->set_name("b");
    b->set_type(pb::STRING);
    req.mutable_reserved_throughput()->mutable_capacity_unit()->set_read(0);
    HttpResponse r = env_.Send("CreateTable", req);
    ASSERT_EQ(r.status, 200) << ErrorOf(r).second;
    // 100 values of `a`, two rows each, about 40 KB a row: 8 MB, cut by the smallest unit the
    // service takes (1 MiB).
    for (int a_value = 0; a_value < 100; ++a_value) {
      for (const char* b_value : {"x", "y"}) {
        PbRow row;
        row.primary_key.push_back(Cell("a", CellValue::Integer(a_value)));
        row.primary_key.push_back(Cell("b", CellValue::String(b_value)));
        row.attributes.push_back(Cell("v", CellValue::String(std::string(40 * 1024, 'p'))));
        pb::PutRowRequest put;
        put.set_table_name("t");
        put.set_row(EncodeRow(row));
        put.mutable_condition()->set_row_existence(pb::IGNORE);
        ASSERT_EQ(env_.Send("PutRow", put).status, 200);
      }
    }
  }

  static PbCell Cell(std::string name, CellValue v) {
    PbCell c;
    c.name = std::move(name);
    c.value = std::move(v);
    return c;
  }

  // The first-column values of the split points, or the error.
  std::pair<HttpResponse, std::vector<int64_t>> Split(int64_t size, std::optional<int64_t> unit,
                                                      std::optional<int32_t> limit) {
    pb::ComputeSplitPointsBySizeRequest req;
    req.set_table_name("t");
    req.set_split_size(size);
    if (unit) req.set_split_size_unit_in_byte(*unit);
    if (limit) req.set_split_point_limit(*limit);
    HttpResponse r = env_.Send("ComputeSplitPointsBySize", req);
    std::vector<int64_t> firsts;
    if (r.status != 200) return {r, firsts};
    pb::ComputeSplitPointsBySizeResponse resp;
    EXPECT_TRUE(resp.ParseFromString(r.body));
    EXPECT_EQ(resp.schema_size(), 2);
    EXPECT_EQ(resp.locations_size(), 1);
    EXPECT_EQ(resp.locations(0).repeat(), resp.split_points_size() + 1);
    for (const auto& bytes : resp.split_points()) {
      auto row = DecodeRow(bytes);
      EXPECT_TRUE(row.ok());
      if (!row.ok()) continue;
      EXPECT_EQ(row->primary_key.size(), 1u);
      EXPECT_EQ(row->primary_key[0].name, "a");
      firsts.push_back(row->primary_key[0].value->integer);
    }
    return {r, firsts};
  }

  TablestoreEnv env_;
};

TEST_F(TablestoreSplitPoints, RangesOfAboutTheSize) {
  auto [r, firsts] = Split(1, kMiB, std::nullopt);
  ASSERT_EQ(r.status, 200) << ErrorOf(r).second;
  // ~8 MB in ranges of 1 MiB or a little more.
  EXPECT_GE(firsts.size(), 6u);
  EXPECT_LE(firsts.size(), 8u);
  for (size_t i = 1; i < firsts.size(); ++i) EXPECT_LT(firsts[i - 1], firsts[i]);
}

TEST_F(TablestoreSplitPoints, TheLimitWidensTheRangesOverTheWholeTable) {
  auto [r, firsts] = Split(1, kMiB, 3);
  ASSERT_EQ(r.status, 200) << ErrorOf(r).second;
  ASSERT_EQ(firsts.size(), 3u);
  // Spread out: roughly at a quarter, a half and three quarters of the table.
  EXPECT_NEAR(firsts[0], 25, 5);
  EXPECT_NEAR(firsts[1], 50, 5);
  EXPECT_NEAR(firsts[2], 75, 5);
}

TEST_F(TablestoreSplitPoints, DefaultUnitIs100MbSoASmallTableHasNoPoint) {
  auto [r, firsts] = Split(1, std::nullopt, std::nullopt);
  ASSERT_EQ(r.status, 200) << ErrorOf(r).second;
  EXPECT_TRUE(firsts.empty());
  // A size that overflows when multiplied saturates: one range.
  auto [r2, firsts2] = Split(INT64_MAX, INT64_MAX, std::nullopt);
  ASSERT_EQ(r2.status, 200) << ErrorOf(r2).second;
  EXPECT_TRUE(firsts2.empty());
}

TEST_F(TablestoreSplitPoints, RefusesBadParameters) {
  using Args = std::tuple<int64_t, std::optional<int64_t>, std::optional<int32_t>>;
  const std::vector<Args> bad = {{0, std::nullopt, std::nullopt}, {-1, std::nullopt, std::nullopt},
                                 {1, 0, std::nullopt},            {1, -7, std::nullopt},
                                 {1, kMiB - 1, std::nullopt},     {1, std::nullopt, 0},
                                 {1, std::nullopt, -1}};
  for (const auto& [size, unit, limit] : bad) {
    auto [r, firsts] = Split(size, unit, limit);
    EXPECT_EQ(r.status, 400);
    EXPECT_EQ(ErrorOf(r).first, "OTSParameterInvalid");
  }
  pb::ComputeSplitPointsBySizeRequest req;
  req.set_table_name("nope");
  req.set_split_size(1);
  HttpResponse r = env_.Send("ComputeSplitPointsBySize", req);
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(ErrorOf(r), (std::pair<std::string, std::string>{"OTSObjectNotExist",
                                                             "Requested table does not exist."}));
}

}  // namespace
}  // namespace ttlstore::tablestore
