// Stream sequence numbers on a store several processes share (streams/stream_head.h), on
// PostgreSQL: StreamLogs of separate Stores (separate processes, in effect) writing one stream at
// once number its records 1..N in commit order with no gap or repeat and agree on the last
// number; rollover decided from the head; a stream whose records predate its head continues
// above them; readers need not wait for numbers in flight. RocksDB, one process per folder,
// keeps its numbers in memory (stream_log_test.cc, stream_shards_test.cc).
#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>

#include "common/clock.h"
#include "common/coding.h"
#include "store_fixture.h"
#include "streams/stream_head.h"
#include "streams/stream_log.h"
#include "streams/stream_record.h"

namespace ttlstore::streams {
namespace {

constexpr int64_t kStart = 1795335014523;

class StreamHeadsTest : public storage::StoreFixture {
 protected:
  void SetUp() override {
    StoreFixture::SetUp();
    if (IsSkipped()) return;
    table_.id = 4;
    table_.name = "t";
    table_.key.hash = {"pk", model::ValueType::kS};
    table_.streams.push_back({kStart, model::StreamViewType::kKeysOnly, 0, std::nullopt});
  }
  void Write(StreamLog& log, storage::Store& store, const std::string& pk) {
    model::Item item{{"pk", model::AttributeValue::String(pk)}};
    storage::WriteBatch batch(store);
    batch.PutItem("item" + pk, pk);
    log.AddRecord(batch, table_, nullptr, &item, false);
    ASSERT_TRUE(store.Write(batch).ok());
  }
  // (number, pk) of every record of a shard.
  std::vector<std::pair<uint64_t, std::string>> Records(StreamLog& log, uint32_t shard) {
    auto r = log.Read(table_.id, kStart, shard, 0, log.StableLimit(), 1000);
    EXPECT_TRUE(r.ok());
    std::vector<std::pair<uint64_t, std::string>> out;
    if (r) {
      for (const auto& rec : r->records) out.emplace_back(rec.seq, rec.keys.at("pk").scalar());
    }
    return out;
  }

  FakeClock clock_{kStart};
  model::TableDescriptor table_;
};

INSTANTIATE_TEST_SUITE_P(Backends, StreamHeadsTest, ::testing::Values("postgresql"),
                         [](const auto& info) { return info.param; });

TEST_P(StreamHeadsTest, WritersOfSeveralProcessesNumberOneStreamInCommitOrder) {
  constexpr int kWriters = 4, kWrites = 50;
  std::vector<std::unique_ptr<storage::Store>> own;
  std::vector<std::unique_ptr<StreamLog>> logs;
  for (int w = 0; w < kWriters; ++w) {
    storage::Store* store = WriterStore(own);
    ASSERT_TRUE(store->SharedByProcesses());
    logs.push_back(std::make_unique<StreamLog>(*store, &clock_));
  }
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      for (int i = 0; i < kWrites; ++i) {
        Write(*logs[w], logs[w]->store(), std::to_string(w) + ":" + std::to_string(1000 + i));
      }
    });
  }
  for (auto& t : threads) t.join();
  auto records = Records(*logs[0], 0);
  ASSERT_EQ(records.size(), size_t{kWriters * kWrites});
  for (size_t i = 0; i < records.size(); ++i) EXPECT_EQ(records[i].first, i + 1);
  // Each writer's records follow its writes' order.
  std::map<std::string, std::string> last;
  for (const auto& [seq, pk] : records) {
    std::string w = pk.substr(0, pk.find(':'));
    EXPECT_LT(last[w], pk) << "at " << seq;
    last[w] = pk;
  }
  for (auto& log : logs) {
    auto n = log->LastAllocated(table_.id, kStart);
    ASSERT_TRUE(n.ok());
    EXPECT_EQ(*n, uint64_t{kWriters * kWrites});
    EXPECT_EQ(log->StableLimit(), UINT64_MAX);  // nothing to wait for
    EXPECT_TRUE(log->ShardsInFlight(table_.id, kStart).empty());
  }
}

