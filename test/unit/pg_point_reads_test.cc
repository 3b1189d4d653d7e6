// PgPointReads (storage/pg_point_reads.h): concurrent point reads share statements.
#include "storage/pg_point_reads.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace ttlstore::storage {
namespace {

using Values = std::vector<std::optional<std::string>>;

// A database of two spaces: space s holds "k<i>" -> "s:v<i>" for even i only.
Values Lookup(size_t space, const std::vector<std::string>& keys) {
  Values out;
  for (const auto& k : keys) {
    int i = std::stoi(k.substr(1));
    out.push_back(i % 2 == 0 ? std::optional<std::string>(std::to_string(space) + ":v" +
                                                          std::to_string(i))
                             : std::nullopt);
  }
  return out;
}

TEST(PgPointReads, AReadAloneGoesAtOnceAndFindsItsValueOrNothing) {
  int calls = 0;
  PgPointReads reads(2, [&](size_t space, const std::vector<std::string>& keys) -> Result<Values> {
    ++calls;
    EXPECT_EQ(keys.size(), 1u);
    return Lookup(space, keys);
  });
  EXPECT_EQ(*reads.Get(1, "k4"), std::optional<std::string>("1:v4"));
  EXPECT_EQ(*reads.Get(0, "k3"), std::nullopt);
  EXPECT_EQ(calls, 2);
}

TEST(PgPointReads, ConcurrentReadsShareStatementsAndEachGetsItsOwnValue) {
  std::mutex mu;
  std::atomic<int> in_flight{0}, most_in_flight{0}, calls{0};
  size_t keys_fetched = 0;
  PgPointReads reads(2, [&](size_t space, const std::vector<std::string>& keys) -> Result<Values> {
    int now = ++in_flight;
    int seen = most_in_flight.load();
    while (now > seen && !most_in_flight.compare_exchange_weak(seen, now)) {
    }
    ++calls;
    std::set<std::string> distinct(keys.begin(), keys.end());
    EXPECT_EQ(distinct.size(), keys.size()) << "a key twice in one statement";
    {
      std::lock_guard lock(mu);
      keys_fetched += keys.size();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));  // the round trip
    --in_flight;
    return Lookup(space, keys);
  });
  constexpr int kThreads = 32, kReads = 50;
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < kReads; ++r) {
        int i = (t * 7 + r) % 40;  // threads ask for the same keys at times
        size_t space = static_cast<size_t>(r % 2);
        auto got = reads.Get(space, "k" + std::to_string(i));
        auto want = Lookup(space, {"k" + std::to_string(i)})[0];
        if (!got || *got != want) ++wrong;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_LE(most_in_flight.load(), static_cast<int>(2 * PgPointReads::kMaxInFlight));  // 2 spaces
  // 32 readers, at most 8 statements at once: about four reads a statement.
  EXPECT_LT(calls.load(), kThreads * kReads / 2) << "reads were not combined";
  EXPECT_LE(keys_fetched, static_cast<size_t>(kThreads * kReads));
}

TEST(PgPointReads, AFailedStatementFailsItsReadsOnlyAndTheNextOnesGoOn) {
  std::atomic<bool> down{true};
  PgPointReads reads(1, [&](size_t space, const std::vector<std::string>& keys) -> Result<Values> {
    if (down) return Error(ErrorCode::kStorageUnavailable, "database unreachable");
    return Lookup(space, keys);
  });
  auto failed = reads.Get(0, "k2");
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().code(), ErrorCode::kStorageUnavailable);
  down = false;
  EXPECT_EQ(*reads.Get(0, "k2"), std::optional<std::string>("0:v2"));
}

}  // namespace
}  // namespace ttlstore::storage
