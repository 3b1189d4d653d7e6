// Shard rollover and lineage: the pure decisions (streams/shard_rollover.h) and StreamLog's
// shards over time with a FakeClock: rollover on the write path, the open shard kept across a
// restart and after trimming, writers that commit in a closed shard, trimmed parents.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "common/clock.h"
#include "streams/shard_rollover.h"
#include "streams/stream_log.h"
#include "streams/stream_names.h"
#include "streams/trimmer.h"

namespace ttlstore::streams {
namespace {

constexpr int64_t kStart = 1795335014523;
constexpr int64_t kPeriod = 1000;

TEST(ShardRollover, AnEmptyShardNeverRollsOver) {
  EXPECT_FALSE(RollsOver(OpenShard{3, std::nullopt}, kStart + 10 * kPeriod, kPeriod));
}

TEST(ShardRollover, RollsOverOnceThePeriodHasPassedSinceTheFirstRecord) {
  OpenShard open{0, kStart};
  EXPECT_FALSE(RollsOver(open, kStart, kPeriod));
  EXPECT_FALSE(RollsOver(open, kStart + kPeriod - 1, kPeriod));
  EXPECT_TRUE(RollsOver(open, kStart + kPeriod, kPeriod));
  EXPECT_TRUE(RollsOver(open, kStart + 50 * kPeriod, kPeriod));
}

TEST(ShardRollover, AZeroPeriodNeverRollsOver) {
  EXPECT_FALSE(RollsOver(OpenShard{0, kStart}, kStart + kRetentionMs, 0));
}

TEST(ShardRollover, ShardStateKeyRoundTrips) {
  std::string key = ShardStateKey(7, kStart);
  ASSERT_EQ(key.size(), 13u);
  EXPECT_EQ(key[0], kShardStatePrefix);
  uint32_t table = 0;
  int64_t ms = 0;
  ASSERT_TRUE(ParseShardStateKey(key, &table, &ms));
  EXPECT_EQ(table, 7u);
  EXPECT_EQ(ms, kStart);
  EXPECT_FALSE(ParseShardStateKey(key.substr(1), &table, &ms));
  EXPECT_EQ(DecodeShardState(EncodeShardState(0x01020304)), 0x01020304u);
  EXPECT_FALSE(DecodeShardState("abc"));
  // The entry sorts after every record and dropped-stream key of the family.
  EXPECT_GT(key, std::string(1, kDroppedPrefix) + std::string(12, '\xff'));
}

TEST(ShardLineage, TheChildOfShardKIsShardKPlusOneWhenListed) {
  std::vector<ShardInfo> all{{2, 10, 20}, {3, 25, 30}, {4, std::nullopt, std::nullopt}};
  auto children = ChildShards(all, 2);
  ASSERT_EQ(children.size(), 1u);
  EXPECT_EQ(children[0].shard_no, 3u);
  EXPECT_EQ(ChildShards(all, 3).at(0).shard_no, 4u);
  EXPECT_TRUE(ChildShards(all, 4).empty());  // the open shard has no child yet
  // A parent trimmed away still has its child.
  EXPECT_EQ(ChildShards(all, 1).at(0).shard_no, 2u);
}

TEST(ShardLineage, SequenceNumbersBelongToOneShard) {
  std::vector<ShardInfo> all{{0, 10, 20}, {1, 25, 30}, {2, 40, std::nullopt}};
  // Shard 1 owns 21..39 (numbers between its neighbours may be other streams' or trimmed).
  EXPECT_FALSE(SequenceInShard(all, 1, 20, 50));
  EXPECT_TRUE(SequenceInShard(all, 1, 21, 50));
  EXPECT_TRUE(SequenceInShard(all, 1, 30, 50));
  EXPECT_TRUE(SequenceInShard(all, 1, 39, 50));
  EXPECT_FALSE(SequenceInShard(all, 1, 40, 50));
  EXPECT_FALSE(SequenceInShard(all, 0, 25, 50));
  EXPECT_TRUE(SequenceInShard(all, 0, 1, 50));  // trimmed records of the first shard
  EXPECT_TRUE(SequenceInShard(all, 2, 50, 50));
  EXPECT_FALSE(SequenceInShard(all, 2, 51, 50));  // not handed out yet
}

class StreamShardsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("ttlstore_shards_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    Open();
    table_.id = 9;
    table_.name = "t";
    table_.key.hash = {"pk", model::ValueType::kS};
    table_.streams.push_back({kStart, model::StreamViewType::kKeysOnly, 0, std::nullopt});
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
    log_->set_rollover_ms(kPeriod);
  }
  void Add(storage::WriteBatch& batch, const std::string& pk) {
    model::Item item{{"pk", model::AttributeValue::String(pk)}};
    log_->AddRecord(batch, table_, nullptr, &item, false);
  }
  void Write(const std::string& pk) {
    storage::WriteBatch batch(*store_);
    Add(batch, pk);
    ASSERT_TRUE(store_->Write(batch).ok());
  }
  std::vector<ShardInfo> Shards() {
    auto r = log_->ListShards(table_.id, kStart);
    EXPECT_TRUE(r.ok());
    return r ? *r : std::vector<ShardInfo>{};
  }
  std::vector<uint32_t> ShardNumbers() {
    std::vector<uint32_t> out;
    for (const auto& s : Shards()) out.push_back(s.shard_no);
    return out;
  }
  std::vector<std::string> Keys(uint32_t shard) {
    auto r = log_->Read(table_.id, kStart, shard, 0, log_->StableLimit(), 1000);
    EXPECT_TRUE(r.ok());
    std::vector<std::string> out;
    if (r) {
      for (const auto& rec : r->records) out.push_back(rec.keys.at("pk").scalar());
    }
    return out;
  }

