#include "check/consistency.h"

#include <atomic>
#include <thread>

#include "index/index_key.h"
#include "model/expiry.h"
#include "model/item_size.h"
#include "ops/table_ops.h"
#include "ops_test_util.h"
#include "storage/item_codec.h"
#include "storage/key_codec.h"
#include "streams/stream_log.h"
#include "streams/stream_names.h"
#include "streams/row_record.h"
#include "streams/stream_record.h"
#include "ttl/backfill.h"

namespace ttlstore::check {
namespace {

constexpr int64_t kNowMs = 1795305600000;  // 2026-11-22T00:00:00Z

class ConsistencyTest : public ops::OpsTest {
 protected:
  void SetUp() override {
    OpsTest::SetUp();
    catalog_ = std::make_unique<ops::TableCatalog>(*store_, clock_);
    model::TableDescriptor spec;
    spec.name = "sessions";
    spec.key.hash = {"pk", model::ValueType::kS};
    spec.attribute_definitions = {spec.key.hash};
    ASSERT_TRUE(catalog_->Create(spec).ok());
    auto t = catalog_->SetTimeToLive("sessions", true, "expires");
    ASSERT_TRUE(t.ok());
    ASSERT_TRUE(ttl::ExpiryBackfiller(*catalog_, *ops_).RunNow((*t)->id).ok());
    sessions_ = *catalog_->Find("sessions");
  }
  void PutSession(const std::string& pk, int64_t expires_s) {
    model::Item item{{"pk", S(pk)}, {"expires", N(std::to_string(expires_s))}};
    ASSERT_TRUE(ops_->Put(sessions_, item, nullptr).ok());
  }
  CheckReport Check() {
    auto r = CheckStore(*store_, clock_.NowMs());
    EXPECT_TRUE(r.ok());
    return r.ok() ? *r : CheckReport{};
  }

