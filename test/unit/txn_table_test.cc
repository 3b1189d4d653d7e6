// TxnTable: the bookkeeping of local transactions under a fake clock: one transaction per
// partition key, one request at a time per transaction, the lifetime and idle timeouts, and the
// count of outside writers a Start waits for (ops/txn_table.h).
#include "ops/txn_table.h"

#include <gtest/gtest.h>

#include "ops/txn_errors.h"

namespace ttlstore::ops {
namespace {

constexpr int64_t kT0 = 1'700'000'000'000;

versions::PkCell Cell(const std::string& v) { return {"pk", model::CellValue::String(v)}; }

std::string IdOf(int n) {
  std::string id = std::to_string(n);
  return std::string(32 - id.size(), '0') + id;
}

bool HasPrefix(const Error& e, std::string_view prefix) { return e.message().starts_with(prefix); }

TxnLimits Limits(int64_t lifetime_ms, int64_t idle_ms, size_t max_open = 1000) {
  TxnLimits l;
  l.lifetime_ms = lifetime_ms;
  l.idle_ms = idle_ms;
  l.max_open = max_open;
  return l;
}

TEST(TxnTable, WellFormedIdsAre32LowercaseHexDigits) {
  EXPECT_TRUE(WellFormedTxnId("0123456789abcdef0123456789abcdef"));
  EXPECT_FALSE(WellFormedTxnId(""));
  EXPECT_FALSE(WellFormedTxnId("fake_transaction_id"));
  EXPECT_FALSE(WellFormedTxnId("0123456789ABCDEF0123456789abcdef"));
  EXPECT_FALSE(WellFormedTxnId("0123456789abcdef0123456789abcde"));
}

TEST(TxnTable, OneTransactionPerPartitionKey) {
  TxnTable t(Limits(60000, 60000));
  ASSERT_TRUE(t.Start(IdOf(1), 7, "t", "P1", Cell("a"), kT0).ok());
  auto second = t.Start(IdOf(2), 7, "t", "P1", Cell("a"), kT0);
  ASSERT_FALSE(second.ok());
  EXPECT_TRUE(HasPrefix(second.error(), kRowOperationConflictPrefix));
  EXPECT_EQ(second.error().message(),
            std::string(kRowOperationConflictPrefix) + kRowOperationConflictMessage);
  // Another partition key is free.
  EXPECT_TRUE(t.Start(IdOf(3), 7, "t", "P2", Cell("b"), kT0).ok());
  EXPECT_TRUE(t.Locked("P1", kT0));
  EXPECT_FALSE(t.Locked("P3", kT0));
  EXPECT_EQ(t.open(), 2u);
}

TEST(TxnTable, OneRequestAtATime) {
  TxnTable t(Limits(60000, 60000));
  ASSERT_TRUE(t.Start(IdOf(1), 7, "t", "P1", Cell("a"), kT0).ok());
  auto held = t.Acquire(IdOf(1), kT0);
  ASSERT_TRUE(held.ok());
  auto busy = t.Acquire(IdOf(1), kT0);
  ASSERT_FALSE(busy.ok());
  EXPECT_TRUE(HasPrefix(busy.error(), kSessionBusyPrefix));
  t.Release(*held, kT0 + 5);
  EXPECT_TRUE(t.Acquire(IdOf(1), kT0 + 5).ok());
}

TEST(TxnTable, UnknownAndEndedIdsDoNotExist) {
  TxnTable t(Limits(60000, 60000));
  auto unknown = t.Acquire(IdOf(9), kT0);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().message(),
            std::string(kSessionNotExistPrefix) + kSessionNotExistMessage);
  ASSERT_TRUE(t.Start(IdOf(1), 7, "t", "P1", Cell("a"), kT0).ok());
  auto held = t.Acquire(IdOf(1), kT0);
  ASSERT_TRUE(held.ok());
  t.Erase(*held);  // committed or aborted
  EXPECT_FALSE(t.Locked("P1", kT0));
  auto again = t.Acquire(IdOf(1), kT0);
  ASSERT_FALSE(again.ok());
  EXPECT_TRUE(HasPrefix(again.error(), kSessionNotExistPrefix));
  // The partition key can be taken again.
  EXPECT_TRUE(t.Start(IdOf(2), 7, "t", "P1", Cell("a"), kT0).ok());
}

TEST(TxnTable, ExpiresAtItsLifetimeEvenWhenBusyWithRequests) {
  TxnTable t(Limits(60000, 20000));
  ASSERT_TRUE(t.Start(IdOf(1), 7, "t", "P1", Cell("a"), kT0).ok());
  // Used every 15 s: never idle for 20 s, but 60 s after its start it is gone.
  for (int64_t at = kT0 + 15000; at < kT0 + 60000; at += 15000) {
    auto held = t.Acquire(IdOf(1), at);
    ASSERT_TRUE(held.ok()) << at - kT0;
    t.Release(*held, at);
  }
  EXPECT_TRUE(t.Locked("P1", kT0 + 59999));
  auto late = t.Acquire(IdOf(1), kT0 + 60000);
  ASSERT_FALSE(late.ok());
  EXPECT_TRUE(HasPrefix(late.error(), kSessionNotExistPrefix));
  EXPECT_FALSE(t.Locked("P1", kT0 + 60000));
  EXPECT_EQ(t.expired(), 1u);
}

TEST(TxnTable, ExpiresWhenIdle) {
  TxnTable t(Limits(60000, 20000));
  ASSERT_TRUE(t.Start(IdOf(1), 7, "t", "P1", Cell("a"), kT0).ok());
  auto held = t.Acquire(IdOf(1), kT0 + 10000);
  ASSERT_TRUE(held.ok());
  t.Release(*held, kT0 + 10000);
  EXPECT_TRUE(t.Locked("P1", kT0 + 29999));
  // 20 s after the last request ended, the partition key is free again.
  EXPECT_FALSE(t.Locked("P1", kT0 + 30000));
  EXPECT_EQ(t.open(), 0u);
}

TEST(TxnTable, ReapDropsExpiredTransactionsButNotHeldOnes) {
  TxnTable t(Limits(1000, 1000));
  ASSERT_TRUE(t.Start(IdOf(1), 7, "t", "P1", Cell("a"), kT0).ok());
  ASSERT_TRUE(t.Start(IdOf(2), 7, "t", "P2", Cell("b"), kT0).ok());
  ASSERT_TRUE(t.Start(IdOf(3), 7, "t", "P3", Cell("c"), kT0 + 500).ok());
  auto held = t.Acquire(IdOf(2), kT0 + 900);
  ASSERT_TRUE(held.ok());
  EXPECT_EQ(t.Reap(kT0 + 999), 0u);
  // 1: expired and free; 2: expired but a request holds it; 3: not yet.
  EXPECT_EQ(t.Reap(kT0 + 1000), 1u);
  EXPECT_EQ(t.open(), 2u);
  // The request ends after the lifetime: the next reap takes it.
  t.Release(*held, kT0 + 1200);
  EXPECT_EQ(t.Reap(kT0 + 1200), 1u);
  EXPECT_EQ(t.Reap(kT0 + 1500), 1u);
  EXPECT_EQ(t.open(), 0u);
  EXPECT_EQ(t.expired(), 3u);
}

TEST(TxnTable, StartRefusedPastMaxOpenUntilOneExpires) {
  TxnTable t(Limits(1000, 1000, 2));
  ASSERT_TRUE(t.Start(IdOf(1), 7, "t", "P1", Cell("a"), kT0).ok());
  ASSERT_TRUE(t.Start(IdOf(2), 7, "t", "P2", Cell("b"), kT0).ok());
  auto third = t.Start(IdOf(3), 7, "t", "P3", Cell("c"), kT0);
  ASSERT_FALSE(third.ok());
  EXPECT_EQ(third.error().code(), ErrorCode::kLimitExceeded);
  EXPECT_TRUE(t.Start(IdOf(3), 7, "t", "P3", Cell("c"), kT0 + 1000).ok());
}

TEST(TxnTable, ExpiredTransactionReleasesItsPartitionToANewStart) {
  TxnTable t(Limits(1000, 1000));
  ASSERT_TRUE(t.Start(IdOf(1), 7, "t", "P1", Cell("a"), kT0).ok());
  EXPECT_FALSE(t.Start(IdOf(2), 7, "t", "P1", Cell("a"), kT0 + 999).ok());
  EXPECT_TRUE(t.Start(IdOf(2), 7, "t", "P1", Cell("a"), kT0 + 1000).ok());
  EXPECT_FALSE(t.Acquire(IdOf(1), kT0 + 1000).ok());
  EXPECT_TRUE(t.Acquire(IdOf(2), kT0 + 1000).ok());
}

TEST(TxnTable, CountsOutsideWritersPerPartition) {
  TxnTable t(Limits(1000, 1000));
  t.AddOutsideWriter("P1");
  t.AddOutsideWriter("P1");
  t.AddOutsideWriter("P2");
  EXPECT_EQ(t.OutsideWriters("P1"), 2u);
  t.RemoveOutsideWriter("P1");
  t.RemoveOutsideWriter("P1");
  EXPECT_EQ(t.OutsideWriters("P1"), 0u);
  EXPECT_EQ(t.OutsideWriters("P2"), 1u);
}

}  // namespace
}  // namespace ttlstore::ops
