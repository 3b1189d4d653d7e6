// Point-in-time recovery's pure rules (backup/pitr_window.h), the change-log record layout
// (storage/pitr_log.h), and that writes to a PITR table log their old images
// (ops/item_ops.h).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "backup/pitr_window.h"
#include "common/clock.h"
#include "ops_test_util.h"
#include "storage/item_codec.h"
#include "storage/key_codec.h"
#include "storage/pitr_log.h"

namespace ttlstore {
namespace {

using backup::ChooseRestorePoint;
using backup::HistoryStillReaches;
using backup::kDayMs;
using backup::RestorableWindow;
using backup::UndoSet;
using backup::WindowOf;

TEST(PitrLog, KeyBytesAreTableTimeSeqThenItemKeySuffix) {
  std::string item_key = std::string("\x00\x00\x00\x07", 4) + "pk";
  std::string key = storage::PitrLogKey(7, 0x0102030405060708, 9, item_key);
  EXPECT_EQ(key, std::string("\x00\x00\x00\x07"
                             "\x01\x02\x03\x04\x05\x06\x07\x08"
                             "\x00\x00\x00\x00\x00\x00\x00\x09"
                             "pk",
                             22));
}

TEST(PitrLog, RecordsOfATableSortByTimeThenSequence) {
  std::string k = std::string("\x00\x00\x00\x01", 4) + "zz";
  std::string a = storage::PitrLogKey(1, 1000, 5, k);
  std::string b = storage::PitrLogKey(1, 1000, 6, std::string("\x00\x00\x00\x01", 4) + "aa");
  std::string c = storage::PitrLogKey(1, 1001, 1, k);
  EXPECT_LT(a, b);
  EXPECT_LT(b, c);
  EXPECT_LT(c, storage::PitrLogTableEnd(1));
  EXPECT_GE(a, storage::PitrLogTableBegin(1));
  EXPECT_LT(storage::PitrLogBound(1, 999), a);
  EXPECT_LE(storage::PitrLogBound(1, 1000), a);
  EXPECT_GT(storage::PitrLogBound(1, 1001), b);
}

TEST(PitrLog, RecordsRoundTrip) {
  std::string item_key = std::string("\x00\x00\x00\x02", 4) + "key";
  std::string image = "encoded";
  storage::PitrLogRecord r;
  ASSERT_TRUE(storage::DecodePitrRecord(storage::PitrLogKey(2, 77, 3, item_key),
                                        storage::EncodePitrValue(&image), &r));
  EXPECT_EQ(r.table_id, 2u);
  EXPECT_EQ(r.time_ms, 77);
  EXPECT_EQ(r.seq, 3u);
  EXPECT_EQ(r.item_key, item_key);
  ASSERT_TRUE(r.old_image.has_value());
  EXPECT_EQ(*r.old_image, image);
  ASSERT_TRUE(storage::DecodePitrRecord(storage::PitrLogKey(2, 77, 4, item_key),
                                        storage::EncodePitrValue(nullptr), &r));
  EXPECT_FALSE(r.old_image.has_value());
}

TEST(PitrLog, MalformedRecordsAreRefused) {
  std::string item_key = std::string("\x00\x00\x00\x02", 4) + "key";
  std::string key = storage::PitrLogKey(2, 77, 3, item_key);
  storage::PitrLogRecord r;
  EXPECT_FALSE(storage::DecodePitrRecord(key.substr(0, 19), std::string(1, '\0'), &r));
  EXPECT_FALSE(storage::DecodePitrRecord(key.substr(0, 20), std::string(1, '\0'), &r));
  EXPECT_FALSE(storage::DecodePitrRecord(key, "", &r));
  EXPECT_FALSE(storage::DecodePitrRecord(key, std::string("\x00x", 2), &r));  // absent + bytes
  EXPECT_FALSE(storage::DecodePitrRecord(key, std::string(1, '\x01'), &r));    // image missing
  EXPECT_FALSE(storage::DecodePitrRecord(key, std::string("\x02x", 2), &r));   // unknown tag
}

TEST(PitrWindow, EarliestIsWhenLoggingBeganWhileTheWindowIsNotFull) {
  model::PitrSettings p;
  p.enabled_ms = 1'000'000;
  RestorableWindow w = WindowOf(p, 1'005'000, 24 * 3'600'000);
  EXPECT_EQ(w.earliest_ms, 1'000'000);
  EXPECT_EQ(w.latest_ms, 1'005'000);
}

TEST(PitrWindow, TheServerWindowCapsTheRecoveryPeriod) {
  model::PitrSettings p;
  p.enabled_ms = 1;
  p.recovery_period_days = 35;
  const int64_t now = 100 * kDayMs;
  EXPECT_EQ(WindowOf(p, now, 24 * 3'600'000).earliest_ms, now - kDayMs);
  EXPECT_EQ(backup::TrimCutoffMs(p, now, 24 * 3'600'000), now - kDayMs);
  // A shorter RecoveryPeriodInDays than the server's window wins.
  p.recovery_period_days = 2;
  EXPECT_EQ(WindowOf(p, now, 35 * kDayMs).earliest_ms, now - 2 * kDayMs);
}

// What a restore or export started over after an outage asks of its source table.
TEST(PitrWindow, HistoryStillReachesOnlyTheSameTableWithPitrWithinItsWindow) {
  model::TableDescriptor t;
  t.id = 7;
  t.pitr = model::PitrSettings{};
  t.pitr->enabled_ms = 1'000'000;
  const int64_t now = 1'000'000 + 2 * 3'600'000, window = 3'600'000;  // one hour kept
  EXPECT_TRUE(HistoryStillReaches(&t, 7, now - 1000, now, window));
  EXPECT_TRUE(HistoryStillReaches(&t, 7, now - window, now, window));
  EXPECT_FALSE(HistoryStillReaches(&t, 7, now - window - 1, now, window));  // trimmed
  EXPECT_FALSE(HistoryStillReaches(&t, 7, now + 1, now, window));            // not yet
  EXPECT_FALSE(HistoryStillReaches(&t, 8, now - 1000, now, window));  // dropped, name reused
  EXPECT_FALSE(HistoryStillReaches(nullptr, 7, now - 1000, now, window));  // dropped
  t.pitr.reset();
  EXPECT_FALSE(HistoryStillReaches(&t, 7, now - 1000, now, window));  // PITR turned off
}

TEST(PitrWindow, APendingEnableHasAnEmptyWindowAtNow) {
  model::PitrSettings p;
  p.enabled_ms = 0;
  RestorableWindow w = WindowOf(p, 5000, kDayMs);
  EXPECT_EQ(w.earliest_ms, 5000);
  EXPECT_EQ(w.latest_ms, 5000);
}

TEST(PitrWindow, RestorePointsOutsideTheWindowAreInvalidRestoreTimes) {
  RestorableWindow w{1'600'000'000'000, 1'600'000'100'000};
  EXPECT_EQ(*ChooseRestorePoint(w, 1'600'000'050'000, false), 1'600'000'050'000);
  EXPECT_EQ(*ChooseRestorePoint(w, w.earliest_ms, false), w.earliest_ms);
  EXPECT_EQ(*ChooseRestorePoint(w, w.latest_ms, false), w.latest_ms);
  EXPECT_EQ(*ChooseRestorePoint(w, std::nullopt, true), w.latest_ms);
  auto early = ChooseRestorePoint(w, w.earliest_ms - 1, false);
  ASSERT_FALSE(early.ok());
  EXPECT_EQ(early.error().code(), ErrorCode::kInvalidRestoreTime);
  EXPECT_EQ(early.error().message(),
            "RestoreDateTime '2020-09-13T12:26:39Z' must be within EarliestRestorableDateTime "
            "'2020-09-13T12:26:40Z' and LatestRestorableDateTime '2020-09-13T12:28:20Z'");
  EXPECT_FALSE(ChooseRestorePoint(w, w.latest_ms + 1, false).ok());
}

TEST(PitrUndo, TheFirstRecordAfterThePointGivesTheImageAtThePoint) {
  UndoSet undo(1000);
  auto rec = [](int64_t t, const std::string& key, std::optional<std::string> image) {
    storage::PitrLogRecord r;
    r.time_ms = t;
    r.item_key = key;
    r.old_image = std::move(image);
    return r;
  };
  undo.Add(rec(999, "a", "a0"));    // before the point: already in the state at the point
  undo.Add(rec(1000, "a", "a1"));   // at the point: the write is part of the state
  undo.Add(rec(1001, "a", "a2"));   // first after: its old image is the state at the point
  undo.Add(rec(1002, "a", "a3"));   // later: ignored
  undo.Add(rec(1005, "b", std::nullopt));  // created after the point: absent at the point
  undo.Add(rec(1006, "b", "b1"));
  auto& images = undo.images();
  ASSERT_EQ(images.size(), 2u);
  EXPECT_EQ(images["a"], std::optional<std::string>("a2"));
  EXPECT_EQ(images["b"], std::nullopt);
}

class PitrOpsTest : public ops::OpsTest {};

TEST_F(PitrOpsTest, WritesToAPitrTableLogTheirOldImagesInTheirBatch) {
  FakeClock clock(42'000);
  ops_->set_pitr_clock(&clock);
  Put(Row("a", "1"));  // no PITR yet: no record
  table_.pitr.emplace();
  table_.pitr->enabled_ms = 1;
  model::Item changed = Row("a", "1");
  changed["v"] = S("changed");
  Put(changed);
  clock.Advance(5);
  model::Item key = {{"pk", S("a")}, {"sk", N("1")}};
  ASSERT_TRUE(ops_->Delete(table_, key, nullptr).ok());
  Put(Row("b", "2"));
  std::vector<storage::PitrLogRecord> records;
  auto it = store_->ScanFamily(storage::Family::kPitr, storage::PitrLogTableBegin(1),
                               storage::PitrLogTableEnd(1), false, nullptr);
  for (; it->Valid(); it->Next()) {
    storage::PitrLogRecord r;
    ASSERT_TRUE(storage::DecodePitrRecord(it->key(), it->value(), &r));
    records.push_back(r);
  }
  ASSERT_EQ(records.size(), 3u);
  std::string a_key = ops::EncodedKey(table_, key);
  EXPECT_EQ(records[0].time_ms, 42'000);
  EXPECT_EQ(records[0].item_key, a_key);
  EXPECT_EQ(storage::DecodeItem(*records[0].old_image), Row("a", "1"));
  EXPECT_EQ(records[1].time_ms, 42'005);
  EXPECT_EQ(storage::DecodeItem(*records[1].old_image), changed);
  EXPECT_GT(records[1].seq, records[0].seq);
  EXPECT_FALSE(records[2].old_image.has_value());  // b was created
  // Dropping the table drops its log in the same batch.
  storage::WriteBatch drop(*store_);
  drop.DropTable(table_);
  ASSERT_TRUE(store_->Write(drop).ok());
  auto after = store_->ScanFamily(storage::Family::kPitr, storage::PitrLogTableBegin(1),
                                  storage::PitrLogTableEnd(1), false, nullptr);
  EXPECT_FALSE(after->Valid());
}

}  // namespace
}  // namespace ttlstore
