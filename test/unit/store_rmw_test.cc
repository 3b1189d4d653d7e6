// Store::ReadModifyWrite's conformance suite, on every backend (store_fixture.h): increments of
// a few hot keys from many threads add up exactly (on PostgreSQL each thread has its own Store on
// the database, as separate processes would; on RocksDB, one process per folder, they share one),
// keys that hold nothing yet serialize too, a failed function writes nothing, and a conflict
// re-runs the function on fresh reads without doubling anything.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "common/coding.h"
#include "storage/key_codec.h"
#include "store_fixture.h"

namespace ttlstore::storage {
namespace {

class StoreRmwTest : public StoreFixture {};

INSTANTIATE_TEST_SUITE_P(Backends, StoreRmwTest, ::testing::Values("rocksdb", "postgresql"),
                         [](const auto& info) { return info.param; });

std::string Counter(uint64_t v) {
  std::string out;
  PutFixed64BE(&out, v);
  return out;
}

uint64_t CounterOf(const std::optional<std::string>& raw) {
  if (!raw) return 0;
  std::string_view v = *raw;
  uint64_t n = 0;
  EXPECT_TRUE(GetFixed64BE(&v, &n));
  return n;
}

std::string HotKey(int i) {
  return ItemKey(7, model::AttributeValue::String("hot" + std::to_string(i)), nullptr);
}

// Each increment reads two keys of different families (an item and a `sequences` record, both
// absent at first) and adds one to each: a lost update in either shows in the totals.
TEST_P(StoreRmwTest, IncrementsOfHotKeysFromManyWritersAddUpExactly) {
  constexpr int kThreads = 6, kIncrements = 60, kHotKeys = 3;
  std::vector<std::unique_ptr<Store>> own;
  std::vector<Store*> stores;
  for (int t = 0; t < kThreads; ++t) stores.push_back(WriterStore(own));
  std::atomic<int> failures{0};
  std::atomic<uint64_t> runs{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kIncrements; ++i) {
        int hot = (t + i) % kHotKeys;
        std::vector<RmwKey> keys = {{std::nullopt, HotKey(hot)},
                                    {Family::kSequences, "seq" + std::to_string(hot)}};
        Status s = stores[t]->ReadModifyWrite(keys, [&](const RmwReads& reads, WriteBatch& b) {
          ++runs;
          b.PutItem(keys[0].key, Counter(CounterOf(reads[0]) + 1));
          b.Put(Family::kSequences, keys[1].key, Counter(CounterOf(reads[1]) + 1));
          b.AddStats(7, 0, 1);
          return Status::Ok();
        });
        if (!s.ok()) ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  ASSERT_EQ(failures.load(), 0);
  uint64_t total = 0, retries = 0;
  for (int hot = 0; hot < kHotKeys; ++hot) {
    auto item = store_->GetItem(HotKey(hot));
    auto seq = store_->Get(Family::kSequences, "seq" + std::to_string(hot));
    ASSERT_TRUE(item.ok() && seq.ok());
    EXPECT_EQ(CounterOf(*item), CounterOf(*seq));
    total += CounterOf(*item);
  }
  EXPECT_EQ(total, uint64_t{kThreads * kIncrements});
  auto stats = store_->GetStats(7);
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->size_bytes, kThreads * kIncrements);
  if (own.empty()) retries = store_->conflict_retries();
  for (const auto& s : own) retries += s->conflict_retries();
  // Every run past the first of an increment was a conflict retry, and none was doubled.
  EXPECT_EQ(runs.load(), uint64_t{kThreads * kIncrements} + retries);
  std::printf("[ %s ] %d increments, %llu conflict retries\n", GetParam().c_str(),
              kThreads * kIncrements, static_cast<unsigned long long>(retries));
  if (!schema_.empty()) {
    // The lock rows go with each commit: the table is empty at rest.
    PgError error;
    auto admin = PgConnection::Connect(conninfo_, &error);
    ASSERT_TRUE(admin) << error.message;
    PgRows rows;
    ASSERT_TRUE(admin->Exec({"SELECT count(*)::bigint FROM ttlstore_rmw_locks", {}}, &rows, &error))
        << error.message;
    EXPECT_EQ(rows.rows.at(0).at(0).value_or(""), std::string(8, '\0'));
  }
}

// A key hinted usually absent (RmwKey::usually_absent; PostgreSQL locks it before reading) is
// held as any other: writers through several stores claim it when absent and release it
// (delete) when present, so the committed claims and releases alternate: never two claims in a
// row, whichever store they went through, and the key ends present exactly when one claim is
// unreleased. Half the writers also hint a present key (a counter they raise), which must be
// locked all the same.
TEST_P(StoreRmwTest, AKeyHintedUsuallyAbsentIsHeldAsAnyOther) {
  constexpr int kThreads = 6, kRounds = 60;
  std::vector<std::unique_ptr<Store>> own;
  std::vector<Store*> stores;
  for (int t = 0; t < kThreads; ++t) stores.push_back(WriterStore(own));
  std::atomic<int> failures{0};
  std::atomic<int64_t> claims{0}, releases{0}, raised{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kRounds; ++i) {
        std::vector<RmwKey> keys = {{Family::kLeases, "claim", /*usually_absent=*/true},
                                    {Family::kLeases, "raised", /*usually_absent=*/t % 2 == 0}};
        bool claimed = false;
        Status s = stores[t]->ReadModifyWrite(keys, [&](const RmwReads& reads, WriteBatch& b) {
          claimed = !reads[0];
          if (claimed) {
            b.Put(Family::kLeases, "claim", std::to_string(t));
          } else {
            b.Delete(Family::kLeases, "claim");
          }
          b.Put(Family::kLeases, "raised", Counter(CounterOf(reads[1]) + 1));
          return Status::Ok();
        });
        if (!s.ok()) {
          ++failures;
          continue;
        }
        ++(claimed ? claims : releases);
        ++raised;
      }
    });
  }
  for (auto& th : threads) th.join();
  ASSERT_EQ(failures.load(), 0);
  auto claim = store_->Get(Family::kLeases, "claim");
  auto counter = store_->Get(Family::kLeases, "raised");
  ASSERT_TRUE(claim.ok() && counter.ok());
  EXPECT_EQ(claims.load() - releases.load(), claim->has_value() ? 1 : 0);
  EXPECT_EQ(static_cast<int64_t>(CounterOf(*counter)), raised.load());
}