TEST_P(StreamHeadsTest, RolloverIsDecidedFromTheHeadWhicheverProcessWrites) {
  std::vector<std::unique_ptr<storage::Store>> own;
  StreamLog a(*store_, &clock_), b(*WriterStore(own), &clock_);
  a.set_rollover_ms(1000);
  b.set_rollover_ms(1000);
  Write(a, *store_, "a1");
  clock_.Advance(600);
  Write(b, b.store(), "b1");
  clock_.Advance(600);  // 1200 ms after the open shard's first record, which `b` never wrote
  Write(b, b.store(), "b2");
  Write(a, *store_, "a2");
  EXPECT_EQ(Records(a, 0), (std::vector<std::pair<uint64_t, std::string>>{{1, "a1"}, {2, "b1"}}));
  EXPECT_EQ(Records(b, 1), (std::vector<std::pair<uint64_t, std::string>>{{3, "b2"}, {4, "a2"}}));
  auto shards = a.ListShards(table_.id, kStart);
  ASSERT_TRUE(shards.ok());
  ASSERT_EQ(shards->size(), 2u);
  EXPECT_EQ(shards->at(0).last_seq, 2u);
  EXPECT_EQ(shards->at(1).first_seq, 3u);
}

TEST_P(StreamHeadsTest, AStreamWhoseRecordsPredateItsHeadContinuesAboveThem) {
  // Records of shard 2 numbered 5 and 9 and a floor of 7, as a store written before heads were
  // kept would hold; no head.
  storage::WriteBatch old(*store_);
  for (uint64_t seq : {5, 9}) {
    StreamRecord r;
    r.event = EventName::kInsert;
    r.created_ms = kStart;
    r.keys = {{"pk", model::AttributeValue::String("old" + std::to_string(seq))}};
    old.Put(storage::Family::kStreams, RecordKey(table_.id, kStart, 2, seq), EncodeRecord(r));
  }
  std::string floor;
  PutFixed64BE(&floor, 7);
  old.Put(storage::Family::kStreams, kSeqFloorKey, floor);
  ASSERT_TRUE(store_->Write(old).ok());
  StreamLog log(*store_, &clock_);
  log.set_rollover_ms(0);
  auto before = log.LastAllocated(table_.id, kStart);
  ASSERT_TRUE(before.ok());
  EXPECT_EQ(*before, 9u);
  Write(log, *store_, "new");
  auto records = Records(log, 2);
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records.back(), (std::pair<uint64_t, std::string>{10, "new"}));
  auto head = store_->Get(storage::Family::kStreams, HeadKey(table_.id, kStart));
  ASSERT_TRUE(head.ok() && head->has_value());
  auto decoded = DecodeHead(**head);
  ASSERT_TRUE(decoded);
  EXPECT_EQ(decoded->next_seq, 11u);
  EXPECT_EQ(decoded->open.shard_no, 2u);
  EXPECT_EQ(decoded->open.first_record_ms, kStart);
}

TEST(StreamHead, EncodingRoundTrips) {
  StreamHead h;
  h.next_seq = 0x0102030405060708;
  h.open = OpenShard{9, std::nullopt};
  auto back = DecodeHead(EncodeHead(h));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->next_seq, h.next_seq);
  EXPECT_EQ(back->open.shard_no, 9u);
  EXPECT_FALSE(back->open.first_record_ms);
  h.open.first_record_ms = kStart;
  back = DecodeHead(EncodeHead(h));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->open.first_record_ms, kStart);
  EXPECT_FALSE(DecodeHead(""));
  EXPECT_FALSE(DecodeHead("short"));
  EXPECT_EQ(HeadKey(4, kStart).substr(0, 5), HeadKeysBegin(4));
  EXPECT_LT(HeadKey(4, INT64_MAX), HeadKeysEnd(4));
}

}  // namespace
}  // namespace ttlstore::streams
