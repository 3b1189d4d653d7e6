#include "ops/query_scan.h"

#include "common/coding.h"
#include "model/expiry.h"
#include "model/item_size.h"
#include "ops/item_ops.h"
#include "storage/item_codec.h"
#include "storage/key_codec.h"

namespace ttlstore::ops {
namespace {

using SortOp = expr::KeyCondition::SortOp;

// The smallest key after `key` itself; item keys are self-delimiting, so nothing else sorts
// between them.
std::string After(std::string key) {
  key.push_back('\0');
  return key;
}

// [lower, upper) of item keys satisfying the key condition.
std::pair<std::string, std::string> QueryRange(const model::TableDescriptor& table,
                                               const expr::KeyCondition& c) {
  std::string prefix = storage::PartitionPrefix(table.id, c.partition);
  std::string end = storage::PrefixSuccessor(prefix);
  auto with = [&](const model::AttributeValue& v) {
    std::string k = prefix;
    storage::AppendKeyValue(&k, v);
    return k;
  };
  switch (c.sort_op) {
    case SortOp::kNone: return {prefix, end};
    case SortOp::kEq: return {with(c.sort1), After(with(c.sort1))};
    case SortOp::kLt: return {prefix, with(c.sort1)};
    case SortOp::kLe: return {prefix, After(with(c.sort1))};
    case SortOp::kGt: return {After(with(c.sort1)), end};
    case SortOp::kGe: return {with(c.sort1), end};
    case SortOp::kBetween: return {with(c.sort1), After(with(c.sort2))};
    case SortOp::kBeginsWith: {
      std::string k = prefix;
      storage::AppendKeyPrefix(&k, c.sort1);
      return {k, storage::PrefixSuccessor(k)};
    }
  }
  return {prefix, end};
}

Result<Page> ReadPage(const storage::Store& store, const model::TableDescriptor& table,
                      std::string lower, std::string upper, bool forward,
                      const PageOptions& options) {
  std::string start;
  if (options.exclusive_start_key) start = EncodedKey(table, *options.exclusive_start_key);
  auto it = store.ScanItems(std::move(lower), std::move(upper), !forward,
                            options.exclusive_start_key ? &start : nullptr);
  Page page;
  int64_t limit = options.limit.value_or(INT64_MAX);
  bool hiding = model::HidesExpired(table);
  for (; it->Valid(); it->Next()) {
    auto item = storage::DecodeItem(it->value());
    if (!item) return Error::Internal("corrupt item record");
    if (hiding && model::IsHiddenExpired(table, *item, options.now_ms)) continue;
    ++page.scanned_count;
    page.bytes_read += model::ItemSize(*item);
    bool stop = static_cast<int64_t>(page.scanned_count) >= limit ||
                page.bytes_read >= kMaxPageBytes;
    if (stop) page.last_evaluated_key = KeyOf(table, *item);
    if (!options.filter || options.filter->Evaluate(*item)) page.items.push_back(std::move(*item));
    if (stop) break;
  }
  RETURN_IF_ERROR(it->status());
  return page;
}

}  // namespace

Result<Page> Query(const storage::Store& store, const model::TableDescriptor& table,
                   const expr::KeyCondition& condition, bool forward, const PageOptions& options) {
  auto [lower, upper] = QueryRange(table, condition);
  return ReadPage(store, table, std::move(lower), std::move(upper), forward, options);
}

Result<Page> Scan(const storage::Store& store, const model::TableDescriptor& table,
                  uint32_t segment, uint32_t total_segments, const PageOptions& options) {
  std::string table_prefix = storage::TablePrefix(table.id);
  std::string lower = table_prefix, upper = storage::PrefixSuccessor(table_prefix);
  if (total_segments > 1) {
    // Keys start with table id . hash, so a hash range is a key range.
    uint64_t from = storage::SegmentStart(segment, total_segments);
    uint64_t to = storage::SegmentStart(segment + 1, total_segments);
    PutFixed32BE(&lower, static_cast<uint32_t>(from));
    if (to <= UINT32_MAX) {
      upper = table_prefix;
      PutFixed32BE(&upper, static_cast<uint32_t>(to));
    }
  }
  return ReadPage(store, table, std::move(lower), std::move(upper), /*forward=*/true, options);
}

uint32_t SegmentOfKey(const std::string& encoded_key, uint32_t total_segments) {
  std::string_view v(encoded_key);
  uint32_t table_id, hash;
  if (!GetFixed32BE(&v, &table_id) || !GetFixed32BE(&v, &hash)) return 0;
  // The estimate can be one off at a boundary because SegmentStart rounds down; settle it.
  auto s = static_cast<uint32_t>((uint64_t{hash} * total_segments) >> 32);
  while (s + 1 < total_segments && storage::SegmentStart(s + 1, total_segments) <= hash) ++s;
  while (s > 0 && storage::SegmentStart(s, total_segments) > hash) --s;
  return s;
}

}  // namespace ttlstore::ops