  FakeClock clock_{kNowMs};
  std::unique_ptr<ops::TableCatalog> catalog_;
  model::TableDescriptor sessions_;
};

TEST_F(ConsistencyTest, AStoreWrittenThroughItemOpsIsWhole) {
  PutSession("a", kNowMs / 1000 + 60);
  PutSession("b", kNowMs / 1000 + 120);
  PutSession("b", kNowMs / 1000 + 180);  // moves its entry
  ASSERT_TRUE(ops_->Delete(sessions_, {{"pk", S("a")}}, nullptr).ok());
  CheckReport r = Check();
  EXPECT_TRUE(r.ok()) << (r.problems.empty() ? "" : r.problems[0]);
  EXPECT_EQ(r.tables, 1u);
  EXPECT_EQ(r.items, 1u);
  EXPECT_EQ(r.expiry_entries, 1u);
  EXPECT_EQ(r.stale_expiry_entries, 0u);
}

TEST_F(ConsistencyTest, AnItemWithoutItsExpiryEntryIsAProblem) {
  PutSession("a", kNowMs / 1000 + 60);
  storage::WriteBatch batch(*store_);
  std::string key = storage::ItemKey(sessions_.id, S("a"), nullptr);
  batch.DeleteExpiry((kNowMs / 1000 + 60) * 1000, key);
  ASSERT_TRUE(store_->Write(batch).ok());
  CheckReport r = Check();
  ASSERT_EQ(r.problem_count, 1u);
  EXPECT_NE(r.problems[0].find("no expiry-index entry"), std::string::npos) << r.problems[0];
}

TEST_F(ConsistencyTest, ItemsTooOldToExpireNeedNoEntry) {
  constexpr int64_t kSixYearsS = 6LL * 365 * 24 * 3600;
  PutSession("ancient", kNowMs / 1000 - kSixYearsS);
  storage::WriteBatch batch(*store_);  // what the sweeper does with its entry (D4)
  batch.DeleteExpiry((kNowMs / 1000 - kSixYearsS) * 1000,
                     storage::ItemKey(sessions_.id, S("ancient"), nullptr));
  ASSERT_TRUE(store_->Write(batch).ok());
  CheckReport r = Check();
  EXPECT_TRUE(r.ok()) << (r.problems.empty() ? "" : r.problems[0]);
}

TEST_F(ConsistencyTest, StatsThatDisagreeWithTheItemsAreAProblem) {
  PutSession("a", kNowMs / 1000 + 60);
  storage::WriteBatch batch(*store_);
  batch.AddStats(sessions_.id, 1, 0);
  ASSERT_TRUE(store_->Write(batch).ok());
  CheckReport r = Check();
  ASSERT_EQ(r.problem_count, 1u);
  EXPECT_NE(r.problems[0].find("stats say 2 items"), std::string::npos) << r.problems[0];
}

TEST_F(ConsistencyTest, ItemsOfAMissingTableAreOrphans) {
  storage::WriteBatch batch(*store_);
  batch.PutItem(storage::ItemKey(999, S("x"), nullptr), "");
  ASSERT_TRUE(store_->Write(batch).ok());
  CheckReport r = Check();
  ASSERT_EQ(r.problem_count, 1u);
  EXPECT_NE(r.problems[0].find("table id 999"), std::string::npos) << r.problems[0];
}

TEST_F(ConsistencyTest, EntriesLeftWhenTtlWasTurnedOffAreOnlyCountedAsStale) {
  PutSession("a", kNowMs / 1000 + 60);
  auto off = catalog_->SetTimeToLive("sessions", false, "expires");
  ASSERT_TRUE(off.ok());
  CheckReport r = Check();
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.expiry_entries, 1u);
  EXPECT_EQ(r.stale_expiry_entries, 1u);
}

// A write that looked the table up before DeleteTable and commits after it must not leave an
// orphan: Delete drops the data only once no request holds the table.
TEST_F(ConsistencyTest, DeleteTableWaitsForRequestsStillHoldingTheTable) {
  ops::TablePtr in_flight = catalog_->Find("sessions");
  ASSERT_TRUE(in_flight);
  std::atomic<bool> deleted{false};
  std::thread deleter([&] {
    ASSERT_TRUE(catalog_->Delete("sessions").ok());
    deleted = true;
  });
  while (catalog_->Find("sessions")) std::this_thread::yield();  // gone from lookups at once
  auto again = catalog_->Create(sessions_);
  ASSERT_FALSE(again.ok());  // the name stays taken until the drop
  EXPECT_EQ(again.error().code(), ErrorCode::kResourceInUse);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(deleted.load());
  // The in-flight request's write commits now, then the request lets go of the table.
  ASSERT_TRUE(ops_->Put(*in_flight, {{"pk", S("late")}}, nullptr).ok());
  in_flight.reset();
  deleter.join();
  EXPECT_TRUE(deleted.load());
  CheckReport r = Check();
  EXPECT_TRUE(r.ok()) << (r.problems.empty() ? "" : r.problems[0]);
  EXPECT_EQ(r.items, 0u);
}


// ---- Secondary indexes ----------------------------------------------------------------------

// A table "orders" with a GSI on g (INCLUDE n) whose entries the tests break on purpose.
class IndexConsistencyTest : public ConsistencyTest {
 protected:
  void SetUp() override {
    ConsistencyTest::SetUp();
    model::TableDescriptor spec;
    spec.name = "orders";
    spec.key.hash = {"pk", model::ValueType::kS};
    spec.attribute_definitions = {spec.key.hash, {"g", model::ValueType::kS}};
    model::SecondaryIndex g;
    g.name = "by_g";
    g.id = 1;
    g.global = true;
    g.key.hash = {"g", model::ValueType::kS};
    g.projection = model::ProjectionType::kInclude;
    g.non_key_attributes = {"n"};
    spec.indexes.push_back(g);
    spec.next_index_id = 2;
    auto t = catalog_->Create(spec);
    ASSERT_TRUE(t.ok());
    orders_ = **t;
  }
  void PutOrder(const std::string& pk, const std::string& g, const std::string& n = "1") {
    model::Item item{{"pk", S(pk)}, {"g", S(g)}, {"n", N(n)}, {"x", S("unprojected")}};
    ASSERT_TRUE(ops_->Put(*catalog_->FindById(orders_.id), item, nullptr).ok());
  }
  std::string ItemKeyOf(const std::string& pk) { return storage::ItemKey(orders_.id, S(pk), nullptr); }
  std::string EntryKeyOf(const std::string& pk, const std::string& g) {
    model::AttributeValue gv = S(g);
    index::IndexKeyValues keys{{&gv}, {}};
    return index::EntryKey(orders_.id, orders_.indexes[0], keys, ItemKeyOf(pk));
  }
  void Write(const std::function<void(storage::WriteBatch&)>& f) {
    storage::WriteBatch batch(*store_);
    f(batch);
    ASSERT_TRUE(store_->Write(batch).ok());
  }
  // Only the first problem matters: asserts there is one and that it says `what`.
  void ExpectProblem(const std::string& what) {
    CheckReport r = Check();
    ASSERT_GE(r.problem_count, 1u);
    bool found = false;
    for (const auto& p : r.problems) found = found || p.find(what) != std::string::npos;
    EXPECT_TRUE(found) << "no problem says \"" << what << "\"; first: " << r.problems[0];
  }
  model::TableDescriptor orders_;
};

TEST_F(IndexConsistencyTest, EntriesWrittenByTheWritePathAreWhole) {
  PutOrder("a", "G1");
  PutOrder("b", "G1", "2");
  PutOrder("a", "G2");  // moves a's entry
  ASSERT_TRUE(ops_->Put(*catalog_->FindById(orders_.id), {{"pk", S("c")}}, nullptr).ok());
  CheckReport r = Check();
  EXPECT_TRUE(r.ok()) << r.problems[0];
  EXPECT_EQ(r.index_entries, 2u);
}

TEST_F(IndexConsistencyTest, AnEntryWhoseItemIsGoneIsAnOrphan) {
  PutOrder("a", "G1");
  Write([&](storage::WriteBatch& b) {  // the item alone, as a torn delete would leave it
    b.DeleteItem(ItemKeyOf("a"));
    b.AddStats(orders_.id, -1, -static_cast<int64_t>(model::ItemSize(
                                   {{"pk", S("a")}, {"g", S("G1")}, {"n", N("1")},
                                    {"x", S("unprojected")}})));
  });
  ExpectProblem("points to no item (orphan)");
}

TEST_F(IndexConsistencyTest, AnEntryLeftAtTheOldIndexKeyIsStale) {
  PutOrder("a", "G1");
  // The item moves to G2 but only the item is rewritten.
  model::Item moved{{"pk", S("a")}, {"g", S("G2")}, {"n", N("1")}, {"x", S("unprojected")}};
  Write([&](storage::WriteBatch& b) { b.PutItem(ItemKeyOf("a"), storage::EncodeItem(moved)); });
  ExpectProblem("is not its item's entry");
  ExpectProblem("1 of its 1 items that belong in this ACTIVE index have no entry");
}

TEST_F(IndexConsistencyTest, AnEntryWithAnotherProjectionIsStale) {
  PutOrder("a", "G1", "1");
  model::Item old_projection{{"pk", S("a")}, {"g", S("G1")}, {"n", N("9")}};
  Write([&](storage::WriteBatch& b) {
    b.Put(storage::Family::kIndexes, EntryKeyOf("a", "G1"), storage::EncodeItem(old_projection));
  });
  ExpectProblem("holds another projection than its item's");
}

TEST_F(IndexConsistencyTest, AnActiveIndexMissingAnEntryIsAProblem) {
  PutOrder("a", "G1");
  model::Item projected{{"pk", S("a")}, {"g", S("G1")}, {"n", N("1")}};
  Write([&](storage::WriteBatch& b) {
    b.Delete(storage::Family::kIndexes, EntryKeyOf("a", "G1"));
    b.AddIndexStats(orders_.id, 1, -1, -static_cast<int64_t>(model::ItemSize(projected)));
  });
  CheckReport r = Check();
  ASSERT_EQ(r.problem_count, 1u);
  EXPECT_NE(r.problems[0].find("have no entry"), std::string::npos) << r.problems[0];
}

TEST_F(IndexConsistencyTest, ACreatingIndexNeedsOnlyCorrectEntries) {
  PutOrder("a", "G1");
  PutOrder("b", "G2");
  ASSERT_TRUE(catalog_->Update("orders", [](model::TableDescriptor& t) {
    model::SecondaryIndex h = t.indexes[0];
    h.name = "by_g_new";
    h.id = t.next_index_id++;
    h.status = model::IndexStatus::kCreating;  // nothing backfilled yet
    t.indexes.push_back(h);
    return Status::Ok();
  }).ok());
  CheckReport r = Check();
  EXPECT_TRUE(r.ok()) << r.problems[0];
}

TEST_F(IndexConsistencyTest, IndexStatsThatDisagreeWithTheEntriesAreAProblem) {
  PutOrder("a", "G1");
  Write([&](storage::WriteBatch& b) { b.AddIndexStats(orders_.id, 1, 1, 0); });
  CheckReport r = Check();
  ASSERT_EQ(r.problem_count, 1u);
  EXPECT_NE(r.problems[0].find("stats say 2 entries"), std::string::npos) << r.problems[0];
}

TEST_F(IndexConsistencyTest, EntriesOfAnUnknownIndexOrTableAreOrphans) {
  PutOrder("a", "G1");
  model::SecondaryIndex ghost = orders_.indexes[0];
  ghost.id = 7;
  model::AttributeValue g = S("G1");
  index::IndexKeyValues keys{{&g}, {}};
  Write([&](storage::WriteBatch& b) {
    b.Put(storage::Family::kIndexes, index::EntryKey(orders_.id, ghost, keys, ItemKeyOf("a")),
          storage::EncodeItem({{"pk", S("a")}, {"g", g}}));
  });
  ExpectProblem("index entries under index id 7, which is neither one of its indexes nor being "
                "removed (orphans)");
  Write([&](storage::WriteBatch& b) {
    b.Put(storage::Family::kIndexes,
          index::EntryKey(999, ghost, keys, storage::ItemKey(999, S("a"), nullptr)), "");
  });
  ExpectProblem("index entries under table id 999, which names no table (orphans)");
}

TEST_F(IndexConsistencyTest, AMultiAttributeKeyIsCheckedWhole) {
  // A GSI keyed by (g, x) and n: changing n alone must move the entry.
  ASSERT_TRUE(catalog_->Update("orders", [](model::TableDescriptor& t) {
    model::SecondaryIndex m;
    m.name = "by_g_x_n";
    m.id = t.next_index_id++;
    m.global = true;
    m.key.hash = {"g", model::ValueType::kS};
    m.key.more_hash = {{"x", model::ValueType::kS}};
    m.key.range = model::KeyElement{"n", model::ValueType::kN};
    m.projection = model::ProjectionType::kKeysOnly;
    t.attribute_definitions.push_back({"x", model::ValueType::kS});
    t.attribute_definitions.push_back({"n", model::ValueType::kN});
    t.indexes.push_back(m);
    return Status::Ok();
  }).ok());
  PutOrder("a", "G1", "1");
  PutOrder("b", "G1", "2");
  CheckReport r = Check();
  EXPECT_TRUE(r.ok()) << r.problems[0];
  EXPECT_EQ(r.index_entries, 4u);
  model::Item moved{{"pk", S("a")}, {"g", S("G1")}, {"n", N("5")}, {"x", S("unprojected")}};
  Write([&](storage::WriteBatch& b) { b.PutItem(ItemKeyOf("a"), storage::EncodeItem(moved)); });
  ExpectProblem("index by_g_x_n: entry");
  ExpectProblem("is not its item's entry");
}

TEST_F(IndexConsistencyTest, EntriesOfAnIndexBeingRemovedAreOnlyCounted) {
  PutOrder("a", "G1");
  PutOrder("b", "G2");
  // UpdateTable Delete's first step: the index leaves the descriptor, its id is recorded, the
  // entries are still there (index_builder.h removes them next).
  ASSERT_TRUE(catalog_->Update("orders", [](model::TableDescriptor& t) {
    t.dropped_index_ids.push_back(t.indexes[0].id);
    t.indexes.clear();
    return Status::Ok();
  }).ok());
  CheckReport r = Check();
  EXPECT_TRUE(r.ok()) << r.problems[0];
  EXPECT_EQ(r.dropped_index_entries, 2u);
}

// ---- TTL backfill -----------------------------------------------------------------------

TEST_F(ConsistencyTest, APendingTtlBackfillOnATableWithoutTtlIsAProblem) {
  model::TableDescriptor broken = *catalog_->FindById(sessions_.id);
  broken.ttl_enabled = false;
  broken.ttl_backfill.emplace();
  storage::WriteBatch batch(*store_);
  batch.PutTable(broken);
  ASSERT_TRUE(store_->Write(batch).ok());
  CheckReport r = Check();
  ASSERT_EQ(r.problem_count, 1u);
  EXPECT_NE(r.problems[0].find("TTL backfill is pending but TTL is not enabled"),
            std::string::npos) << r.problems[0];
}

// ---- Streams ------------------------------------------------------------------------------

class StreamConsistencyTest : public ConsistencyTest {
 protected:
  void SetUp() override {
    ConsistencyTest::SetUp();
    ASSERT_TRUE(catalog_->Update("sessions", [&](model::TableDescriptor& t) {
      model::StreamInfo st;
      st.created_ms = kNowMs - 1000;
      st.view_type = model::StreamViewType::kNewAndOldImages;
      t.streams.push_back(st);
      return Status::Ok();
    }).ok());
    sessions_ = *catalog_->Find("sessions");
    stream_ms_ = kNowMs - 1000;
  }
  int64_t stream_ms_ = 0;
};

TEST_F(StreamConsistencyTest, RecordsOfADroppedTableAreKeptWithItsStream) {
  PutSession("a", kNowMs / 1000 + 60);
  PutSession("b", kNowMs / 1000 + 60);
  CheckReport live = Check();
  EXPECT_TRUE(live.ok()) << live.problems[0];
  EXPECT_EQ(live.stream_records, 2u);
  ASSERT_TRUE(catalog_->Delete("sessions").ok());  // writes the `02` entry in its batch
  CheckReport r = Check();
  EXPECT_TRUE(r.ok()) << r.problems[0];
  EXPECT_EQ(r.stream_records, 2u);
}

TEST_F(StreamConsistencyTest, RecordsOfADroppedTableWithoutItsStreamEntryAreAProblem) {
  PutSession("a", kNowMs / 1000 + 60);
  ASSERT_TRUE(catalog_->Delete("sessions").ok());
  storage::WriteBatch batch(*store_);  // what the old two-batch DeleteTable lost in a crash
  batch.Delete(storage::Family::kStreams, streams::DroppedKey(sessions_.id, stream_ms_));
  ASSERT_TRUE(store_->Write(batch).ok());
  CheckReport r = Check();
  ASSERT_EQ(r.problem_count, 1u);
  EXPECT_NE(r.problems[0].find("have no `02` entry"), std::string::npos) << r.problems[0];
}

TEST_F(StreamConsistencyTest, RecordsOfAStreamTheTableDoesNotListAreAProblem) {
  PutSession("a", kNowMs / 1000 + 60);
  ASSERT_TRUE(catalog_->Update("sessions", [](model::TableDescriptor& t) {
    t.streams.clear();
    return Status::Ok();
  }).ok());
  CheckReport r = Check();
  ASSERT_EQ(r.problem_count, 1u);
  EXPECT_NE(r.problems[0].find("which it does not list"), std::string::npos) << r.problems[0];
}

TEST_F(StreamConsistencyTest, RecordsPastRetentionAreOnlyCounted) {
  PutSession("a", kNowMs / 1000 + 60);
  ASSERT_TRUE(catalog_->Update("sessions", [](model::TableDescriptor& t) {
    t.streams.clear();  // as UpdateTable prunes a stream disabled for more than 24 hours
    return Status::Ok();
  }).ok());
  // Records are dated by the system clock (ItemOps' stream log has no fake one).
  auto r = CheckStore(*store_, SystemClock().NowMs() + streams::kRetentionMs + 1);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->ok()) << r->problems[0];
  EXPECT_EQ(r->expired_stream_records, 1u);
}

