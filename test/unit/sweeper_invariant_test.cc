// The sweeper never skips an expiry entry (invariant I in ttl/sweeper.cc), whatever the
// interleaving of writes and passes: entries written behind the scan cursor during a wave, entries
// written while a scan runs, values of 0 or far in the past, all under a fake clock.
#include <atomic>
#include <cstdlib>
#include <map>
#include <random>
#include <thread>

#include "model/expiry.h"
#include "ops/table_ops.h"
#include "ops_test_util.h"
#include "ttl/sweeper.h"

namespace ttlstore::ttl {
namespace {

// 2026-11-22T00:00:00Z; the clock moves only when the test says so.
constexpr int64_t kStartMs = 1795305600000;

class SweeperInvariantTest : public ops::OpsTest {
 protected:
  void SetUp() override {
    OpsTest::SetUp();
    catalog_ = std::make_unique<ops::TableCatalog>(*store_, clock_);
    model::TableDescriptor spec;
    spec.name = "sessions";
    spec.key.hash = {"pk", model::ValueType::kS};
    spec.attribute_definitions = {spec.key.hash};
    ASSERT_TRUE(catalog_->Create(spec).ok());
    ASSERT_TRUE(catalog_->SetTimeToLive("sessions", true, "expires").ok());
  }
  // One batch per pass (budget 0), `batch` entries per batch: many waves, many cursor positions.
  // With `threads` > 1 batches are deleted on workers while the next are read, and a pass works
  // for up to 2 ms so that several batches are in flight at once.
  std::unique_ptr<Sweeper> MakeSweeper(size_t batch, size_t threads = 1) {
    SweeperOptions o;
    o.budget_ms = threads > 1 ? 2 : 0;
    o.batch_size = batch;
    o.threads = threads;
    return std::make_unique<Sweeper>(o, *catalog_, *ops_, clock_, stats_);
  }
  void PutDue(const std::string& pk, std::optional<std::string> expires_seconds) {
    model::Item item{{"pk", S(pk)}};
    if (expires_seconds) item["expires"] = N(*expires_seconds);
    ops::TablePtr t = catalog_->Find("sessions");
    ASSERT_TRUE(ops_->Put(*t, item, nullptr).ok());
  }
  bool Exists(const std::string& pk) {
    ops::TablePtr t = catalog_->Find("sessions");
    return ops_->Get(*t, {{"pk", S(pk)}})->item.has_value();
  }
  static std::string SecondsAgo(int64_t now_ms, int64_t s) {
    return std::to_string(now_ms / 1000 - s);
  }
  // Runs passes until one finds no backlog.
  void Drain(Sweeper& sweeper) {
    for (int i = 0; i < 100000; ++i) {
      auto backlog = sweeper.RunPass();
      ASSERT_TRUE(backlog.ok());
      if (!*backlog) return;
    }
    FAIL() << "the sweeper never drained";
  }