TEST_P(StoreRmwTest, AFailedFunctionWritesNothingAndAnEmptyBatchCommitsNothing) {
  std::string key = HotKey(0);
  Status s = store_->ReadModifyWrite({{std::nullopt, key}}, [&](const RmwReads& reads,
                                                                WriteBatch& b) -> Status {
    EXPECT_FALSE(reads[0].has_value());
    b.PutItem(key, "half");
    b.Put(Family::kSequences, "s", "half");
    b.AddStats(7, 1, 1);
    return Error::Validation("changed my mind");
  });
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message(), "changed my mind");
  auto item = store_->GetItem(key);
  ASSERT_TRUE(item.ok());
  EXPECT_FALSE(item->has_value());
  auto seq = store_->Get(Family::kSequences, "s");
  ASSERT_TRUE(seq.ok());
  EXPECT_FALSE(seq->has_value());
  auto stats = store_->GetStats(7);
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->item_count, 0);
  // Nothing to write: fine, and the keys are free again for the next writer.
  ASSERT_TRUE(store_->ReadModifyWrite({{std::nullopt, key}},
                                      [](const RmwReads&, WriteBatch&) { return Status::Ok(); })
                  .ok());
  ASSERT_TRUE(store_->ReadModifyWrite({{std::nullopt, key}, {std::nullopt, key}},
                                      [&](const RmwReads& reads, WriteBatch& b) {
                                        EXPECT_EQ(reads.size(), 2u);
                                        b.PutItem(key, "v");
                                        return Status::Ok();
                                      })
                  .ok());
  item = store_->GetItem(key);
  ASSERT_TRUE(item.ok() && item->has_value());
  EXPECT_EQ(**item, "v");
}

TEST_P(StoreRmwTest, AConflictRerunsTheFunctionOnFreshReadsAndAppliesItOnce) {
  std::string key = HotKey(1);
  store_->InjectConflictsForTest(3);
  const uint64_t before = store_->conflict_retries();
  int runs = 0;
  auto increment = [&](const RmwReads& reads, WriteBatch& b) {
    ++runs;
    b.PutItem(key, Counter(CounterOf(reads[0]) + 1));
    b.AddStats(7, 0, 1);
    return Status::Ok();
  };
  ASSERT_TRUE(store_->ReadModifyWrite({{std::nullopt, key}}, increment).ok());
  EXPECT_EQ(runs, 4);
  EXPECT_EQ(store_->conflict_retries() - before, 3u);
  ASSERT_TRUE(store_->ReadModifyWrite({{std::nullopt, key}}, increment).ok());
  auto item = store_->GetItem(key);
  ASSERT_TRUE(item.ok());
  EXPECT_EQ(CounterOf(*item), 2u);
  auto stats = store_->GetStats(7);
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->size_bytes, 2);
  // Conflicts past the limit: a retryable error, nothing written.
  store_->InjectConflictsForTest(1000);
  Status s = store_->ReadModifyWrite({{std::nullopt, key}}, increment);
  store_->InjectConflictsForTest(0);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code(), ErrorCode::kStorageUnavailable);
  item = store_->GetItem(key);
  ASSERT_TRUE(item.ok());
  EXPECT_EQ(CounterOf(*item), 2u);
}