TEST_F(StreamConsistencyTest, ADroppedStreamEntryOfALiveTableIsAProblem) {
  streams::DroppedStream d;
  d.table_id = sessions_.id;
  d.table_name = sessions_.name;
  d.key = sessions_.key;
  d.info = sessions_.streams[0];
  d.info.disabled_ms = kNowMs;
  storage::WriteBatch batch(*store_);
  batch.Put(storage::Family::kStreams, streams::DroppedKey(sessions_.id, stream_ms_),
            streams::EncodeDropped(d));
  ASSERT_TRUE(store_->Write(batch).ok());
  CheckReport r = Check();
  ASSERT_EQ(r.problem_count, 1u);
  EXPECT_NE(r.problems[0].find("names this live table"), std::string::npos) << r.problems[0];
}

TEST_F(StreamConsistencyTest, ARecordOfTheOtherKindOrThatDoesNotDecodeIsAProblem) {
  // A Tablestore row record in a DynamoDB table's stream (docs/formats.md, "Streams").
  streams::RowRecord r;
  r.created_ms = kNowMs;
  r.expires_ms = kNowMs + 3'600'000;
  r.primary_key = {{"pk", model::CellValue::String("a")}};
  storage::WriteBatch batch(*store_);
  batch.Put(storage::Family::kStreams, streams::RecordKey(sessions_.id, stream_ms_, 0, 1),
            streams::EncodeRowRecord(r));
  batch.Put(storage::Family::kStreams, streams::RecordKey(sessions_.id, stream_ms_, 0, 2),
            std::string("\x02\x09\x00\x00", 4));  // a row record with no action 9
  ASSERT_TRUE(store_->Write(batch).ok());
  CheckReport rep = Check();
  ASSERT_EQ(rep.problem_count, 2u);
  EXPECT_NE(rep.problems[0].find("a Tablestore stream record in a DynamoDB table's stream"),
            std::string::npos) << rep.problems[0];
  EXPECT_NE(rep.problems[1].find("does not decode"), std::string::npos) << rep.problems[1];
}

