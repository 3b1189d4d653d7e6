// Stream record encoding, key layout and the names the Streams API shows.
#include <gtest/gtest.h>

#include "streams/shard_iterator.h"
#include "streams/stream_names.h"
#include "streams/stream_record.h"

namespace ttlstore::streams {
namespace {

model::AttributeValue S(const std::string& s) { return model::AttributeValue::String(s); }

TEST(StreamRecordTest, RoundTripsEveryField) {
  StreamRecord r;
  r.event = EventName::kModify;
  r.service = false;
  r.view_type = model::StreamViewType::kNewAndOldImages;
  r.created_ms = 1795335014523;
  r.size_bytes = 42;
  r.keys = {{"pk", S("a")}};
  r.new_image = model::Item{{"pk", S("a")}, {"v", S("new")}};
  r.old_image = model::Item{{"pk", S("a")}, {"v", S("old")}};
  auto back = DecodeRecord(EncodeRecord(r));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->event, EventName::kModify);
  EXPECT_EQ(back->view_type, model::StreamViewType::kNewAndOldImages);
  EXPECT_EQ(back->created_ms, r.created_ms);
  EXPECT_EQ(back->size_bytes, 42u);
  EXPECT_EQ(back->keys, r.keys);
  EXPECT_EQ(back->new_image, r.new_image);
  EXPECT_EQ(back->old_image, r.old_image);
  EXPECT_EQ(RecordCreatedMs(EncodeRecord(r)), r.created_ms);
}

TEST(StreamRecordTest, ServiceRemoveWithoutImagesRoundTrips) {
  StreamRecord r;
  r.event = EventName::kRemove;
  r.service = true;
  r.keys = {{"pk", S("x")}};
  auto back = DecodeRecord(EncodeRecord(r));
  ASSERT_TRUE(back);
  EXPECT_TRUE(back->service);
  EXPECT_FALSE(back->new_image);
  EXPECT_FALSE(back->old_image);
}

TEST(StreamRecordTest, RejectsCorruptBytes) {
  StreamRecord r;
  r.keys = {{"pk", S("x")}};
  std::string bytes = EncodeRecord(r);
  EXPECT_FALSE(DecodeRecord(""));
  EXPECT_FALSE(DecodeRecord(bytes.substr(0, bytes.size() - 1)));
  EXPECT_FALSE(DecodeRecord(bytes + "x"));
  std::string bad_event = bytes;
  bad_event[1] = 9;
  EXPECT_FALSE(DecodeRecord(bad_event));
}

TEST(StreamRecordTest, KeysSortByTableStreamShardThenSequence) {
  EXPECT_LT(RecordKey(1, 5, 0, 9), RecordKey(1, 5, 0, 10));
  EXPECT_LT(RecordKey(1, 5, 0, 0xffffffff), RecordKey(1, 5, 1, 1));
  EXPECT_LT(RecordKey(1, 5, 7, 1), RecordKey(1, 6, 0, 1));
  EXPECT_LT(RecordKey(1, 6, 0, 1), RecordKey(2, 0, 0, 0));
  uint32_t table, shard;
  int64_t ms;
  uint64_t seq;
  ASSERT_TRUE(ParseRecordKey(RecordKey(3, 1795335014523, 2, 77), &table, &ms, &shard, &seq));
  EXPECT_EQ(table, 3u);
  EXPECT_EQ(ms, 1795335014523);
  EXPECT_EQ(shard, 2u);
  EXPECT_EQ(seq, 77u);
  EXPECT_EQ(RecordKey(3, 9, 2, 77).rfind(ShardPrefix(3, 9, 2), 0), 0u);
  EXPECT_GT(PrefixEnd(ShardPrefix(3, 9, 2)), RecordKey(3, 9, 2, UINT64_MAX));
  EXPECT_LT(PrefixEnd(ShardPrefix(3, 9, 2)), RecordKey(3, 9, 3, 0) + "\x01");
}

TEST(StreamRecordTest, DroppedStreamRoundTrips) {
  DroppedStream d;
  d.table_id = 7;
  d.table_name = "orders";
  d.key.hash = {"pk", model::ValueType::kS};
  d.key.range = model::KeyElement{"sk", model::ValueType::kN};
  d.info = {123456, model::StreamViewType::kOldImage, 999999, std::nullopt};
  auto back = DecodeDropped(DroppedKey(7, 123456), EncodeDropped(d));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->table_id, 7u);
  EXPECT_EQ(back->table_name, "orders");
  EXPECT_EQ(back->key.range->name, "sk");
  EXPECT_EQ(back->info.created_ms, 123456);
  EXPECT_EQ(back->info.view_type, model::StreamViewType::kOldImage);
  EXPECT_EQ(back->info.disabled_ms, 999999);
}

