// Background jobs and passing storage outages.
//
// A one-shot background job (a TTL backfill, a GSI build or drop) that fails because its storage
// is unavailable for a while (a PostgreSQL server restarting or failing over; a RocksDB disk that
// is full) is run again after kTransientRetryDelay instead of waiting for the next start: every
// such job resumes from its persisted progress (docs/background-jobs.md), so running it again is
// always safe. Any other error is left for the next start, as before.
//
// A job that runs on its own thread from start to end (a restore, an import, an export) goes
// through RetryWhileUnavailable: its attempts must be safe to repeat from the start (each writes
// the same items again, or new files beside the old ones).
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <utility>

#include "common/result.h"

namespace ttlstore {

inline constexpr std::chrono::seconds kTransientRetryDelay{1};

// Whether `status` failed with an error that passes by itself: the storage is unavailable.
inline bool IsTransient(const Status& status) {
  return !status && status.error().code() == ErrorCode::kStorageUnavailable;
}

// Runs `attempt` (returning Status) until it succeeds, fails with an error that is not
// transient, or `cancel` is set (a shutdown: the last failure is returned). Before each new
// attempt, `before_retry(failure)` (to log it), then kTransientRetryDelay, cut short by `cancel`.
// `delay` is for tests.
template <typename Attempt, typename BeforeRetry>
Status RetryWhileUnavailable(const std::atomic<bool>& cancel, Attempt&& attempt,
                             BeforeRetry&& before_retry,
                             std::chrono::milliseconds delay = kTransientRetryDelay) {
  while (true) {
    Status status = attempt();
    if (!IsTransient(status) || cancel.load()) return status;
    before_retry(status);
    constexpr std::chrono::milliseconds kStep{20};
    for (auto waited = std::chrono::milliseconds(0); waited < delay && !cancel.load();
         waited += kStep) {
      std::this_thread::sleep_for(std::min(kStep, delay - waited));
    }
    if (cancel.load()) return status;
  }
}

}  // namespace ttlstore
