// Column conditions in RowOps::Write over a real Store with a fake clock: a condition sees the
// stored row's visible versions (max versions and TTL applied, none of a row that has aged out),
// a failed one writes nothing, and conditions are atomic with the write (optimistic locking from
// many threads loses no update).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <random>
#include <thread>

#include "ops/row_ops.h"
#include "ops/table_ops.h"

namespace ttlstore::ops {
namespace {

using model::CellValue;
using versions::Comparator;
using versions::Filter;

constexpr int64_t kNow = 1'700'000'000'000;

class RowConditionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("ttlstore_row_condition_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    storage::StoreOptions options;
    options.path = dir_.string();
    auto s = storage::Store::Open(options);
    ASSERT_TRUE(s.ok()) << s.error().message();
    store_ = std::move(*s);
    catalog_ = std::make_unique<TableCatalog>(*store_, clock_);
    ASSERT_TRUE(catalog_->Load().ok());
    rows_ = std::make_unique<RowOps>(*store_, clock_);
    model::TableDescriptor spec;
    spec.name = "conditions";
    spec.key.hash = {"id", model::ValueType::kS};
    spec.tablestore.emplace();
    spec.tablestore->primary_key = {{"id", model::PkType::kString}};
    spec.tablestore->options.max_versions = 3;
    spec.tablestore->options.time_to_live = 10;
    spec.tablestore->options.max_time_deviation = 1'000'000;
    ASSERT_TRUE(catalog_->Create(spec).ok());
  }
  void TearDown() override {
    rows_.reset();
    catalog_.reset();
    store_.reset();
    std::filesystem::remove_all(dir_);
  }

  TablePtr Table() { return catalog_->Find("conditions", Front::kTablestore); }
  static std::vector<versions::PkCell> Pk(const std::string& id) {
    return {{"id", CellValue::String(id)}};
  }
  Status Put(const std::string& id, const std::string& col, int64_t ts, int64_t v,
             std::shared_ptr<const Filter> cond = nullptr) {
    RowChange change;
    change.kind = RowChange::Kind::kUpdate;
    change.primary_key = Pk(id);
    change.cells.push_back({CellChange::Kind::kPut, col, CellValue::Integer(v), ts});
    change.column_condition = std::move(cond);
    return rows_->Write(*Table(), change);
  }
  // Every visible version of every column, as a read sees them.
  std::vector<versions::Column> Seen(const std::string& id) {
    versions::ReadSpec spec;
    spec.max_versions = 0;
    auto r = rows_->Get(*Table(), Pk(id), spec);
    EXPECT_TRUE(r.ok());
    if (!r.ok() || !r->has_value()) return {};
    return (*r)->columns;
  }

  static std::shared_ptr<const Filter> Cond(const std::string& col, Comparator cmp, int64_t v,
                                            bool pass_if_missing, bool latest_only) {
    auto f = std::make_shared<Filter>();
    f->column = col;
    f->comparator = cmp;
    f->value = CellValue::Integer(v);
    f->pass_if_missing = pass_if_missing;
    f->latest_version_only = latest_only;
    return f;
  }

  std::filesystem::path dir_;
  FakeClock clock_{kNow};
  std::unique_ptr<storage::Store> store_;
  std::unique_ptr<TableCatalog> catalog_;
  std::unique_ptr<RowOps> rows_;
};

TEST_F(RowConditionTest, ConditionsSeeTheStoredVisibleVersionsOnRandomHistories) {
  std::mt19937 rng(424242);
  int ok = 0, failed = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    std::string id = "r" + std::to_string(rng() % 8);
    std::string col = rng() % 2 ? "a" : "b";
    auto cond = Cond(rng() % 2 ? "a" : "b", static_cast<Comparator>(1 + rng() % 6),
                     int64_t(rng() % 4), rng() % 2, rng() % 2);
    // What the condition should say, from what a read shows now (the read path's visibility is
    // checked against a brute-force model in versions_filter_test.cc).
    std::vector<versions::Column> seen = Seen(id);
    bool expect = versions::RowPasses(*cond, Pk(id), seen);
    auto before = seen;
    Status s = Put(id, col, clock_.NowMs() - int64_t(rng() % 3000), int64_t(rng() % 4), cond);
    if (expect) {
      ASSERT_TRUE(s.ok()) << "iteration " << iter << ": " << s.error().message();
      ++ok;
    } else {
      ASSERT_FALSE(s.ok()) << "iteration " << iter;
      EXPECT_EQ(s.error().code(), ErrorCode::kConditionalCheckFailed);
      EXPECT_EQ(s.error().message(), kConditionCheckFailed);
      // Nothing was written.
      auto after = Seen(id);
      ASSERT_EQ(after.size(), before.size());
      for (size_t i = 0; i < after.size(); ++i) {
        ASSERT_EQ(after[i].versions.size(), before[i].versions.size());
      }
      ++failed;
    }
    clock_.Advance(int64_t(rng() % 1500));  // versions age out of the 10 s TTL as time passes
  }
  EXPECT_GT(ok, 500);
  EXPECT_GT(failed, 500);
}

TEST_F(RowConditionTest, AVersionHiddenByMaxVersionsOrTheTtlIsNotSeen) {
  // Four versions 1..4 with max versions 3: version 1 is hidden.
  for (int v = 1; v <= 4; ++v) ASSERT_TRUE(Put("h", "c", kNow - 5000 + v, v).ok());
  auto any_equal = [&](int64_t v) { return Cond("c", Comparator::kEqual, v, false, false); };
  EXPECT_FALSE(Put("h", "x", kNow, 0, any_equal(1)).ok());
  EXPECT_TRUE(Put("h", "x", kNow, 0, any_equal(2)).ok());
  // Six seconds on, every version of "c" is past the 10 s TTL; "x" (written at kNow) is not.
  clock_.Advance(6000);
  EXPECT_FALSE(Put("h", "y", clock_.NowMs(), 0, any_equal(4)).ok());
  EXPECT_TRUE(Put("h", "y", clock_.NowMs(), 0, Cond("c", Comparator::kEqual, 4, true, true)).ok());
  // Once the whole row has aged out, it is absent: only missing columns remain.
  clock_.Advance(20'000);
  EXPECT_FALSE(
      Put("h", "z", clock_.NowMs(), 0, Cond("x", Comparator::kEqual, 0, false, true)).ok());
  EXPECT_TRUE(
      Put("h", "z", clock_.NowMs(), 0, Cond("x", Comparator::kNotEqual, 0, true, true)).ok());
}

TEST_F(RowConditionTest, OptimisticIncrementsFromManyThreadsLoseNothing) {
  // The SDK's DoTxn test: read v, write v + 1 if the column still equals v.
  ASSERT_TRUE(Put("n", "v", kNow, 0).ok());
  std::atomic<int> succeeded{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 200; ++i) {
        versions::ReadSpec spec;
        auto r = rows_->Get(*Table(), Pk("n"), spec);
        if (!r.ok() || !r->has_value()) continue;
        int64_t v = (*r)->columns.at(0).versions.at(0).value.integer;
        if (Put("n", "v", kNow + v + 1, v + 1, Cond("v", Comparator::kEqual, v, false, true))
                .ok()) {
          ++succeeded;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  auto seen = Seen("n");
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].versions.front().value.integer, succeeded.load());
  EXPECT_GT(succeeded.load(), 0);
}

}  // namespace
}  // namespace ttlstore::ops