TEST(StreamNamesTest, LabelsAreIsoMillisAndParseBack) {
  EXPECT_EQ(StreamLabel(1795335014523), "2026-11-22T08:10:14.523");
  EXPECT_EQ(StreamLabel(0), "1970-01-01T00:00:00.000");
  EXPECT_EQ(ParseStreamLabel("2026-11-22T08:10:14.523"), 1795335014523);
  EXPECT_FALSE(ParseStreamLabel("2026-13-22T08:10:14.523"));
  EXPECT_FALSE(ParseStreamLabel("2026-11-22T08:10:14.52"));
  EXPECT_FALSE(ParseStreamLabel("2026-11-22 08:10:14.523"));
}

TEST(StreamNamesTest, SequenceNumbersAre21DigitsAndSortAsText) {
  EXPECT_EQ(SequenceNumberText(1), "000000000000000000001");
  EXPECT_EQ(SequenceNumberText(UINT64_MAX).size(), 21u);
  EXPECT_LT(SequenceNumberText(9), SequenceNumberText(10));
  EXPECT_EQ(ParseSequenceNumber("000000000000000000042"), 42u);
  EXPECT_EQ(ParseSequenceNumber("18446744073709551615"), UINT64_MAX);
  EXPECT_FALSE(ParseSequenceNumber("18446744073709551616"));
  EXPECT_FALSE(ParseSequenceNumber("00000000000000000004x"));
  EXPECT_FALSE(ParseSequenceNumber(""));
}

TEST(StreamNamesTest, ShardIdsNameTheirStream) {
  std::string id = ShardIdText(1795335014523, 0x1f);
  EXPECT_EQ(id, "shardId-00000001795335014523-0000001f");
  EXPECT_EQ(ParseShardId(id, 1795335014523), 0x1fu);
  EXPECT_FALSE(ParseShardId(id, 1795335014524));
  EXPECT_FALSE(ParseShardId("shardId-00000001795335014523-0000001g", 1795335014523));
}

TEST(ShardIteratorTest, RoundTripsAndRefusesEdits) {
  ShardIterator it{"arn:aws:dynamodb:us-east-1:000000000000:table/t/stream/x", 3, 99, 12345};
  std::string text = EncodeShardIterator(it);
  auto back = DecodeShardIterator(text);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->stream_arn, it.stream_arn);
  EXPECT_EQ(back->shard_no, 3u);
  EXPECT_EQ(back->position, 99u);
  EXPECT_EQ(back->issued_ms, 12345);
  EXPECT_FALSE(DecodeShardIterator("garbage"));
  EXPECT_FALSE(DecodeShardIterator(text.substr(0, text.size() - 2)));
  std::string other_arn = "X" + text;
  EXPECT_FALSE(DecodeShardIterator(other_arn));
  for (size_t i = text.size() - 56; i < text.size(); ++i) {
    std::string edited = text;
    edited[i] = edited[i] == '0' ? '1' : '0';
    EXPECT_FALSE(DecodeShardIterator(edited)) << "edit at " << i;
  }
}

}  // namespace
}  // namespace ttlstore::streams
