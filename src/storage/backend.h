// What a storage backend implements besides Store's virtual methods: the sink that gathers one
// WriteBatch's writes for Store::Commit. WriteBatch (storage/write_batch.cc) turns every feature's
// write into these few primitives over Store::Space key spaces, so a backend sees only puts,
// deletes, range deletes and stats additions. Included by storage/ only.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

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

  // The batch's sequenced writes (WriteBatch::PutSequenced), in the order added: the backend
  // locks their heads at commit and resolves them (ResolveSequenced).
  struct Sequenced {
    Space space;
    std::string head;
    SequenceFunction fn;
  };
  void AddSequenced(Sequenced s) { sequenced_.push_back(std::move(s)); }
  std::vector<Sequenced>& sequenced() { return sequenced_; }
  const std::vector<Sequenced>& sequenced() const { return sequenced_; }

 private:
  std::vector<Sequenced> sequenced_;
};

// (space, head key) -> its value (nullopt: none).
using SequenceHeads = std::map<std::pair<Store::Space, std::string>, std::optional<std::string>>;
// Runs `sequenced` in order on `heads` (read with the heads locked; updated as they go) and
// writes their puts and each head's last value to `to`.
void ResolveSequenced(const std::vector<BatchSink::Sequenced>& sequenced, SequenceHeads& heads,
                      BatchSink& to);

}  // namespace ttlstore::storage
