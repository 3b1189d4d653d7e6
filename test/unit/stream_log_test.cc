// StreamLog (records on the write path, sequence numbers, reads) through ItemOps, and the
// Trimmer with a FakeClock.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "common/clock.h"
#include "ops/item_ops.h"
#include "streams/stream_log.h"
#include "streams/stream_names.h"
#include "streams/trimmer.h"

namespace ttlstore::streams {
namespace {

constexpr int64_t kStart = 1795335014523;

class StreamLogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("ttlstore_stream_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    Open();
    table_.id = 4;
    table_.name = "t";
    table_.key.hash = {"pk", model::ValueType::kS};
    table_.streams.push_back({kStart, model::StreamViewType::kNewAndOldImages, 0, std::nullopt});
  }
  void TearDown() override {
    log_.reset();
    store_.reset();
    std::filesystem::remove_all(dir_);
  }
  void Open() {
    log_.reset();
    store_.reset();
    storage::StoreOptions options;
    options.path = dir_.string();
    auto s = storage::Store::Open(options);
    ASSERT_TRUE(s.ok()) << s.error().message();
    store_ = std::move(*s);
    log_ = std::make_unique<StreamLog>(*store_, &clock_);
    // These tests read one shard across days of fake time; rollover is stream_shards_test's.
    log_->set_rollover_ms(0);
  }
  // One write of old -> new through the log, committed.
  void Write(const model::Item* old_item, const model::Item* new_item, bool service = false) {
    storage::WriteBatch batch(*store_);
    log_->AddRecord(batch, table_, old_item, new_item, service);
    ASSERT_TRUE(store_->Write(batch).ok());
  }
  std::vector<StreamRecord> ReadAll(uint64_t after = 0) {
    auto r = log_->Read(table_.id, kStart, 0, after, log_->StableLimit(), 1000);
    EXPECT_TRUE(r.ok());
    return r ? r->records : std::vector<StreamRecord>{};
  }
  static model::Item Item(const std::string& pk, const std::string& v) {
    return {{"pk", model::AttributeValue::String(pk)}, {"v", model::AttributeValue::String(v)}};
  }

  FakeClock clock_{kStart};
  std::filesystem::path dir_;
  std::unique_ptr<storage::Store> store_;
  std::unique_ptr<StreamLog> log_;
  model::TableDescriptor table_;
};

TEST_F(StreamLogTest, EventsImagesAndNoRecordForNoOps) {
  model::Item a1 = Item("a", "1"), a2 = Item("a", "2");
  Write(nullptr, &a1);
  Write(&a1, &a1);  // changes nothing
  Write(&a1, &a2);
  Write(&a2, nullptr, /*service=*/true);
  Write(nullptr, nullptr);
  auto records = ReadAll();
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0].event, EventName::kInsert);
  EXPECT_EQ(records[0].new_image, a1);
  EXPECT_FALSE(records[0].old_image);
  EXPECT_EQ(records[1].event, EventName::kModify);
  EXPECT_EQ(records[1].old_image, a1);
  EXPECT_EQ(records[1].new_image, a2);
  EXPECT_EQ(records[2].event, EventName::kRemove);
  EXPECT_TRUE(records[2].service);
  EXPECT_EQ(records[2].old_image, a2);
  EXPECT_EQ(records[2].keys, (model::Item{{"pk", model::AttributeValue::String("a")}}));
  EXPECT_LT(records[0].seq, records[1].seq);
  EXPECT_LT(records[1].seq, records[2].seq);
  EXPECT_EQ(records[0].created_ms, kStart);
  EXPECT_GT(records[1].size_bytes, records[0].size_bytes);  // two images, not one
}

TEST_F(StreamLogTest, ViewTypeDecidesTheImages) {
  table_.streams.back().view_type = model::StreamViewType::kKeysOnly;
  model::Item a1 = Item("a", "1"), a2 = Item("a", "2");
  Write(&a1, &a2);
  table_.streams.back().view_type = model::StreamViewType::kOldImage;
  Write(&a2, &a1);
  auto records = ReadAll();
  ASSERT_EQ(records.size(), 2u);
  EXPECT_FALSE(records[0].new_image || records[0].old_image);
  EXPECT_EQ(records[1].old_image, a2);
  EXPECT_FALSE(records[1].new_image);
}