  FakeClock clock_{kStart};
  std::filesystem::path dir_;
  std::unique_ptr<storage::Store> store_;
  std::unique_ptr<StreamLog> log_;
  model::TableDescriptor table_;
};

TEST_F(StreamShardsTest, ANewStreamHasOneOpenShard) {
  EXPECT_EQ(ShardNumbers(), std::vector<uint32_t>{0});
  clock_.Advance(10 * kPeriod);  // no record: nothing to close
  Write("a");
  EXPECT_EQ(ShardNumbers(), std::vector<uint32_t>{0});
}

TEST_F(StreamShardsTest, TheFirstWriteAfterThePeriodOpensTheChild) {
  Write("a");
  clock_.Advance(kPeriod - 1);
  Write("b");
  clock_.Advance(1);
  Write("c");
  Write("d");
  clock_.Advance(kPeriod);
  Write("e");
  auto shards = Shards();
  ASSERT_EQ(shards.size(), 3u);
  EXPECT_EQ(Keys(0), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(Keys(1), (std::vector<std::string>{"c", "d"}));
  EXPECT_EQ(Keys(2), (std::vector<std::string>{"e"}));
  // Every number of a shard is below every number of its child.
  EXPECT_LT(*shards[0].last_seq, *shards[1].first_seq);
  EXPECT_LT(*shards[1].last_seq, *shards[2].first_seq);
}

TEST_F(StreamShardsTest, TheOpenShardSurvivesARestart) {
  Write("a");
  clock_.Advance(kPeriod);
  Write("b");  // opens shard 1
  Open();
  EXPECT_EQ(log_->open_shard(table_.id, kStart).shard_no, 1u);
  EXPECT_EQ(log_->open_shard(table_.id, kStart).first_record_ms, clock_.NowMs());
  Write("c");
  EXPECT_EQ(Keys(1), (std::vector<std::string>{"b", "c"}));
  clock_.Advance(kPeriod);
  Write("d");
  EXPECT_EQ(ShardNumbers(), (std::vector<uint32_t>{0, 1, 2}));
}

TEST_F(StreamShardsTest, TrimmedShardsDisappearButTheirNumbersAreNeverReused) {
  Write("a");
  clock_.Advance(kPeriod);
  Write("b");
  clock_.Advance(kPeriod);
  Write("c");  // shard 2
  Trimmer trimmer(*log_);
  // Shard 0's records are past retention, shard 1's not yet.
  ASSERT_TRUE(trimmer.TrimOnce(kStart + kRetentionMs + kPeriod / 2).ok());
  EXPECT_EQ(ShardNumbers(), (std::vector<uint32_t>{1, 2}));
  // Everything trimmed: the open shard is still listed, without records.
  clock_.Set(kStart + 3 * kRetentionMs);
  ASSERT_TRUE(trimmer.TrimOnce(clock_.NowMs()).ok());
  auto shards = Shards();
  ASSERT_EQ(shards.size(), 1u);
  EXPECT_EQ(shards[0].shard_no, 2u);
  EXPECT_FALSE(shards[0].first_seq);
  // After a restart the emptied open shard takes the next record; it is not shard 0 again.
  Open();
  EXPECT_EQ(log_->open_shard(table_.id, kStart).shard_no, 2u);
  Write("d");
  EXPECT_EQ(Keys(2), std::vector<std::string>{"d"});
  EXPECT_EQ(ShardNumbers(), std::vector<uint32_t>{2});
}

TEST_F(StreamShardsTest, AWriterThatCommitsLateKeepsItsClosedShardReceiving) {
  Write("a");
  clock_.Advance(kPeriod - 1);
  storage::WriteBatch late(*store_);
  Add(late, "late");  // number taken in shard 0, not committed yet
  clock_.Advance(1);
  Write("b");  // opens shard 1 and commits first
  EXPECT_EQ(ShardNumbers(), (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(log_->ShardsInFlight(table_.id, kStart), std::set<uint32_t>{0});
  EXPECT_TRUE(log_->HasInFlight(table_.id, kStart, 0));
  ASSERT_TRUE(store_->Write(late).ok());
  EXPECT_TRUE(log_->ShardsInFlight(table_.id, kStart).empty());
  EXPECT_EQ(Keys(0), (std::vector<std::string>{"a", "late"}));
  EXPECT_EQ(Keys(1), std::vector<std::string>{"b"});
}

TEST_F(StreamShardsTest, ABatchThatOpenedAChildButWasLostLeavesNoTrace) {
  Write("a");
  clock_.Advance(kPeriod);
  {
    storage::WriteBatch lost(*store_);
    Add(lost, "lost");  // would open shard 1: never written (a crash before the commit)
  }
  Open();
  EXPECT_EQ(ShardNumbers(), std::vector<uint32_t>{0});
  Write("b");  // the period has passed: this write opens shard 1 again
  EXPECT_EQ(ShardNumbers(), (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(Keys(1), std::vector<std::string>{"b"});
}

TEST_F(StreamShardsTest, AChildWhoseOpeningBatchWasLostIsStillFoundFromItsRecords) {
  Write("a");
  clock_.Advance(kPeriod);
  storage::WriteBatch opening(*store_);
  Add(opening, "opening");  // opens shard 1 and carries the shard-state entry
  Write("b");               // also shard 1, committed; `opening` never is
  Open();
  EXPECT_EQ(log_->open_shard(table_.id, kStart).shard_no, 1u);
  EXPECT_EQ(ShardNumbers(), (std::vector<uint32_t>{0, 1}));
  Write("c");
  EXPECT_EQ(Keys(1), (std::vector<std::string>{"b", "c"}));
}

TEST_F(StreamShardsTest, DroppedStreamsTakeTheirShardStateWithThem) {
  Write("a");
  clock_.Advance(kPeriod);
  Write("b");
  storage::WriteBatch drop(*store_);
  AddDroppedStreams(drop, table_, clock_.NowMs());
  ASSERT_TRUE(store_->Write(drop).ok());
  Trimmer trimmer(*log_);
  ASSERT_TRUE(trimmer.TrimOnce(clock_.NowMs() + kRetentionMs + 1).ok());
  auto state = store_->Get(storage::Family::kStreams, ShardStateKey(table_.id, kStart));
  ASSERT_TRUE(state.ok());
  EXPECT_FALSE(*state);
}

TEST_F(StreamShardsTest, DeleteTableDropsTheShardStateOfStreamsItDoesNotKeep) {
  Write("a");
  clock_.Advance(kPeriod);
  Write("b");                        // the kept stream has a 04 entry
  storage::WriteBatch old(*store_);  // one of a stream UpdateTable pruned from the list
  old.Put(storage::Family::kStreams, ShardStateKey(table_.id, kStart - 5 * kRetentionMs),
          EncodeShardState(4));
  ASSERT_TRUE(store_->Write(old).ok());
  storage::WriteBatch drop(*store_);
  AddDroppedStreams(drop, table_, clock_.NowMs());
  ASSERT_TRUE(store_->Write(drop).ok());
  auto pruned =
      store_->Get(storage::Family::kStreams, ShardStateKey(table_.id, kStart - 5 * kRetentionMs));
  ASSERT_TRUE(pruned.ok());
  EXPECT_FALSE(*pruned);
  auto kept = store_->Get(storage::Family::kStreams, ShardStateKey(table_.id, kStart));
  ASSERT_TRUE(kept.ok());
  ASSERT_TRUE(*kept);
  EXPECT_EQ(DecodeShardState(**kept), 1u);
}

TEST_F(StreamShardsTest, ATrimmedChildWhoseOpeningBatchFailedKeepsItsNumber) {
  Write("a");
  clock_.Advance(kPeriod);
  {
    storage::WriteBatch failed(*store_);
    Add(failed, "failed");  // opens shard 1 and carries its shard-state entry; never written
  }
  Write("b");  // shard 1, without a shard-state entry
  Trimmer trimmer(*log_);
  ASSERT_TRUE(trimmer.TrimOnce(clock_.NowMs() + kRetentionMs + 1).ok());  // trims everything
  Open();
  EXPECT_EQ(log_->open_shard(table_.id, kStart).shard_no, 1u);
  Write("c");
  EXPECT_EQ(ShardNumbers(), std::vector<uint32_t>{1});
}

}  // namespace
}  // namespace ttlstore::streams
