#include "ops/txn_state.h"

#include <algorithm>

#include "common/coding.h"
#include "storage/tagged_fields.h"

namespace ttlstore::ops {
namespace {

// Tags of EncodeTxnState (docs/formats.md, "Local transactions").
enum Tag : uint64_t {
  kTableId = 1, kTableName = 2, kPartition = 3, kValueType = 4, kValueInteger = 5,
  kValueBytes = 6, kStarted = 7, kLastUsed = 8, kHeldUntil = 9, kHolder = 10, kBytes = 11,
  kRecords = 12,
};

void PutSigned(std::string* out, uint64_t tag, int64_t v) {
  std::string p;
  PutVarsint64(&p, v);
  storage::PutField(out, tag, p);
}

}  // namespace

std::string EncodeTxnState(const TxnState& s) {
  std::string out;
  storage::PutVarintField(&out, kTableId, s.table_id);
  storage::PutField(&out, kTableName, s.table_name);
  storage::PutField(&out, kPartition, s.partition);
  storage::PutVarintField(&out, kValueType, static_cast<uint64_t>(s.partition_value.type));
  PutSigned(&out, kValueInteger, s.partition_value.integer);
  storage::PutField(&out, kValueBytes, s.partition_value.bytes);
  PutSigned(&out, kStarted, s.started_ms);
  PutSigned(&out, kLastUsed, s.last_used_ms);
  PutSigned(&out, kHeldUntil, s.held_until_ms);
  storage::PutField(&out, kHolder, s.holder);
  storage::PutVarintField(&out, kBytes, s.bytes_written);
  storage::PutVarintField(&out, kRecords, s.records);
  return out;
}

std::optional<TxnState> DecodeTxnState(std::string_view in) {
  TxnState s;
  while (!in.empty()) {
    uint64_t tag = 0;
    std::string_view p;
    if (!GetVarint64(&in, &tag) || !GetLengthPrefixed(&in, &p)) return std::nullopt;
    uint64_t u = 0;
    int64_t i = 0;
    std::string_view q = p;
    const bool is_unsigned = GetVarint64(&q, &u) && q.empty();
    q = p;
    const bool is_signed = GetVarsint64(&q, &i) && q.empty();
    switch (tag) {
      case kTableId:
        if (!is_unsigned) return std::nullopt;
        s.table_id = static_cast<uint32_t>(u);
        break;
      case kTableName: s.table_name = std::string(p); break;
      case kPartition: s.partition = std::string(p); break;
      case kValueType:
        if (!is_unsigned) return std::nullopt;
        s.partition_value.type = static_cast<model::CellType>(u);
        break;
      case kValueInteger:
        if (!is_signed) return std::nullopt;
        s.partition_value.integer = i;
        break;
      case kValueBytes: s.partition_value.bytes = std::string(p); break;
      case kStarted:
      case kLastUsed:
      case kHeldUntil:
        if (!is_signed) return std::nullopt;
        (tag == kStarted ? s.started_ms : tag == kLastUsed ? s.last_used_ms : s.held_until_ms) = i;
        break;
      case kHolder: s.holder = std::string(p); break;
      case kBytes:
      case kRecords:
        if (!is_unsigned) return std::nullopt;
        (tag == kBytes ? s.bytes_written : s.records) = u;
        break;
      default: break;  // a field of a later version
    }
  }
  return s;
}

Result<TxnState> ParseTxnState(std::string_view bytes) {
  auto state = DecodeTxnState(bytes);
  if (!state) return Error::Internal("corrupt local transaction record");
  return std::move(*state);
}

bool TxnHeld(const TxnState& s, int64_t now_ms) { return now_ms < s.held_until_ms; }

bool TxnExpired(const TxnState& s, const TxnLimits& limits, int64_t now_ms) {
  if (TxnHeld(s, now_ms)) return false;
  return now_ms >= std::min(s.started_ms + limits.lifetime_ms, s.last_used_ms + limits.idle_ms);
}

bool WellFormedTxnId(std::string_view id) {
  return id.size() == 32 && std::all_of(id.begin(), id.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

std::string TxnStateKey(std::string_view id) { return std::string(kTxnStatePrefix) + std::string(id); }
std::string TxnLockKey(std::string_view partition) {
  return "txn/p/" + std::string(partition);
}
std::string TxnWritePrefix(std::string_view id) { return "txn/w/" + std::string(id) + "/"; }
std::string TxnWriteKey(std::string_view id, std::string_view row_key) {
  return TxnWritePrefix(id) + std::string(row_key);
}
std::string TxnRecordPrefix(std::string_view id) { return "txn/s/" + std::string(id) + "/"; }
std::string TxnRecordKey(std::string_view id, uint64_t n) {
  std::string key = TxnRecordPrefix(id);
  PutFixed64BE(&key, n);
  return key;
}

}  // namespace ttlstore::ops
