#include "backup/pitr_restore.h"
#include "backup/restore_lease.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <map>
#include <thread>

#include "backup/pitr_view.h"
#include "backup/pitr_window.h"
#include "common/transient.h"
#include "model/expiry.h"
#include "storage/item_codec.h"
#include "storage/key_codec.h"
#include "storage/pitr_log.h"

namespace ttlstore::backup {
namespace {

// Items loaded per WriteBatch (as RestoreTableFromBackup).
constexpr size_t kRestoreBatch = 256;
constexpr size_t kTableIdBytes = 4;

Error TableNotFound(const std::string& name) {
  return Error(ErrorCode::kTableNotFound, "Table not found: " + name);
}

// The item image `encoded` as the target gets it, or nullopt when it is not restored (its TTL
// had expired by the restore point).
Result<std::optional<model::Item>> Restorable(const model::TableDescriptor& source,
                                              const std::string& encoded, int64_t restore_ms) {
  auto item = storage::DecodeItem(encoded);
  if (!item) return Error::Internal("corrupt item image in the PITR change log");
  if (source.ttl_enabled) {
    std::optional<int64_t> due = model::ExpiryDueMs(*item, source.ttl_attribute);
    if (due && model::IsExpiredAt(*due, restore_ms)) return std::optional<model::Item>();
  }
  return std::optional<model::Item>(std::move(*item));
}

Status Load(storage::Store& store, ops::ItemOps& items, const model::TableDescriptor& source,
            const model::TableDescriptor& target, int64_t restore_ms, PitrViews& views,
            const std::atomic<bool>& cancel, int64_t* loaded) {
  const std::string prefix = storage::TablePrefix(target.id);
  std::vector<RestoredItem> pending;
  RETURN_IF_ERROR(ForEachItemAt(
      views, restore_ms, cancel,
      [&](std::string_view source_key, const std::string& encoded) -> Status {
        ASSIGN_OR_RETURN(item, Restorable(source, encoded, restore_ms));
        if (!item) return Status::Ok();
        pending.push_back(
            {prefix + std::string(source_key.substr(kTableIdBytes)), std::move(*item)});
        ++*loaded;
        if (pending.size() == kRestoreBatch) {
          if (cancel.load()) return Error::Internal("restore cancelled by shutdown");
          return WriteRestoredItems(store, items, target, pending);
        }
        return Status::Ok();
      }));
  if (!pending.empty()) RETURN_IF_ERROR(WriteRestoredItems(store, items, target, pending));
  return Status::Ok();
}

}  // namespace

PitrRestores::PitrRestores(storage::Store& store, ops::TableCatalog& catalog, ops::ItemOps& items,
                           const Clock& clock, int64_t max_window_ms)
    : store_(store),
      catalog_(catalog),
      items_(items),
      clock_(clock),
      max_window_ms_(max_window_ms) {}

PitrRestores::~PitrRestores() {
  cancel_ = true;
  std::vector<Thread> threads;
  {
    std::lock_guard lock(mu_);
    threads.swap(threads_);
  }
  for (auto& t : threads) t.join();
}

Result<ops::TablePtr> PitrRestores::Start(const PitrRestoreRequest& request) {
  ops::TablePtr source = catalog_.Find(request.source);
  if (!source) return TableNotFound(request.source);
  if (!source->pitr) {
    return Error(ErrorCode::kPointInTimeRecoveryUnavailable,
                 "Point in time recovery is not enabled for table '" + request.source + "'");
  }
  RestorableWindow window = WindowOf(*source->pitr, clock_.NowMs(), max_window_ms_);
  ASSIGN_OR_RETURN(restore_ms, ChooseRestorePoint(window, request.restore_ms, request.use_latest));
  if (catalog_.Find(request.target) || catalog_.Find(request.target, ops::Front::kTablestore)) {
    return Error(ErrorCode::kTableAlreadyExists, "Table already exists: " + request.target);
  }
  model::RestoreSummary summary;
  summary.source_table_arn = request.source_arn;
  summary.restore_time_ms = restore_ms;
  ASSIGN_OR_RETURN(spec, RestoredDescriptorFrom(*source, std::move(summary), request.target,
                                                request.overrides));
  // Every write dated at or before the point must have committed before the views open.
  int64_t wait_ms = restore_ms + kCommitLagMs - clock_.NowMs();
  if (wait_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(wait_ms));
  // A copy, not the catalog's version: holding that would hold up the source's DeleteTable and
  // UpdateTable (they wait for older versions to be let go).
  model::TableDescriptor source_copy = *source;
  source.reset();
  return Launch(source_copy, std::move(spec), restore_ms);
}

Result<ops::TablePtr> PitrRestores::Launch(const model::TableDescriptor& source_desc,
                                           model::TableDescriptor spec, int64_t restore_ms) {
  const std::string target_name = spec.name;
  // Held until the restore's thread ends: another process starting meanwhile leaves the target.
  auto lease = std::make_shared<RestoreLease>(keeper_, target_name);
  if (!lease->held()) {
    return Error(ErrorCode::kTableAlreadyExists, "Table already exists: " + target_name);
  }
  // Items first, then the log of the writes after the point (backup/pitr_view.h).
  PitrViews views = OpenPitrViews(store_, source_desc.id, restore_ms + 1);
  auto created = catalog_.Create(std::move(spec));
  if (!created) {
    if (created.error().code() == ErrorCode::kResourceInUse) {
      return Error(ErrorCode::kTableAlreadyExists, "Table already exists: " + target_name);
    }
    return std::move(created).error();
  }
  ops::TablePtr target = *created;
  auto source = std::make_shared<const model::TableDescriptor>(source_desc);
  auto shared_views = std::make_shared<PitrViews>(std::move(views));
  std::lock_guard lock(mu_);
  threads_.emplace_back("pitr-restore", [this, source, target, restore_ms, shared_views,
                                         lease]() mutable {
    int64_t loaded = 0;
    // An outage of the storage (a database restarting or failing over) starts the load again
    // on new views, as a restart would (ResumeInterrupted): a restore is a function of the
    // source's data and the point only, and the point is checked to be still in the window.
    bool first = true;
    Status s = RetryWhileUnavailable(
        cancel_,
        [&]() -> Status {
          if (!first) {
            ops::TablePtr now = catalog_.Find(source->name);
            if (!HistoryStillReaches(now.get(), source->id, restore_ms, clock_.NowMs(),
                                     max_window_ms_)) {
              return Error::Internal("the source no longer holds the restore point");
            }
            *shared_views = OpenPitrViews(store_, source->id, restore_ms + 1);
          }
          first = false;
          loaded = 0;
          RETURN_IF_ERROR(
              Load(store_, items_, *source, *target, restore_ms, *shared_views, cancel_, &loaded));
          shared_views->items.reset();
          shared_views->log.reset();
          return FinishRestore(catalog_, *target);
        },
        [&](const Status& failure) {
          spdlog::warn("event=pitr_restore_retry table={} source={} message=\"{}\"",
                       target->name, source->name, failure.error().message());
        });
    shared_views->items.reset();
    shared_views->log.reset();
    if (s) {
      spdlog::info("event=pitr_restore_done table={} source={} restore_ms={} items={}",
                   target->name, source->name, restore_ms, loaded);
    } else if (!cancel_.load()) {
      spdlog::error("event=pitr_restore_failed table={} source={} message=\"{}\"", target->name,
                    source->name, s.error().message());
      (void)catalog_.Delete(target->name);
    }
    lease.reset();  // done (or stopping: then the next start resumes it)
  });
  return target;
}

void PitrRestores::ResumeInterrupted() {
  for (const auto& name : catalog_.List(std::nullopt, SIZE_MAX).names) {
    ops::TablePtr t = catalog_.Find(name);
    if (!t || !t->restore || !t->restore->in_progress || !t->restore->source_backup_arn.empty() ||
        t->restore->source_table_arn.empty()) {  // a backup's restore, or an import
      continue;
    }
    if (RestoreUnderWay(keeper_, name)) {  // a live process (another, at a start) restores it
      spdlog::info("event=restore_running_elsewhere table={}", name);
      continue;
    }
    model::TableDescriptor spec = *t;  // the key schema, indexes and billing the request chose
    t.reset();
    const int64_t restore_ms = spec.restore->restore_time_ms;
    const std::string& arn = spec.restore->source_table_arn;
    const std::string source_name = arn.substr(arn.rfind('/') + 1);
    // The partial target goes first, whatever happens next.
    if (auto dropped = catalog_.Delete(name); !dropped) {
      spdlog::error("event=pitr_restore_resume_failed table={} message=\"{}\"", name,
                    dropped.error().message());
      continue;
    }
    ops::TablePtr source = catalog_.Find(source_name);
    bool in_window = false;
    if (source && source->pitr) {
      RestorableWindow w = WindowOf(*source->pitr, clock_.NowMs(), max_window_ms_);
      in_window = restore_ms >= w.earliest_ms && restore_ms <= w.latest_ms;
    }
    if (!in_window) {
      spdlog::warn("event=pitr_restore_abandoned table={} source={} message=\"a stop interrupted "
                   "this restore and its source no longer holds the point; the partial table is "
                   "dropped\"",
                   name, source_name);
      continue;
    }
    spdlog::warn("event=pitr_restore_resumed table={} source={} restore_ms={} message=\"a stop "
                 "interrupted this restore; it starts again\"",
                 name, source_name, restore_ms);
    model::TableDescriptor source_copy = *source;
    source.reset();
    spec.id = 0;
    spec.restore->in_progress = true;
    if (auto r = Launch(source_copy, std::move(spec), restore_ms); !r) {
      spdlog::error("event=pitr_restore_resume_failed table={} message=\"{}\"", name,
                    r.error().message());
    }
  }
}

}  // namespace ttlstore::backup
