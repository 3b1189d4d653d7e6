// Leases of background work (storage/lease.h, storage/lease_keeper.h) on every backend
// (store_fixture.h): one holder at a time however many owners race, renewal keeps the
// generation, an owner that stops renewing is taken over with the next generation, a release
// hands the unit over at once, and a job fenced by its generation cannot commit after a
// takeover. On PostgreSQL each owner has its own Store on the database, as separate processes
// would.
#include "storage/lease.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "storage/lease_keeper.h"
#include "store_fixture.h"

namespace ttlstore::storage {
namespace {

constexpr int64_t kLeaseMs = 3000;

class LeaseTest : public StoreFixture {
 protected:
  // A store for one more owner: on PostgreSQL its own connection set, on RocksDB the one store.
  Store& OwnerStore() {
    if (conninfo_.empty()) return *store_;
    StoreOptions options;
    options.storage = conninfo_;
    auto s = Store::Open(options);
    EXPECT_TRUE(s.ok()) << s.error().message();
    if (!s.ok()) return *store_;
    own_.push_back(std::move(*s));
    return *own_.back();
  }

  FakeClock clock_{1'700'000'000'000};
  std::vector<std::unique_ptr<Store>> own_;
};

INSTANTIATE_TEST_SUITE_P(Backends, LeaseTest, ::testing::Values("rocksdb", "postgresql"),
                         [](const auto& info) { return info.param; });

TEST(LeaseRecordTest, RoundTripsAndRefusesGarbage) {
  LeaseRecord r{"host:1:abc", 42, 1'700'000'000'123};
  auto back = DecodeLease(EncodeLease(r));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->owner, r.owner);
  EXPECT_EQ(back->generation, 42u);
  EXPECT_EQ(back->expires_ms, r.expires_ms);
  EXPECT_FALSE(DecodeLease(""));
  EXPECT_FALSE(DecodeLease(std::string("\x02", 1) + std::string(16, '\0')));
  EXPECT_FALSE(DecodeLease(std::string("\x01", 1) + std::string(15, '\0')));
  EXPECT_NE(LeaseOwnerName(), LeaseOwnerName());
}

TEST_P(LeaseTest, OneHolderRenewalKeepsTheGeneration) {
  Leases a(*store_, clock_, "a"), b(OwnerStore(), clock_, "b");
  auto ga = a.Acquire("u", kLeaseMs);
  ASSERT_TRUE(ga.ok()) << ga.error().message();
  EXPECT_TRUE(ga->held);
  EXPECT_EQ(ga->generation, 1u);
  EXPECT_FALSE(ga->took_over);
  auto gb = b.Acquire("u", kLeaseMs);
  ASSERT_TRUE(gb.ok());
  EXPECT_FALSE(gb->held);
  EXPECT_EQ(gb->holder, "a");
  clock_.Advance(kLeaseMs - 1);
  auto renewed = a.Acquire("u", kLeaseMs);
  ASSERT_TRUE(renewed.ok());
  EXPECT_TRUE(renewed->held);
  EXPECT_EQ(renewed->generation, 1u);
  EXPECT_EQ(renewed->expires_ms, clock_.NowMs() + kLeaseMs);
  clock_.Advance(kLeaseMs - 1);  // past the first grant, within the renewal
  EXPECT_FALSE(b.Acquire("u", kLeaseMs)->held);
  // Another unit is another lease.
  EXPECT_TRUE(b.Acquire("v", kLeaseMs)->held);
}

TEST_P(LeaseTest, AnOwnerThatStopsRenewingIsTakenOverAndFencedOut) {
  Leases a(*store_, clock_, "a"), b(OwnerStore(), clock_, "b");
  ASSERT_TRUE(a.Acquire("u", kLeaseMs)->held);
  clock_.Advance(kLeaseMs);  // a's lease has run out
  auto gb = b.Acquire("u", kLeaseMs);
  ASSERT_TRUE(gb.ok());
  EXPECT_TRUE(gb->held);
  EXPECT_TRUE(gb->took_over);
  EXPECT_EQ(gb->generation, 2u);
  EXPECT_EQ(b.takeovers(), 1u);
  // a comes back: it does not hold the unit, and a write it fences with generation 1 fails.
  EXPECT_FALSE(a.Acquire("u", kLeaseMs)->held);
  auto job = [&](Leases& who, uint64_t generation, const std::string& value) {
    return who.store().ReadModifyWrite({Leases::KeyOf("u"), {Family::kStreams, "job"}},
                                       [&](const RmwReads& reads, WriteBatch& batch) -> Status {
                                         RETURN_IF_ERROR(who.CheckFence("u", reads[0], generation));
                                         batch.Put(Family::kStreams, "job", value);
                                         return Status::Ok();
                                       });
  };
  Status late = job(a, 1, "late");
  ASSERT_FALSE(late.ok());
  EXPECT_NE(late.error().message().find("lease of u lost"), std::string::npos);
  ASSERT_TRUE(job(b, 2, "current").ok());
  EXPECT_EQ(**store_->Get(Family::kStreams, "job"), "current");
  // b's own fence with an old generation fails too.
  EXPECT_FALSE(job(b, 1, "stale").ok());
}

TEST_P(LeaseTest, AReleaseHandsTheUnitOverAtOnce) {
  Leases a(*store_, clock_, "a"), b(OwnerStore(), clock_, "b");
  ASSERT_TRUE(a.Acquire("u", kLeaseMs)->held);
  ASSERT_TRUE(b.Release("u").ok());  // not b's: nothing happens
  EXPECT_FALSE(b.Acquire("u", kLeaseMs)->held);
  ASSERT_TRUE(a.Release("u").ok());
  auto gb = b.Acquire("u", kLeaseMs);
  ASSERT_TRUE(gb.ok());
  EXPECT_TRUE(gb->held);
  EXPECT_FALSE(gb->took_over);  // handed over, not taken over
  EXPECT_EQ(gb->generation, 2u);
  EXPECT_EQ(b.takeovers(), 0u);
  // take_live (a store only one process can open) takes even a live lease.
  auto ga = a.Acquire("u", kLeaseMs, /*take_live=*/true);
  ASSERT_TRUE(ga.ok());
  EXPECT_TRUE(ga->held);
  EXPECT_EQ(ga->generation, 3u);
}

TEST_P(LeaseTest, OwnersRacingForOneUnitGetOneHolder) {
  constexpr int kOwners = 6, kRounds = 20;
  std::vector<std::unique_ptr<Leases>> owners;
  for (int i = 0; i < kOwners; ++i) {
    owners.push_back(std::make_unique<Leases>(OwnerStore(), clock_, "o" + std::to_string(i)));
  }
  for (int round = 0; round < kRounds; ++round) {
    const std::string unit = "race" + std::to_string(round);
    std::atomic<int> held{0};
    std::atomic<int> failed{0};
    std::vector<std::thread> threads;
    for (auto& o : owners) {
      threads.emplace_back([&, who = o.get()] {
        auto g = who->Acquire(unit, kLeaseMs);
        if (!g.ok()) {
          ++failed;
        } else if (g->held) {
          ++held;
        }
      });
    }
    for (auto& t : threads) t.join();
    EXPECT_EQ(failed.load(), 0);
    EXPECT_EQ(held.load(), 1) << unit;
  }
}

TEST_P(LeaseTest, KeepersShareUnitsAndHandThemOver) {
  Leases la(*store_, clock_, "a"), lb(OwnerStore(), clock_, "b");
  LeaseKeeper a(la, kLeaseMs), b(lb, kLeaseMs);
  for (LeaseKeeper* k : {&a, &b}) {
    k->Want("x");
    k->Want("y");
  }
  a.RunOnce();
  b.RunOnce();
  if (store_->SharedByProcesses()) {
    // Two processes on one database: a took both first, b holds neither.
    EXPECT_TRUE(a.Holding("x") && a.Holding("y"));
    EXPECT_FALSE(b.Holding("x") || b.Holding("y"));
    // a stops renewing (its process died): within the lease time b takes both over.
    clock_.Advance(kLeaseMs);
    b.RunOnce();
    EXPECT_EQ(b.Holding("x"), std::optional<uint64_t>(2));
    EXPECT_TRUE(b.Holding("y"));
    EXPECT_EQ(b.takeovers(), 2u);
    // a's view ages out by itself: no pass may start on a lease that could have lapsed.
    EXPECT_FALSE(a.Holding("x"));
    // A clean stop hands them back at once.
    b.Stop();
    a.RunOnce();
    EXPECT_EQ(a.Holding("x"), std::optional<uint64_t>(3));
  } else {
    // RocksDB: one process per folder, so the lease "a" left is a dead process's and b (the
    // restarted process) takes it at once.
    EXPECT_TRUE(b.Holding("x") && b.Holding("y"));
    EXPECT_EQ(b.takeovers(), 2u);
  }
  // Holding stops answering a third of the lease time before expiry, renewed or not.
  LeaseKeeper& holder = store_->SharedByProcesses() ? a : b;
  clock_.Advance(kLeaseMs - kLeaseMs / 3);
  EXPECT_FALSE(holder.Holding("x"));
  holder.RunOnce();
  EXPECT_TRUE(holder.Holding("x"));
  std::vector<std::pair<std::string, bool>> units = holder.Units();
  ASSERT_EQ(units.size(), 2u);
  EXPECT_EQ(units[0], std::make_pair(std::string("x"), true));
}

TEST_P(LeaseTest, MayRunWithoutAKeeperAlways) {
  EXPECT_TRUE(MayRun(nullptr, "anything"));
  Leases l(*store_, clock_, "a");
  LeaseKeeper k(l, kLeaseMs);
  EXPECT_FALSE(MayRun(&k, "u"));  // not wanted
  k.Want("u");
  k.RunOnce();
  EXPECT_TRUE(MayRun(&k, "u"));
}

}  // namespace
}  // namespace ttlstore::storage