TEST_F(StreamConsistencyTest, NumbersThatDoNotRiseWithTheShardAreAProblem) {
  PutSession("a", kNowMs / 1000 + 60);  // shard 0
  auto shard0 = store_->ScanFamily(storage::Family::kStreams,
                                   streams::ShardPrefix(sessions_.id, stream_ms_, 0),
                                   streams::PrefixEnd(streams::ShardPrefix(sessions_.id, stream_ms_, 0)),
                                   false, nullptr);
  ASSERT_TRUE(shard0->Valid());
  std::string value(shard0->value());
  uint32_t tid, shard;
  int64_t ms;
  uint64_t seq;
  ASSERT_TRUE(streams::ParseRecordKey(shard0->key(), &tid, &ms, &shard, &seq));
  // The same record again in shard 1, with the same number: a record in two shards.
  storage::WriteBatch batch(*store_);
  batch.Put(storage::Family::kStreams, streams::RecordKey(sessions_.id, stream_ms_, 1, seq), value);
  ASSERT_TRUE(store_->Write(batch).ok());
  CheckReport r = Check();
  ASSERT_EQ(r.problem_count, 1u);
  EXPECT_NE(r.problems[0].find("is not above"), std::string::npos) << r.problems[0];
}

TEST_F(StreamConsistencyTest, AShardStateEntryOfAForgottenStreamIsAProblem) {
  storage::WriteBatch batch(*store_);
  batch.Put(storage::Family::kStreams, streams::ShardStateKey(sessions_.id, stream_ms_),
            streams::EncodeShardState(3));
  ASSERT_TRUE(store_->Write(batch).ok());
  CheckReport live = Check();
  EXPECT_TRUE(live.ok()) << live.problems[0];
  ASSERT_TRUE(catalog_->Delete("sessions").ok());  // keeps the stream: `02` written
  CheckReport kept = Check();
  EXPECT_TRUE(kept.ok()) << kept.problems[0];
  storage::WriteBatch forget(*store_);  // the trimmer forgetting `02` but not `04`
  forget.Delete(storage::Family::kStreams, streams::DroppedKey(sessions_.id, stream_ms_));
  ASSERT_TRUE(store_->Write(forget).ok());
  CheckReport r = Check();
  ASSERT_EQ(r.problem_count, 1u);
  EXPECT_NE(r.problems[0].find("shard-state entry"), std::string::npos) << r.problems[0];
}

}  // namespace
}  // namespace ttlstore::check
