// Background jobs and passing storage outages.
//
// A one-shot background job (a TTL backfill, a GSI build or drop) that fails because its storage
// is unavailable for a while (a PostgreSQL server restarting or failing over; a RocksDB disk that
// is full) is run again after kTransientRetryDelay instead of waiting for the next start: every
// such job resumes from its persisted progress (docs/background-jobs.md), so running it again is
// always safe. Any other error is left for the next start, as before.
#pragma once

#include <chrono>

#include "common/result.h"

namespace ttlstore {

inline constexpr std::chrono::seconds kTransientRetryDelay{1};

// Whether `status` failed with an error that passes by itself: the storage is unavailable.
inline bool IsTransient(const Status& status) {
  return !status && status.error().code() == ErrorCode::kStorageUnavailable;
}

}  // namespace ttlstore
