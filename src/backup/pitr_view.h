// A table as it was at a past time, read from a view of its items and a view of its PITR change
// log (storage/pitr_log.h). RestoreTableToPointInTime (backup/pitr_restore.h) and
// ExportTableToPointInTime (backup/table_export.h) both read through here.
//
// The change log is an undo log: each record is an item's image before a write, dated by the
// write. So, with the views opened in this order — the items first, then the log from some time
// on — the table as it was at T is the items of the first view with every item the log shows
// written after T replaced by the image its first such write recorded. A write committed between
// the two openings is in the log view, so it is undone either way.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"
#include "storage/store.h"

namespace ttlstore::backup {

struct PitrViews {
  std::unique_ptr<storage::ItemIterator> items;
  std::unique_ptr<storage::ItemIterator> log;
};

// Opens the item view of table `table_id`, then its log view from records dated at or after
// `log_from_ms`. REQUIRES: every write dated before `log_from_ms` that the reader must see has
// committed (the callers wait kCommitLagMs past the times they name).
PitrViews OpenPitrViews(storage::Store& store, uint32_t table_id, int64_t log_from_ms);

// Calls `fn(item_key, encoded_item)` for every item present at `at_ms` (writes dated at or
// before it count), in no particular order. REQUIRES: the log view starts at or before
// at_ms + 1. Stops at the first error `fn` returns, and when `cancel` is set (Internal error).
Status ForEachItemAt(PitrViews& views, int64_t at_ms, const std::atomic<bool>& cancel,
                     const std::function<Status(std::string_view, const std::string&)>& fn);

// One item an incremental export reports: written at least once in [from, to).
struct ItemChange {
  std::string key;                       // the full item key
  std::optional<std::string> old_image;  // encoded, as it was just before `from` (nullopt: absent)
  std::optional<std::string> new_image;  // encoded, as it was just before `to` (nullopt: absent)
  int64_t last_write_ms = 0;             // the last write in the period
};

// Calls `fn` for every item written in [from_ms, to_ms), in key order. REQUIRES: the log view
// starts at or before from_ms. Reads the whole log view and the whole item view (the images of
// items not written since `to` are the current ones).
Status ForEachChange(PitrViews& views, int64_t from_ms, int64_t to_ms,
                     const std::atomic<bool>& cancel,
                     const std::function<Status(const ItemChange&)>& fn);

}  // namespace ttlstore::backup
