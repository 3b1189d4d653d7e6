#include "storage/row_purge_filter.h"

#include <rocksdb/compaction_filter.h>

namespace ttlstore::storage {
namespace {

class RowPurgeFilter : public rocksdb::CompactionFilter {
 public:
  explicit RowPurgeFilter(std::shared_ptr<const RowPurger> purger) : purger_(std::move(purger)) {}

  Decision FilterV2(int, const rocksdb::Slice& key, ValueType type,
                    const rocksdb::Slice& value, std::string* new_value,
                    std::string*) const override {
    if (type != ValueType::kValue || !purger_) return Decision::kKeep;
    switch (purger_->Purge(std::string_view(key.data(), key.size()),
                           std::string_view(value.data(), value.size()), new_value)) {
      case RowPurger::Decision::kKeep: return Decision::kKeep;
      case RowPurger::Decision::kRewrite: return Decision::kChangeValue;
      case RowPurger::Decision::kRemove: return Decision::kRemove;
    }
    return Decision::kKeep;
  }
  const char* Name() const override { return "ttlstore.RowPurgeFilter"; }

 private:
  std::shared_ptr<const RowPurger> purger_;
};

class RowPurgeFilterFactory : public rocksdb::CompactionFilterFactory {
 public:
  explicit RowPurgeFilterFactory(std::shared_ptr<const RowPurgerSlot> slot)
      : slot_(std::move(slot)) {}
  std::unique_ptr<rocksdb::CompactionFilter> CreateCompactionFilter(
      const rocksdb::CompactionFilter::Context&) override {
    // One purger for the whole compaction: a table's options read once per compaction would be
    // wrong if they changed meanwhile, so the purger looks them up per row instead.
    return std::make_unique<RowPurgeFilter>(slot_->Get());
  }
  const char* Name() const override { return "ttlstore.RowPurgeFilterFactory"; }

 private:
  std::shared_ptr<const RowPurgerSlot> slot_;
};

}  // namespace

std::shared_ptr<rocksdb::CompactionFilterFactory> NewRowPurgeFilterFactory(
    std::shared_ptr<const RowPurgerSlot> slot) {
  return std::make_shared<RowPurgeFilterFactory>(std::move(slot));
}

}  // namespace ttlstore::storage
