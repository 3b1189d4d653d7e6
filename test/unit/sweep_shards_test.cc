// The TTL sweeper's shards (ttl/sweep_shards.h) and the leases that share them out
// (LeaseKeeper::Share), on every backend (store_fixture.h). On PostgreSQL each "process" has its
// own Store, catalog, keeper and sweeper on one database, as separate ttlstore processes would:
// the shards split evenly, a wave is deleted by all of them together and each item once, the
// shards of a process that stops renewing pass to the others, and an entry another process
// writes behind a sweeper's cursor is still found. On RocksDB one process holds every shard.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "common/clock.h"
#include "ops/item_ops.h"
#include "ops/table_ops.h"
#include "storage/lease.h"
#include "storage/lease_keeper.h"
#include "store_fixture.h"
#include "ttl/sweep_shards.h"
#include "ttl/sweeper.h"

namespace ttlstore::ttl {
namespace {

constexpr int64_t kStartMs = 1795305600000;  // 2026-11-22T00:00:00Z
constexpr int64_t kLeaseMs = 3000;

struct Process {
  Process(storage::Store& store, const Clock& clock, const std::string& owner)
      : leases(store, clock, owner), keeper(leases, kLeaseMs), catalog(store, clock), items(store) {
    keeper.Share(kSweepShardPrefix, kSweepShards);
    EXPECT_TRUE(catalog.Load().ok());
    SweeperOptions o;
    o.budget_ms = 0;  // one batch per pass
    o.batch_size = 16;
    sweeper = std::make_unique<Sweeper>(o, catalog, items, clock, stats, nullptr, &keeper);
  }
  int Held() const {
    int n = 0;
    for (int k = 0; k < kSweepShards; ++k) n += keeper.Holding(SweepShardUnit(k)) ? 1 : 0;
    return n;
  }

  storage::Leases leases;
  storage::LeaseKeeper keeper;
  ops::TableCatalog catalog;
  ops::ItemOps items;
  TtlStats stats;
  std::unique_ptr<Sweeper> sweeper;
};

class SweepShardsTest : public storage::StoreFixture {
 protected:
  void SetUp() override {
    StoreFixture::SetUp();
    if (IsSkipped()) return;
    ops::TableCatalog catalog(*store_, clock_);
    model::TableDescriptor spec;
    spec.name = "sessions";
    spec.key.hash = {"pk", model::ValueType::kS};
    spec.attribute_definitions = {spec.key.hash};
    ASSERT_TRUE(catalog.Create(spec).ok());
    ASSERT_TRUE(catalog.SetTimeToLive("sessions", true, "expires").ok());
  }
  bool Shared() const { return store_->SharedByProcesses(); }
  std::unique_ptr<Process> Start(const std::string& owner) {
    return std::make_unique<Process>(*WriterStore(own_), clock_, owner);
  }
  // Puts `n` items due a minute ago through `p`.
  void PutDue(Process& p, const std::string& prefix, int n) {
    ops::TablePtr t = p.catalog.Find("sessions");
    ASSERT_TRUE(t);
    const std::string due = std::to_string(clock_.NowMs() / 1000 - 60);
    for (int i = 0; i < n; ++i) {
      model::Item item{{"pk", model::AttributeValue::String(prefix + std::to_string(i))},
                       {"expires", model::AttributeValue::Num(due)}};
      ASSERT_TRUE(p.items.Put(*t, item, nullptr).ok());
    }
  }
  // Passes of every process, round after round, until a round finds no backlog anywhere and
  // the index holds nothing due.
  void Drain(const std::vector<Process*>& ps) {
    for (int round = 0; round < 10000; ++round) {
      bool backlog = false;
      for (Process* p : ps) {
        auto b = p->sweeper->RunPass();
        ASSERT_TRUE(b.ok()) << b.error().message();
        backlog = backlog || *b;
      }
      if (!backlog && !store_->ScanExpiry(clock_.NowMs())->Valid()) return;
    }
    FAIL() << "the wave never drained";
  }
  uint64_t Deleted(const Process& p) const { return p.stats.deleted("sessions"); }

