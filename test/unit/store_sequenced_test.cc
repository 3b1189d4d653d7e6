// WriteBatch::PutSequenced's conformance suite, on every backend (store_fixture.h): numbers kept
// in a head and handed out at commit rise in commit order with no gap and no repeat, whichever
// writer (on PostgreSQL, each with its own Store on the database, as separate processes) and
// whether through plain batches or read-modify-writes; several in one batch see each other; a
// write started over after a conflict numbers once; a failed or abandoned one leaves the head.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "common/coding.h"
#include "store_fixture.h"

namespace ttlstore::storage {
namespace {

class StoreSequencedTest : public StoreFixture {};

INSTANTIATE_TEST_SUITE_P(Backends, StoreSequencedTest, ::testing::Values("rocksdb", "postgresql"),
                         [](const auto& info) { return info.param; });

uint64_t NumberOf(const std::optional<std::string>& head) {
  if (!head) return 0;
  std::string_view v = *head;
  uint64_t n = 0;
  EXPECT_TRUE(GetFixed64BE(&v, &n));
  return n;
}

std::string RecordKey(const std::string& head, uint64_t n) {
  std::string key = "r" + head;
  PutFixed64BE(&key, n);
  return key;
}

// A record numbered by `head`, holding `value`.
void Append(WriteBatch& b, const std::string& head, const std::string& value,
            std::atomic<int>* runs = nullptr) {
  b.PutSequenced(Family::kSequences, head, [head, value, runs](const std::optional<std::string>& h) {
    if (runs) ++*runs;
    uint64_t n = NumberOf(h) + 1;
    SequencedWrite w;
    PutFixed64BE(&w.head, n);
    w.puts.emplace_back(RecordKey(head, n), value);
    return w;
  });
}

// Every record of `head`, by number.
std::map<uint64_t, std::string> Records(Store& store, const std::string& head) {
  std::map<uint64_t, std::string> out;
  std::string lower = "r" + head;
  auto it = store.ScanFamily(Family::kSequences, lower, lower + std::string(8, '\xff'), false,
                             nullptr);
  for (; it->Valid(); it->Next()) {
    std::string_view k = it->key();
    k.remove_prefix(lower.size());
    uint64_t n = 0;
    EXPECT_TRUE(GetFixed64BE(&k, &n));
    out[n] = std::string(it->value());
  }
  EXPECT_TRUE(it->status().ok());
  return out;
}

TEST_P(StoreSequencedTest, NumbersRiseInCommitOrderWithoutGapsFromManyWriters) {
  constexpr int kWriters = 6, kWrites = 40;
  std::vector<std::unique_ptr<Store>> own;
  std::vector<Store*> stores;
  for (int w = 0; w < kWriters; ++w) stores.push_back(WriterStore(own));
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      for (int i = 0; i < kWrites; ++i) {
        std::string value = std::to_string(w) + ":" + std::to_string(i);
        // Half through plain batches, half through read-modify-writes of keys of their own
        // (which PostgreSQL groups into shared transactions), each with one item written too.
        std::string item = "item" + value;
        Status s;
        if (i % 2 == 0) {
          WriteBatch b(*stores[w]);
          b.PutItem(item, value);
          Append(b, "a", value);
          s = stores[w]->Write(b);
        } else {
          s = stores[w]->ReadModifyWrite({{std::nullopt, item}}, [&](const RmwReads&,
                                                                      WriteBatch& b) {
            b.PutItem(item, value);
            Append(b, "a", value);
            if (i % 4 == 1) Append(b, "b", value);  // a second head in the same batch
            return Status::Ok();
          });
        }
        if (!s.ok()) ++failures;
      }
    });
  }
  for (auto& t : threads) t.join();
  ASSERT_EQ(failures.load(), 0);
  auto a = Records(*store_, "a");
  ASSERT_EQ(a.size(), size_t{kWriters * kWrites});
  EXPECT_EQ(a.begin()->first, 1u);
  EXPECT_EQ(a.rbegin()->first, uint64_t{kWriters * kWrites});  // no gap, no repeat
  auto head = store_->Get(Family::kSequences, "a");
  ASSERT_TRUE(head.ok());
  EXPECT_EQ(NumberOf(*head), uint64_t{kWriters * kWrites});
  // Each writer's writes follow one another, so its numbers rise in its own order.
  std::map<int, int> last;
  for (const auto& [n, value] : a) {
    int w = std::stoi(value.substr(0, value.find(':')));
    int i = std::stoi(value.substr(value.find(':') + 1));
    auto it = last.find(w);
    if (it != last.end()) EXPECT_GT(i, it->second) << "writer " << w << " at number " << n;
    last[w] = i;
  }
  EXPECT_EQ(Records(*store_, "b").size(), size_t{kWriters * ((kWrites + 2) / 4)});
  for (const auto& [n, value] : a) {
    auto item = store_->GetItem("item" + value);
    ASSERT_TRUE(item.ok());
    EXPECT_EQ(item->value_or(""), value);  // committed with its record
  }
}

TEST_P(StoreSequencedTest, SeveralInOneBatchSeeEachOtherAndABatchOfOnlyThemCommits) {
  ASSERT_TRUE(store_->ReadModifyWrite({{std::nullopt, "k"}}, [](const RmwReads&, WriteBatch& b) {
    Append(b, "h", "first");
    Append(b, "h", "second");
    return Status::Ok();
  }).ok());
  WriteBatch b(*store_);
  Append(b, "h", "third");
  ASSERT_TRUE(store_->Write(b).ok());
  auto records = Records(*store_, "h");
  EXPECT_EQ(records, (std::map<uint64_t, std::string>{{1, "first"}, {2, "second"}, {3, "third"}}));
}

TEST_P(StoreSequencedTest, AConflictNumbersOnceAndAFailedWriteLeavesTheHead) {
  std::atomic<int> runs{0};
  store_->InjectConflictsForTest(3);
  ASSERT_TRUE(store_->ReadModifyWrite({{std::nullopt, "k"}}, [&](const RmwReads&, WriteBatch& b) {
    b.PutItem("k", "v");
    Append(b, "h", "once", &runs);
    return Status::Ok();
  }).ok());
  EXPECT_EQ(runs.load(), 1);  // the abandoned attempts never reached their commit
  Status failed = store_->ReadModifyWrite({{std::nullopt, "k"}}, [&](const RmwReads&,
                                                                       WriteBatch& b) -> Status {
    Append(b, "h", "never", &runs);
    return Error::Validation("changed my mind");
  });
  EXPECT_FALSE(failed.ok());
  EXPECT_EQ(runs.load(), 1);
  EXPECT_EQ(Records(*store_, "h"), (std::map<uint64_t, std::string>{{1, "once"}}));
  auto head = store_->Get(Family::kSequences, "h");
  ASSERT_TRUE(head.ok());
  EXPECT_EQ(NumberOf(*head), 1u);
}

}  // namespace
}  // namespace ttlstore::storage
