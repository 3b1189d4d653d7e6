// The records and rules of Tablestore local transactions without storage (ops/txn_state.h): the
// state's bytes round-trip and skip later fields, ids are 32 lowercase hex digits, and a
// transaction expires at its lifetime or when idle, never while a request holds it.
#include "ops/txn_state.h"

#include <gtest/gtest.h>

#include "storage/tagged_fields.h"

namespace ttlstore::ops {
namespace {

TxnLimits Limits(int64_t lifetime_ms, int64_t idle_ms) {
  TxnLimits l;
  l.lifetime_ms = lifetime_ms;
  l.idle_ms = idle_ms;
  return l;
}

TxnState State() {
  TxnState s;
  s.table_id = 7;
  s.table_name = "t";
  s.partition = std::string("\0\x01p", 3);
  s.partition_value = model::CellValue::Blob(std::string("\xff\0", 2));
  s.started_ms = 1000;
  s.last_used_ms = 1500;
  s.held_until_ms = 0;
  s.bytes_written = 4096;
  s.records = 3;
  return s;
}

TEST(TxnState, RoundTripsAndSkipsFieldsOfLaterVersions) {
  TxnState s = State();
  s.held_until_ms = 61'000;
  s.holder = "0123456789abcdef0123456789abcdef";
  std::string bytes = EncodeTxnState(s);
  storage::PutField(&bytes, 99, "later");
  auto back = DecodeTxnState(bytes);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->table_id, 7u);
  EXPECT_EQ(back->table_name, "t");
  EXPECT_EQ(back->partition, s.partition);
  EXPECT_TRUE(back->partition_value == s.partition_value);
  EXPECT_EQ(back->started_ms, 1000);
  EXPECT_EQ(back->last_used_ms, 1500);
  EXPECT_EQ(back->held_until_ms, 61'000);
  EXPECT_EQ(back->holder, s.holder);
  EXPECT_EQ(back->bytes_written, 4096u);
  EXPECT_EQ(back->records, 3u);
  s.partition_value = model::CellValue::Integer(-5);
  back = DecodeTxnState(EncodeTxnState(s));
  ASSERT_TRUE(back.has_value());
  EXPECT_TRUE(back->partition_value == model::CellValue::Integer(-5));
}

TEST(TxnState, BytesItDidNotWriteDoNotDecode) {
  std::string bytes = EncodeTxnState(State());
  EXPECT_FALSE(DecodeTxnState(bytes.substr(0, bytes.size() - 1)).has_value());
  std::string bad;
  storage::PutField(&bad, 1, "not a varint \xff");
  EXPECT_FALSE(DecodeTxnState(bad).has_value());
}

TEST(TxnState, WellFormedIdsAre32LowercaseHexDigits) {
  EXPECT_TRUE(WellFormedTxnId("0123456789abcdef0123456789abcdef"));
  EXPECT_FALSE(WellFormedTxnId("0123456789ABCDEF0123456789abcdef"));
  EXPECT_FALSE(WellFormedTxnId("0123456789abcdef0123456789abcde"));
  EXPECT_FALSE(WellFormedTxnId(""));
  EXPECT_FALSE(WellFormedTxnId("fake_transaction_id_0123456789ab"));
}

TEST(TxnState, ExpiresAtItsLifetimeOrWhenIdleWhicheverIsFirst) {
  TxnState s = State();  // started 1000, last used 1500
  s.last_used_ms = 1000;
  EXPECT_FALSE(TxnExpired(s, Limits(60'000, 10'000), 10'999));
  EXPECT_TRUE(TxnExpired(s, Limits(60'000, 10'000), 11'000));  // idle
  s.last_used_ms = 55'000;
  EXPECT_FALSE(TxnExpired(s, Limits(60'000, 10'000), 60'999));
  EXPECT_TRUE(TxnExpired(s, Limits(60'000, 10'000), 61'000));  // lifetime, though used lately
}

TEST(TxnState, NeverExpiresWhileARequestHoldsIt) {
  TxnState s = State();
  s.held_until_ms = 120'000;
  EXPECT_TRUE(TxnHeld(s, 119'999));
  EXPECT_FALSE(TxnExpired(s, Limits(60'000, 60'000), 119'999));
  EXPECT_FALSE(TxnHeld(s, 120'000));  // the hold lapsed (its request's process died)
  EXPECT_TRUE(TxnExpired(s, Limits(60'000, 60'000), 120'000));
}

TEST(TxnState, RecordKeysKeepEachTransactionsRecordsTogetherAndInOrder) {
  const std::string id = "0123456789abcdef0123456789abcdef";
  EXPECT_TRUE(TxnWriteKey(id, "row").starts_with(TxnWritePrefix(id)));
  EXPECT_LT(TxnRecordKey(id, 9), TxnRecordKey(id, 10));
  EXPECT_LT(TxnRecordKey(id, 255), TxnRecordKey(id, 256));
  EXPECT_TRUE(TxnRecordKey(id, 1).starts_with(TxnRecordPrefix(id)));
  for (const std::string& key : {TxnStateKey(id), TxnLockKey("p"), TxnWriteKey(id, "r"),
                                 TxnRecordKey(id, 0)}) {
    EXPECT_TRUE(key.starts_with(kTxnPrefix)) << key;  // DropAll's range
  }
}

}  // namespace
}  // namespace ttlstore::ops