TEST_F(StreamLogTest, TablesWithoutAnEnabledStreamGetNoRecords) {
  model::Item a1 = Item("a", "1");
  table_.streams.back().disabled_ms = kStart + 1;
  Write(nullptr, &a1);
  table_.streams.clear();
  Write(nullptr, &a1);
  EXPECT_TRUE(ReadAll().empty());
  EXPECT_EQ(log_->last_allocated(), 0u);
}

TEST_F(StreamLogTest, SequenceNumbersKeepIncreasingAfterReopen) {
  model::Item a1 = Item("a", "1"), b1 = Item("b", "1");
  Write(nullptr, &a1);
  Write(nullptr, &b1);
  uint64_t last = log_->last_allocated();
  EXPECT_EQ(last, 2u);
  Open();
  EXPECT_EQ(log_->last_allocated(), last);
  Write(&a1, nullptr);
  auto records = ReadAll();
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[2].seq, last + 1);
}

TEST_F(StreamLogTest, ReadersStopBelowAnUncommittedNumber) {
  model::Item a1 = Item("a", "1"), b1 = Item("b", "1");
  storage::WriteBatch slow(*store_);
  log_->AddRecord(slow, table_, nullptr, &a1, false);  // takes number 1, not committed yet
  Write(nullptr, &b1);                                 // takes 2, committed first
  EXPECT_EQ(log_->StableLimit(), 1u);
  EXPECT_TRUE(ReadAll().empty());  // 2 must not be read before 1
  ASSERT_TRUE(store_->Write(slow).ok());
  EXPECT_EQ(log_->StableLimit(), 3u);
  EXPECT_EQ(ReadAll().size(), 2u);
  EXPECT_FALSE(log_->HasInFlight(table_.id, kStart, 0));
}

TEST_F(StreamLogTest, WritersKeepTheTrackerSmallWithoutReaders) {
  for (size_t i = 0; i < kMaxInFlight + 10; ++i) {
    model::Item item = Item("k" + std::to_string(i), "v");
    Write(nullptr, &item);
  }
  // The writer that went past the bound confirmed the committed ones; nothing is pending.
  EXPECT_FALSE(log_->HasInFlight(table_.id, kStart, 0));
  EXPECT_EQ(log_->StableLimit(), kMaxInFlight + 11);
}

// A batch whose fate is never told (as one whose commit has an unknown outcome) holds readers
// back until kAbandonAfterMs; one dropped unwritten, or whose write failed, at once.
TEST_F(StreamLogTest, AnAbandonedBatchIsGivenUp) {
  model::Item a1 = Item("a", "1"), b1 = Item("b", "1"), c1 = Item("c", "1");
  {
    storage::WriteBatch pending(*store_);
    log_->AddRecord(pending, table_, nullptr, &a1, false);
    Write(nullptr, &b1);
    EXPECT_EQ(log_->StableLimit(), 1u);
    EXPECT_TRUE(log_->HasInFlight(table_.id, kStart, 0));
    clock_.Advance(kAbandonAfterMs + 1);
    EXPECT_EQ(log_->StableLimit(), 3u);
  }
  ASSERT_EQ(ReadAll().size(), 1u);
  {
    storage::WriteBatch dropped(*store_);
    log_->AddRecord(dropped, table_, nullptr, &c1, false);
    EXPECT_EQ(log_->StableLimit(), 3u);
  }
  EXPECT_EQ(log_->StableLimit(), 4u);  // no clock advance: given up when dropped
  EXPECT_FALSE(log_->HasInFlight(table_.id, kStart, 0));
  ASSERT_EQ(ReadAll().size(), 1u);
}

