// What a storage backend implements besides Store's virtual methods: the sink that gathers one
// WriteBatch's writes for Store::Commit. WriteBatch (storage/write_batch.cc) turns every feature's
// write into these few primitives over Store::Space key spaces, so a backend sees only puts,
// deletes, range deletes and stats additions. Included by storage/ only.
#pragma once

#include <cstdint>
#include <string_view>

#include "storage/store.h"

namespace ttlstore::storage {

class BatchSink {
 public:
  using Space = Store::Space;
  virtual ~BatchSink() = default;
  virtual void Put(Space space, std::string_view key, std::string_view value) = 0;
  virtual void Delete(Space space, std::string_view key) = 0;
  // Every key in [begin, end) of `space`.
  virtual void DeleteRange(Space space, std::string_view begin, std::string_view end) = 0;
  // Adds (items, bytes) to the stats under `key` (Space::kStats); Store::ReadStats reads the sum.
  virtual void AddStats(std::string_view key, int64_t items, int64_t bytes) = 0;
};

}  // namespace ttlstore::storage