  FakeClock clock_{kStartMs};
  TtlStats stats_;
  std::unique_ptr<ops::TableCatalog> catalog_;
};

TEST_F(SweeperInvariantTest, AnEntryWrittenBehindTheCursorDuringAWaveIsStillDeleted) {
  auto sweeper = MakeSweeper(2);
  // A wave of ten items due 100..109 s ago; the first batch handles two of them.
  for (int i = 0; i < 10; ++i) PutDue("w" + std::to_string(i), SecondsAgo(kStartMs, 109 - i));
  ASSERT_TRUE(sweeper->RunPass().ok());
  EXPECT_FALSE(Exists("w0"));
  EXPECT_TRUE(Exists("w9"));
  // Mid-wave, writes due before the cursor: one earlier than every swept entry, one equal to the
  // cursor's due time (its key may sort before the cursor's), and a value of 0 (the epoch).
  PutDue("behind", SecondsAgo(kStartMs, 500));
  PutDue("same-second", SecondsAgo(kStartMs, 108));
  PutDue("epoch", "0");
  Drain(*sweeper);
  for (int i = 0; i < 10; ++i) EXPECT_FALSE(Exists("w" + std::to_string(i))) << i;
  EXPECT_FALSE(Exists("behind"));
  EXPECT_FALSE(Exists("same-second"));
  // 0 is more than five years in the past: never expires (D4); its entry is dropped as stale.
  EXPECT_TRUE(Exists("epoch"));
}

TEST_F(SweeperInvariantTest, AnEntryWrittenBehindTheWatermarkAfterAWaveIsDeleted) {
  auto sweeper = MakeSweeper(4);
  for (int i = 0; i < 6; ++i) PutDue("w" + std::to_string(i), SecondsAgo(kStartMs, 10 + i));
  Drain(*sweeper);
  clock_.Advance(60'000);
  Drain(*sweeper);  // the watermark is now a minute past every entry above
  PutDue("late", SecondsAgo(kStartMs, 3600));
  Drain(*sweeper);
  EXPECT_FALSE(Exists("late"));
}

// What each writer last did to one of its keys.
struct Last {
  bool deleted = false;
  std::optional<int64_t> due_ms;  // the TTL value's due time if it has a Number one
};

// Writers on their own keys and the sweeper interleave freely while the clock moves; at the end,
// once the sweeper has drained at a final time, every item is present exactly when its last
// write left it unexpired (or never expiring) at that time.
TEST_F(SweeperInvariantTest, RandomInterleavingsOfWritersAndPassesSkipNothing) {
  constexpr int kWriters = 3;
  constexpr int kOpsPerWriter = 400;
  constexpr int kKeysPerWriter = 60;
  // TTLSTORE_SWEEPER_SEEDS=N runs N seeds (a soak); CI runs 8.
  const char* env = std::getenv("TTLSTORE_SWEEPER_SEEDS");
  const uint32_t seeds = env ? static_cast<uint32_t>(std::atoi(env)) : 8;
  for (uint32_t seed = 1; seed <= seeds; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    // Odd seeds delete on three workers (batches read ahead of their deletes).
    auto sweeper = MakeSweeper(1 + seed % 3, seed % 2 ? 3 : 1);
    std::atomic<int> running{kWriters};
    std::vector<std::map<std::string, Last>> last(kWriters);
    std::vector<std::thread> writers;
    for (int w = 0; w < kWriters; ++w) {
      writers.emplace_back([&, w] {
        std::mt19937 rng(seed * 100 + w);
        ops::TablePtr t;
        for (int i = 0; i < kOpsPerWriter; ++i) {
          std::string pk = "s" + std::to_string(seed) + "w" + std::to_string(w) + "k" +
                           std::to_string(rng() % kKeysPerWriter);
          int64_t now = clock_.NowMs();
          Last l;
          model::Item item{{"pk", S(pk)}};
          std::optional<int64_t> ttl;  // seconds
          switch (rng() % 9) {
            case 0: l.deleted = true; break;
            case 1: break;  // no TTL attribute
            case 2: item["expires"] = S("soon"); break;  // not a Number: never expires (D2)
            case 3: ttl = now / 1000 - static_cast<int64_t>(rng() % 120); break;  // just past
            case 4: ttl = now / 1000 + static_cast<int64_t>(rng() % 8); break;    // due soon
            case 5: ttl = now / 1000 + 100000; break;                              // far future
            case 6: ttl = rng() % 2 ? 0 : now / 1000 - 6 * 366 * 86400; break;    // D4: never
            default: ttl = now / 1000 - static_cast<int64_t>(rng() % 3); break;  // mid-wave
          }
          if (ttl) {
            item["expires"] = N(std::to_string(*ttl));
            l.due_ms = *ttl * 1000;
          }
          t = catalog_->Find("sessions");
          if (l.deleted) {
            ASSERT_TRUE(ops_->Delete(*t, {{"pk", S(pk)}}, nullptr).ok());
          } else {
            ASSERT_TRUE(ops_->Put(*t, item, nullptr).ok());
          }
          last[w][pk] = l;
          if (rng() % 16 == 0) std::this_thread::yield();
        }
        --running;
      });
    }
    std::mt19937 rng(seed);
    while (running.load() > 0) {
      ASSERT_TRUE(sweeper->RunPass().ok());
      // Jumps of up to two seconds make waves of the entries due meanwhile, which the writers'
      // "mid-wave" values land behind.
      if (rng() % 4 == 0) clock_.Advance(rng() % 2000);
    }
    for (auto& t : writers) t.join();
    // Past every "due soon" value, then let the sweeper finish.
    clock_.Advance(10'000);
    Drain(*sweeper);
    int64_t now = clock_.NowMs();
    int checked = 0;
    for (const auto& writer : last) {
      for (const auto& [pk, l] : writer) {
        bool should_exist = !l.deleted && !(l.due_ms && now > *l.due_ms &&
                                            !model::IsTooOldToExpire(*l.due_ms, now));
        EXPECT_EQ(Exists(pk), should_exist)
            << pk << " deleted=" << l.deleted << " due=" << (l.due_ms ? *l.due_ms : -1)
            << " now=" << now;
        ++checked;
      }
    }
    EXPECT_GT(checked, kWriters * kKeysPerWriter / 2);
  }
}

}  // namespace
}  // namespace ttlstore::ttl