// Many writers on ONE store (one process): on PostgreSQL their read-modify-writes share
// transactions (pg_store_rmw.cc): members hold no key in common, each runs its own function on
// its own reads, their writes and stats go out merged, and one whose function fails drops out
// alone. Every writer has a key of its own and shares three hot ones; every seventh attempt of a
// writer fails on purpose after writing into its batch.
TEST_P(StoreRmwTest, WritersOfOneStoreSharingTransactionsAddUpExactly) {
  constexpr int kThreads = 16, kIncrements = 80, kHotKeys = 3;
  std::atomic<int> unexpected{0};
  std::atomic<uint64_t> refused{0};
  std::vector<uint64_t> own_done(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kIncrements; ++i) {
        const bool hot = i % 2 == 0;
        const std::string key = hot ? HotKey(100 + (t + i) % kHotKeys)
                                    : ItemKey(7, model::AttributeValue::String(
                                                     "own" + std::to_string(t)), nullptr);
        const bool fail = i % 7 == 3;
        std::vector<RmwKey> keys = {{std::nullopt, key}};
        Status s = store_->ReadModifyWrite(keys, [&](const RmwReads& reads, WriteBatch& b) {
          b.PutItem(key, Counter(CounterOf(reads[0]) + 1));
          b.AddStats(8, 1, 1);
          if (fail) return Status(Error::Validation("refused on purpose"));
          return Status::Ok();
        });
        if (fail) {
          if (s.ok() || s.error().code() != ErrorCode::kValidation) ++unexpected;
          ++refused;
        } else if (!s.ok()) {
          ++unexpected;
        } else if (!hot) {
          ++own_done[t];
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  ASSERT_EQ(unexpected.load(), 0);
  uint64_t total = 0;
  for (int hot = 0; hot < kHotKeys; ++hot) {
    auto item = store_->GetItem(HotKey(100 + hot));
    ASSERT_TRUE(item.ok());
    total += CounterOf(*item);
  }
  for (int t = 0; t < kThreads; ++t) {
    auto item = store_->GetItem(
        ItemKey(7, model::AttributeValue::String("own" + std::to_string(t)), nullptr));
    ASSERT_TRUE(item.ok());
    EXPECT_EQ(CounterOf(*item), own_done[t]) << "writer " << t;
    total += CounterOf(*item);
  }
  const uint64_t applied = uint64_t{kThreads * kIncrements} - refused.load();
  EXPECT_EQ(total, applied);
  auto stats = store_->GetStats(8);
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->item_count, static_cast<int64_t>(applied));  // refused batches add nothing
  EXPECT_EQ(stats->size_bytes, static_cast<int64_t>(applied));
  std::printf("[ %s ] %llu of %d read-modify-writes shared a transaction\n", GetParam().c_str(),
              static_cast<unsigned long long>(store_->shared_transactions()),
              kThreads * kIncrements);
  if (!conninfo_.empty()) EXPECT_GT(store_->shared_transactions(), 0u);  // groups were formed
}

// A read-modify-write of many keys (more than a group takes: a TTL sweeper batch) runs in a
// transaction of its own, outside the groups, while small ones on some of the same keys go in
// groups: the database's row locks order them, and every increment lands once.
TEST_P(StoreRmwTest, LargeReadModifyWritesBesideGroupsAddUpExactly) {
  constexpr int kLarge = 3, kLargeRounds = 6, kKeys = 100, kSmall = 10, kSmallRounds = 40;
  std::atomic<int> unexpected{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kLarge; ++t) {
    threads.emplace_back([&] {
      std::vector<RmwKey> keys;
      for (int k = 0; k < kKeys; ++k) keys.push_back({std::nullopt, HotKey(200 + k)});
      for (int round = 0; round < kLargeRounds; ++round) {
        Status s = store_->ReadModifyWrite(keys, [&](const RmwReads& reads, WriteBatch& b) {
          for (int k = 0; k < kKeys; ++k) {
            b.PutItem(keys[k].key, Counter(CounterOf(reads[k]) + 1));
          }
          return Status::Ok();
        });
        if (!s.ok()) ++unexpected;
      }
    });
  }
  for (int t = 0; t < kSmall; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kSmallRounds; ++i) {
        std::vector<RmwKey> keys = {{std::nullopt, HotKey(200 + (t * 7 + i) % kKeys)}};
        Status s = store_->ReadModifyWrite(keys, [&](const RmwReads& reads, WriteBatch& b) {
          b.PutItem(keys[0].key, Counter(CounterOf(reads[0]) + 1));
          return Status::Ok();
        });
        if (!s.ok()) ++unexpected;
      }
    });
  }
  for (auto& th : threads) th.join();
  ASSERT_EQ(unexpected.load(), 0);
  uint64_t total = 0;
  for (int k = 0; k < kKeys; ++k) {
    auto item = store_->GetItem(HotKey(200 + k));
    ASSERT_TRUE(item.ok());
    total += CounterOf(*item);
  }
  EXPECT_EQ(total, uint64_t{kLarge * kLargeRounds * kKeys + kSmall * kSmallRounds});
}

}  // namespace
}  // namespace ttlstore::storage
