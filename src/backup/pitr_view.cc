#include "backup/pitr_view.h"

#include <map>

#include "backup/pitr_window.h"
#include "storage/key_codec.h"
#include "storage/pitr_log.h"

namespace ttlstore::backup {
namespace {

Status Cancelled() { return Error::Internal("cancelled by shutdown"); }

}  // namespace

PitrViews OpenPitrViews(storage::Store& store, uint32_t table_id, int64_t log_from_ms) {
  PitrViews views;
  const std::string prefix = storage::TablePrefix(table_id);
  // Items first, then the log (see the header): a write between the two is in the log.
  views.items = store.ScanItems(prefix, storage::PrefixSuccessor(prefix), false, nullptr);
  views.log = store.ScanFamily(storage::Family::kPitr, storage::PitrLogBound(table_id, log_from_ms),
                               storage::PitrLogTableEnd(table_id), false, nullptr);
  return views;
}

Status ForEachItemAt(PitrViews& views, int64_t at_ms, const std::atomic<bool>& cancel,
                     const std::function<Status(std::string_view, const std::string&)>& fn) {
  UndoSet undo(at_ms);
  for (auto& it = views.log; it->Valid(); it->Next()) {
    storage::PitrLogRecord r;
    if (!storage::DecodePitrRecord(it->key(), it->value(), &r)) {
      return Error::Internal("corrupt PITR change-log record");
    }
    undo.Add(std::move(r));
    if (cancel.load()) return Cancelled();
  }
  RETURN_IF_ERROR(views.log->status());
  auto& images = undo.images();
  for (auto& it = views.items; it->Valid(); it->Next()) {
    std::string key(it->key());
    if (auto undone = images.find(key); undone != images.end()) {
      if (undone->second) RETURN_IF_ERROR(fn(key, *undone->second));
      images.erase(undone);
    } else {
      RETURN_IF_ERROR(fn(key, std::string(it->value())));
    }
    if (cancel.load()) return Cancelled();
  }
  RETURN_IF_ERROR(views.items->status());
  // Items deleted since `at_ms`.
  for (const auto& [key, image] : images) {
    if (image) RETURN_IF_ERROR(fn(key, *image));
  }
  return Status::Ok();
}

Status ForEachChange(PitrViews& views, int64_t from_ms, int64_t to_ms,
                     const std::atomic<bool>& cancel,
                     const std::function<Status(const ItemChange&)>& fn) {
  struct Pending {
    ItemChange change;
    bool have_new = false;  // the new image came from a write at or after `to`
  };
  std::map<std::string, Pending> changes;
  for (auto& it = views.log; it->Valid(); it->Next()) {
    storage::PitrLogRecord r;
    if (!storage::DecodePitrRecord(it->key(), it->value(), &r)) {
      return Error::Internal("corrupt PITR change-log record");
    }
    if (cancel.load()) return Cancelled();
    if (r.time_ms < from_ms) continue;
    // Records come in time order, so the first record of a key in the period holds its image
    // before the period, and its first record at or after `to` its image at the period's end.
    if (r.time_ms < to_ms) {
      auto [pos, fresh] = changes.try_emplace(r.item_key);
      if (fresh) {
        pos->second.change.key = r.item_key;
        pos->second.change.old_image = std::move(r.old_image);
      }
      pos->second.change.last_write_ms = r.time_ms;
    } else if (auto pos = changes.find(r.item_key); pos != changes.end() && !pos->second.have_new) {
      pos->second.change.new_image = std::move(r.old_image);
      pos->second.have_new = true;
    }
  }
  RETURN_IF_ERROR(views.log->status());
  // The rest end the period as they are now: a merge with the item view (both in key order).
  auto next = changes.begin();
  auto& items = views.items;
  while (next != changes.end()) {
    if (next->second.have_new) {
      ++next;
      continue;
    }
    while (items->Valid() && items->key() < std::string_view(next->first)) items->Next();
    RETURN_IF_ERROR(items->status());
    if (items->Valid() && items->key() == std::string_view(next->first)) {
      next->second.change.new_image = std::string(items->value());
    }
    next->second.have_new = true;
    ++next;
    if (cancel.load()) return Cancelled();
  }
  for (const auto& [key, pending] : changes) {
    // Created and deleted again inside the period: nothing to report (Chosen, docs/formats.md).
    if (!pending.change.old_image && !pending.change.new_image) continue;
    RETURN_IF_ERROR(fn(pending.change));
  }
  return Status::Ok();
}

}  // namespace ttlstore::backup
