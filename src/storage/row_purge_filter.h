// The purge of the Tablestore model ("invisible at once, purged later": T2, T3, T6, T8): a
// RocksDB compaction filter on the `rows` family that asks a RowPurger what to do with each row
// it rewrites. The decision itself (which versions the table's current options hide) belongs to
// versions/; storage only carries it out, so this layer stays the only user of RocksDB.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <string_view>

namespace rocksdb {
class CompactionFilterFactory;
}

namespace ttlstore::storage {

class RowPurger {
 public:
  enum class Decision { kKeep, kRewrite, kRemove };
  virtual ~RowPurger() = default;
  // Called from RocksDB's compaction threads, concurrently. On kRewrite, *new_value holds the
  // row without its hidden versions.
  virtual Decision Purge(std::string_view key, std::string_view value,
                         std::string* new_value) const = 0;
};

// Where the filter finds the purger. Empty until the server sets one (after its catalog has
// loaded): until then every row is kept.
class RowPurgerSlot {
 public:
  void Set(std::shared_ptr<const RowPurger> purger) { purger_.store(std::move(purger)); }
  std::shared_ptr<const RowPurger> Get() const { return purger_.load(); }

 private:
  std::atomic<std::shared_ptr<const RowPurger>> purger_;
};

std::shared_ptr<rocksdb::CompactionFilterFactory> NewRowPurgeFilterFactory(
    std::shared_ptr<const RowPurgerSlot> slot);

}  // namespace ttlstore::storage