  FakeClock clock_{kStartMs};
  std::vector<std::unique_ptr<storage::Store>> own_;
};

INSTANTIATE_TEST_SUITE_P(Backends, SweepShardsTest, ::testing::Values("rocksdb", "postgresql"),
                         [](const auto& info) { return info.param; });

TEST(SweepShardOfTest, SpreadsSimilarKeysOverEveryShard) {
  std::map<int, int> count;
  for (int i = 0; i < 16000; ++i) ++count[SweepShardOf("\x00\x00\x00\x01item" + std::to_string(i))];
  ASSERT_EQ(count.size(), static_cast<size_t>(kSweepShards));
  for (const auto& [shard, n] : count) {
    EXPECT_GT(n, 800) << shard;  // 1000 each on average
    EXPECT_LT(n, 1200) << shard;
  }
  EXPECT_EQ(SweepShardOf("abc"), SweepShardOf("abc"));
  EXPECT_EQ(SweepShardUnit(7), "ttl/sweep/7");
}

TEST_P(SweepShardsTest, ProcessesShareTheShardsEvenlyAndTakeOverADeadOnesPart) {
  auto a = Start("a");
  auto b = Start("b");
  auto c = Start("c");
  std::vector<Process*> all{a.get(), b.get(), c.get()};
  // Two rounds: the first counts the processes as they join, the second evens the shares out.
  for (int round = 0; round < 3; ++round) {
    for (Process* p : all) p->keeper.RunOnce();
  }
  if (!Shared()) {
    // One process per folder: whoever ran last holds every shard (the others' leases are a dead
    // process's there).
    EXPECT_EQ(c->Held(), kSweepShards);
    EXPECT_EQ(c->keeper.processes(), 1);
    return;
  }
  int total = 0;
  for (Process* p : all) {
    EXPECT_EQ(p->keeper.processes(), 3);
    EXPECT_LE(p->Held(), 6);  // 16 over 3, rounded up
    EXPECT_GE(p->Held(), 4);
    total += p->Held();
  }
  EXPECT_EQ(total, kSweepShards);
  // c stops renewing (kill -9): once its leases lapse a and b count two processes and split
  // its shards, 8 each.
  clock_.Advance(kLeaseMs);
  for (int round = 0; round < 2; ++round) {
    a->keeper.RunOnce();
    b->keeper.RunOnce();
  }
  EXPECT_EQ(a->keeper.processes(), 2);
  EXPECT_EQ(a->Held(), 8);
  EXPECT_EQ(b->Held(), 8);
  EXPECT_EQ(c->Held(), 0);
  EXPECT_GT(a->keeper.takeovers() + b->keeper.takeovers(), 0u);
  // A clean stop hands b's shards to a at once: all 16.
  b->keeper.Stop();
  a->keeper.RunOnce();
  EXPECT_EQ(a->keeper.processes(), 1);
  EXPECT_EQ(a->Held(), kSweepShards);
}

TEST_P(SweepShardsTest, AWaveIsDeletedByEveryProcessTogetherEachItemOnce) {
  auto a = Start("a");
  auto b = Start("b");
  auto c = Start("c");
  // RocksDB: one process per folder.
  std::vector<Process*> all{a.get()};
  if (Shared()) all = {a.get(), b.get(), c.get()};
  for (int round = 0; round < 3; ++round) {
    for (Process* p : all) p->keeper.RunOnce();
  }
  PutDue(*a, "item", 300);
  clock_.Advance(1000);
  Drain(all);
  uint64_t deleted = 0;
  for (Process* p : all) deleted += Deleted(*p);
  EXPECT_EQ(deleted, 300u);  // each item once, however many processes read its entry
  if (Shared()) {
    for (Process* p : all) EXPECT_GT(Deleted(*p), 40u);  // about 100 each
  }
  ops::TablePtr t = a->catalog.Find("sessions");
  auto left = a->items.Get(*t, {{"pk", model::AttributeValue::String("item7")}});
  ASSERT_TRUE(left.ok());
  EXPECT_FALSE(left->item.has_value());
}

TEST_P(SweepShardsTest, AnEntryAnotherProcessWritesBehindTheCursorIsFound) {
  if (!Shared()) GTEST_SKIP() << "one process per RocksDB folder";
  auto a = Start("a");
  auto b = Start("b");
  a->keeper.RunOnce();  // a holds every shard, b none
  b->keeper.RunOnce();
  ASSERT_EQ(a->Held(), kSweepShards);
  ASSERT_EQ(b->Held(), 0);
  PutDue(*a, "first", 40);
  clock_.Advance(1000);
  Drain({a.get(), b.get()});
  EXPECT_EQ(Deleted(*a), 40u);
  // b writes items due long before a's last wave: announced to b (which holds no shard), never
  // to a, whose next wave still goes back for them.
  PutDue(*b, "late", 20);
  Drain({a.get(), b.get()});
  EXPECT_EQ(Deleted(*a), 60u);
  EXPECT_EQ(Deleted(*b), 0u);
}

}  // namespace
}  // namespace ttlstore::ttl
