#include "check/consistency.h"

#include <atomic>
#include <thread>

#include "model/expiry.h"
#include "ops/table_ops.h"
#include "ops_test_util.h"
#include "storage/key_codec.h"
#include "ttl/backfill.h"

namespace ttlstore::check {
namespace {

constexpr int64_t kNowMs = 1795305600000;  // 2026-11-22T00:00:00Z

class ConsistencyTest : public ops::OpsTest {
 protected:
  void SetUp() override {
    OpsTest::SetUp();
    catalog_ = std::make_unique<ops::TableCatalog>(*store_, clock_);
    model::TableDescriptor spec;
    spec.name = "sessions";
    spec.key.hash = {"pk", model::ValueType::kS};
    spec.attribute_definitions = {spec.key.hash};
    ASSERT_TRUE(catalog_->Create(spec).ok());
    auto t = catalog_->SetTimeToLive("sessions", true, "expires");
    ASSERT_TRUE(t.ok());
    ASSERT_TRUE(ttl::ExpiryBackfiller(*catalog_, *ops_).RunNow((*t)->id).ok());
    sessions_ = *catalog_->Find("sessions");
  }
  void PutSession(const std::string& pk, int64_t expires_s) {
    model::Item item{{"pk", S(pk)}, {"expires", N(std::to_string(expires_s))}};
    ASSERT_TRUE(ops_->Put(sessions_, item, nullptr).ok());
  }
  CheckReport Check() {
    auto r = CheckStore(*store_, clock_.NowMs());
    EXPECT_TRUE(r.ok());
    return r.ok() ? *r : CheckReport{};
  }

  FakeClock clock_{kNowMs};
  std::unique_ptr<ops::TableCatalog> catalog_;
  model::TableDescriptor sessions_;
};

TEST_F(ConsistencyTest, AStoreWrittenThroughItemOpsIsWhole) {
  PutSession("a", kNowMs / 1000 + 60);
  PutSession("b", kNowMs / 1000 + 120);
  PutSession("b", kNowMs / 1000 + 180);  // moves its entry
  ASSERT_TRUE(ops_->Delete(sessions_, {{"pk", S("a")}}, nullptr).ok());
  CheckReport r = Check();
  EXPECT_TRUE(r.ok()) << (r.problems.empty() ? "" : r.problems[0]);
  EXPECT_EQ(r.tables, 1u);
  EXPECT_EQ(r.items, 1u);
  EXPECT_EQ(r.expiry_entries, 1u);
  EXPECT_EQ(r.stale_expiry_entries, 0u);
}

TEST_F(ConsistencyTest, AnItemWithoutItsExpiryEntryIsAProblem) {
  PutSession("a", kNowMs / 1000 + 60);
  storage::WriteBatch batch(*store_);
  std::string key = storage::ItemKey(sessions_.id, S("a"), nullptr);
  batch.DeleteExpiry((kNowMs / 1000 + 60) * 1000, key);
  ASSERT_TRUE(store_->Write(batch).ok());
  CheckReport r = Check();
  ASSERT_EQ(r.problem_count, 1u);
  EXPECT_NE(r.problems[0].find("no expiry-index entry"), std::string::npos) << r.problems[0];
}

TEST_F(ConsistencyTest, ItemsTooOldToExpireNeedNoEntry) {
  constexpr int64_t kSixYearsS = 6LL * 365 * 24 * 3600;
  PutSession("ancient", kNowMs / 1000 - kSixYearsS);
  storage::WriteBatch batch(*store_);  // what the sweeper does with its entry (D4)
  batch.DeleteExpiry((kNowMs / 1000 - kSixYearsS) * 1000,
                     storage::ItemKey(sessions_.id, S("ancient"), nullptr));
  ASSERT_TRUE(store_->Write(batch).ok());
  CheckReport r = Check();
  EXPECT_TRUE(r.ok()) << (r.problems.empty() ? "" : r.problems[0]);
}

TEST_F(ConsistencyTest, StatsThatDisagreeWithTheItemsAreAProblem) {
  PutSession("a", kNowMs / 1000 + 60);
  storage::WriteBatch batch(*store_);
  batch.AddStats(sessions_.id, 1, 0);
  ASSERT_TRUE(store_->Write(batch).ok());
  CheckReport r = Check();
  ASSERT_EQ(r.problem_count, 1u);
  EXPECT_NE(r.problems[0].find("stats say 2 items"), std::string::npos) << r.problems[0];
}

TEST_F(ConsistencyTest, ItemsOfAMissingTableAreOrphans) {
  storage::WriteBatch batch(*store_);
  batch.PutItem(storage::ItemKey(999, S("x"), nullptr), "");
  ASSERT_TRUE(store_->Write(batch).ok());
  CheckReport r = Check();
  ASSERT_EQ(r.problem_count, 1u);
  EXPECT_NE(r.problems[0].find("table id 999"), std::string::npos) << r.problems[0];
}

TEST_F(ConsistencyTest, EntriesLeftWhenTtlWasTurnedOffAreOnlyCountedAsStale) {
  PutSession("a", kNowMs / 1000 + 60);
  auto off = catalog_->SetTimeToLive("sessions", false, "expires");
  ASSERT_TRUE(off.ok());
  CheckReport r = Check();
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.expiry_entries, 1u);
  EXPECT_EQ(r.stale_expiry_entries, 1u);
}

// A write that looked the table up before DeleteTable and commits after it must not leave an
// orphan: Delete drops the data only once no request holds the table.
TEST_F(ConsistencyTest, DeleteTableWaitsForRequestsStillHoldingTheTable) {
  ops::TablePtr in_flight = catalog_->Find("sessions");
  ASSERT_TRUE(in_flight);
  std::atomic<bool> deleted{false};
  std::thread deleter([&] {
    ASSERT_TRUE(catalog_->Delete("sessions").ok());
    deleted = true;
  });
  while (catalog_->Find("sessions")) std::this_thread::yield();  // gone from lookups at once
  auto again = catalog_->Create(sessions_);
  ASSERT_FALSE(again.ok());  // the name stays taken until the drop
  EXPECT_EQ(again.error().code(), ErrorCode::kResourceInUse);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(deleted.load());
  // The in-flight request's write commits now, then the request lets go of the table.
  ASSERT_TRUE(ops_->Put(*in_flight, {{"pk", S("late")}}, nullptr).ok());
  in_flight.reset();
  deleter.join();
  EXPECT_TRUE(deleted.load());
  CheckReport r = Check();
  EXPECT_TRUE(r.ok()) << (r.problems.empty() ? "" : r.problems[0]);
  EXPECT_EQ(r.items, 0u);
}

}  // namespace
}  // namespace ttlstore::check
