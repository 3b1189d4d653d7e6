#include "ops/stats_recount.h"

#include <map>
#include <string>

#include <spdlog/spdlog.h>

#include "index/index_key.h"
#include "model/item_size.h"
#include "storage/item_codec.h"
#include "storage/key_codec.h"

namespace ttlstore::ops {
namespace {

// The count and size of the items (or index entries) under `prefix` of `family`.
Result<storage::TableStats> Sum(const storage::Store& store, std::optional<storage::Family> family,
                                const std::string& prefix) {
  storage::TableStats sums;
  auto it = family ? store.ScanFamily(*family, prefix, storage::PrefixSuccessor(prefix), false,
                                      nullptr)
                   : store.ScanItems(prefix, storage::PrefixSuccessor(prefix), false, nullptr);
  for (; it->Valid(); it->Next()) {
    auto item = storage::DecodeItem(it->value());
    if (!item) return Error::Internal("an item that does not decode under " + prefix);
    ++sums.item_count;
    sums.size_bytes += static_cast<int64_t>(model::ItemSize(*item));
  }
  RETURN_IF_ERROR(it->status());
  return sums;
}

Status Recount(storage::Store& store, TableCatalog& catalog, const model::TableDescriptor& t) {
  storage::TableStats items;
  std::map<uint32_t, storage::TableStats> entries;
  if (!t.tablestore) {
    ASSIGN_OR_RETURN(counted, Sum(store, std::nullopt, storage::TablePrefix(t.id)));
    items = counted;
    for (const auto& ix : t.indexes) {
      ASSIGN_OR_RETURN(sums, Sum(store, storage::Family::kIndexes, index::IndexPrefix(t.id, ix.id)));
      entries[ix.id] = sums;
    }
  }
  ASSIGN_OR_RETURN(kept, store.GetStats(t.id));
  std::map<uint32_t, storage::TableStats> kept_entries;
  for (const auto& [id, sums] : entries) {
    ASSIGN_OR_RETURN(stats, store.GetIndexStats(t.id, id));
    kept_entries[id] = stats;
  }
  ASSIGN_OR_RETURN(committed, catalog.CommitWithTable(
      t.id,
      [&](model::TableDescriptor& stored) {
        // Another process counted it meanwhile, or its indexes changed under the scan (it is
        // counted again at the next start).
        if (stored.size_rule >= model::kItemSizeRule || stored.indexes.size() != t.indexes.size()) {
          return false;
        }
        stored.size_rule = model::kItemSizeRule;
        return true;
      },
      [&](storage::WriteBatch& batch) {
        if (t.tablestore) return;
        batch.AddStats(t.id, items.item_count - kept.item_count,
                       items.size_bytes - kept.size_bytes);
        for (const auto& [id, sums] : entries) {
          const storage::TableStats& old = kept_entries[id];
          batch.AddIndexStats(t.id, id, sums.item_count - old.item_count,
                              sums.size_bytes - old.size_bytes);
        }
      }));
  if (committed && !t.tablestore) {
    spdlog::info("event=stats_recounted table={} items={} bytes={} bytes_before={}", t.name,
                 items.item_count, items.size_bytes, kept.size_bytes);
  }
  return Status::Ok();
}

}  // namespace

Result<size_t> RecountStaleStats(storage::Store& store, TableCatalog& catalog) {
  size_t counted = 0;
  for (const auto& t : catalog.AllTables()) {
    if (t->size_rule >= model::kItemSizeRule) continue;
    RETURN_IF_ERROR(Recount(store, catalog, *t));
    ++counted;
  }
  return counted;
}

}  // namespace ttlstore::ops
