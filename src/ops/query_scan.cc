#include "ops/query_scan.h"

#include "common/coding.h"
#include "index/index_key.h"
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

// [lower, upper) of item keys (or index entry keys) satisfying the key condition. An item key
// ends with its sort key; an index entry key goes on past the index sort key with the table
// key (and, for a multi-attribute key, further sort attributes), so its "just past this sort
// key" is the prefix successor instead.
std::pair<std::string, std::string> QueryRange(const model::TableDescriptor& table,
                                               const model::SecondaryIndex* index,
                                               const expr::KeyCondition& c) {
  std::string prefix = index ? index::IndexPartitionPrefix(table.id, index->id,
                                                           c.PartitionValues())
                             : storage::PartitionPrefix(table.id, c.partition);
  // A multi-attribute index key's equalities on its first sort attributes narrow the partition
  // to one key prefix; the sort-key condition is then on the next attribute's encoding.
  for (const model::AttributeValue& v : c.sort_prefix) storage::AppendKeyValue(&prefix, v);
  std::string end = storage::PrefixSuccessor(prefix);
  auto After = [index](std::string key) {
    return index ? storage::PrefixSuccessor(std::move(key)) : ops::After(std::move(key));
  };
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

// ReadPage for an index: entries hold projected items; LastEvaluatedKey holds the table key and
// the index key.
Result<Page> ReadIndexPage(const storage::Store& store, const model::TableDescriptor& table,
                           const model::SecondaryIndex& index, std::string lower,
                           std::string upper, bool forward, const PageOptions& options) {
  std::string start;
  if (const model::Item* esk = options.exclusive_start_key) {
    auto keys = index::IndexKeyOf(index, *esk);
    if (!keys) return Error::Internal("unchecked index start key");
    start = index::EntryKey(table.id, index, *keys, EncodedKey(table, *esk));
  }
  auto it = store.ScanFamily(storage::Family::kIndexes, std::move(lower), std::move(upper),
                             !forward, options.exclusive_start_key ? &start : nullptr);
  Page page;
  int64_t limit = options.limit.value_or(INT64_MAX);
  bool hiding = model::HidesExpired(table);
  // Hiding needs the TTL attribute; when the index does not hold it, the table's item does.
  bool need_base = options.fetch_base_items ||
                   (hiding && !index::Projects(table, index, table.ttl_attribute));
  for (; it->Valid(); it->Next()) {
    auto entry = storage::DecodeItem(it->value());
    if (!entry) return Error::Internal("corrupt index entry");
    std::optional<model::Item> base;
    if (need_base) {
      auto raw = store.GetItem(EncodedKey(table, *entry));
      if (!raw) return std::move(raw).error();
      if (!*raw) continue;  // deleted since this read's view of the index
      base = storage::DecodeItem(**raw);
      if (!base) return Error::Internal("corrupt item record");
    }
    if (hiding && model::IsHiddenExpired(table, base ? *base : *entry, options.now_ms)) continue;
    ++page.scanned_count;
    page.bytes_read += model::ItemSize(*entry);
    if (options.fetch_base_items) {
      size_t base_size = model::ItemSize(*base);
      page.bytes_read += base_size;
      page.base_bytes_read += base_size;
    }
    bool stop = static_cast<int64_t>(page.scanned_count) >= limit ||
                page.bytes_read >= kMaxPageBytes;
    if (stop) page.last_evaluated_key = index::EntryKeyAttributes(table, index, *entry);
    model::Item& out = options.fetch_base_items ? *base : *entry;
    if (!options.filter || options.filter->Evaluate(out)) page.items.push_back(std::move(out));
    if (stop) break;
  }
  RETURN_IF_ERROR(it->status());
  return page;
}

}  // namespace

Result<Page> Query(const storage::Store& store, const model::TableDescriptor& table,
                   const expr::KeyCondition& condition, bool forward, const PageOptions& options) {
  auto [lower, upper] = QueryRange(table, options.index, condition);
  if (options.index) {
    return ReadIndexPage(store, table, *options.index, std::move(lower), std::move(upper),
                         forward, options);
  }
  return ReadPage(store, table, std::move(lower), std::move(upper), forward, options);
}

Result<Page> Scan(const storage::Store& store, const model::TableDescriptor& table,
                  uint32_t segment, uint32_t total_segments, const PageOptions& options) {
  // Index entry keys start with table id . index id . hash, item keys with table id . hash:
  // either way a hash range is a key range.
  std::string table_prefix = options.index ? index::IndexPrefix(table.id, options.index->id)
                                           : storage::TablePrefix(table.id);
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
  if (options.index) {
    return ReadIndexPage(store, table, *options.index, std::move(lower), std::move(upper),
                         /*forward=*/true, options);
  }
  return ReadPage(store, table, std::move(lower), std::move(upper), /*forward=*/true, options);
}

uint32_t SegmentOfKey(const std::string& encoded_key, uint32_t total_segments) {
  std::string_view v(encoded_key);
  uint32_t table_id, hash;
  if (!GetFixed32BE(&v, &table_id) || !GetFixed32BE(&v, &hash)) return 0;
  return SegmentOfHash(hash, total_segments);
}

uint32_t SegmentOfHash(uint32_t hash, uint32_t total_segments) {
  // The estimate can be one off at a boundary because SegmentStart rounds down; settle it.
  auto s = static_cast<uint32_t>((uint64_t{hash} * total_segments) >> 32);
  while (s + 1 < total_segments && storage::SegmentStart(s + 1, total_segments) <= hash) ++s;
  while (s > 0 && storage::SegmentStart(s, total_segments) > hash) --s;
  return s;
}

}  // namespace ttlstore::ops