// A read-modify-write attempt that is started over (a conflict) drops its batch: the numbers
// it drew hold nobody back, and the records of the attempt that commits are all readable.
TEST_F(StreamLogTest, ARetriedReadModifyWriteReleasesItsNumbersAtOnce) {
  model::Item a1 = Item("a", "1");
  store_->InjectConflictsForTest(2);
  ASSERT_TRUE(store_->ReadModifyWrite({{std::nullopt, "a"}},
                                      [&](const storage::RmwReads&, storage::WriteBatch& batch) {
                                        log_->AddRecord(batch, table_, nullptr, &a1, false);
                                        return Status::Ok();
                                      }).ok());
  EXPECT_FALSE(log_->HasInFlight(table_.id, kStart, 0));
  EXPECT_EQ(log_->StableLimit(), log_->last_allocated() + 1);
  auto records = ReadAll();
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].seq, 3u);  // the third attempt's number
}

TEST_F(StreamLogTest, ReadPagesByPositionAndLimit) {
  std::vector<model::Item> items;
  for (int i = 0; i < 5; ++i) items.push_back(Item("k" + std::to_string(i), "v"));
  for (const auto& it : items) Write(nullptr, &it);
  auto first = log_->Read(table_.id, kStart, 0, 0, log_->StableLimit(), 2);
  ASSERT_TRUE(first.ok());
  ASSERT_EQ(first->records.size(), 2u);
  EXPECT_FALSE(first->at_end);
  auto rest = log_->Read(table_.id, kStart, 0, first->records.back().seq, log_->StableLimit(), 10);
  ASSERT_TRUE(rest.ok());
  EXPECT_EQ(rest->records.size(), 3u);
  EXPECT_TRUE(rest->at_end);
  auto shards = log_->ListShards(table_.id, kStart);
  ASSERT_TRUE(shards.ok());
  ASSERT_EQ(shards->size(), 1u);
  EXPECT_EQ((*shards)[0].first_seq, 1u);
  EXPECT_EQ((*shards)[0].last_seq, 5u);
}

TEST_F(StreamLogTest, TrimmerRemovesRecordsOlderThanTheRetention) {
  model::Item a1 = Item("a", "1"), b1 = Item("b", "1"), c1 = Item("c", "1");
  Write(nullptr, &a1);
  clock_.Advance(3600 * 1000);
  Write(nullptr, &b1);
  clock_.Advance(kRetentionMs - 1000);  // a is 25 h old, b 24 h minus a second
  Write(nullptr, &c1);
  Trimmer trimmer(*log_);
  auto stats = trimmer.TrimOnce(clock_.NowMs());
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->records, 1u);
  auto records = ReadAll();
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].keys.at("pk").scalar(), "b");
  clock_.Advance(kRetentionMs + 1);
  stats = trimmer.TrimOnce(clock_.NowMs());
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->records, 2u);
  EXPECT_TRUE(ReadAll().empty());
  // Every record is gone, yet numbers never go back after a restart.
  Open();
  EXPECT_EQ(log_->last_allocated(), 3u);
}

TEST_F(StreamLogTest, TrimmerForgetsDroppedStreamsAfterTheRetention) {
  DroppedStream d;
  d.table_id = 9;
  d.table_name = "gone";
  d.key.hash = {"pk", model::ValueType::kS};
  d.info = {kStart, model::StreamViewType::kKeysOnly, kStart + 5, std::nullopt};
  storage::WriteBatch batch(*store_);
  batch.Put(storage::Family::kStreams, DroppedKey(9, kStart), EncodeDropped(d));
  ASSERT_TRUE(store_->Write(batch).ok());
  Trimmer trimmer(*log_);
  auto stats = trimmer.TrimOnce(kStart + kRetentionMs);
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->dropped_streams, 0u);
  stats = trimmer.TrimOnce(kStart + 6 + kRetentionMs);
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->dropped_streams, 1u);
  auto left = store_->Get(storage::Family::kStreams, DroppedKey(9, kStart));
  ASSERT_TRUE(left.ok());
  EXPECT_FALSE(*left);
}

}  // namespace
}  // namespace ttlstore::streams
