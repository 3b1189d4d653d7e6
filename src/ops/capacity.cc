#include "ops/capacity.h"

#include "index/index_writer.h"

namespace ttlstore::ops {

double WriteCapacityUnits(size_t item_bytes) {
  size_t units = (item_bytes + 1023) / 1024;
  return static_cast<double>(units == 0 ? 1 : units);
}

double ReadCapacityUnits(size_t item_bytes, bool consistent_read) {
  size_t units = (item_bytes + 4095) / 4096;
  double full = static_cast<double>(units == 0 ? 1 : units);
  return consistent_read ? full : full / 2;
}

std::vector<IndexCapacity> IndexWriteCapacity(const model::TableDescriptor& table,
                                              const model::Item* old_item,
                                              const model::Item* new_item) {
  std::vector<IndexCapacity> out;
  if (table.indexes.empty()) return out;
  for (const index::IndexEntryWrites& w : index::IndexWritesOf(table, old_item, new_item)) {
    if (w.index->IsVector()) {
      out.push_back({.name = w.index->name,
                     .vector = true,
                     .vector_bytes = static_cast<double>(w.replicated_bytes)});
      continue;
    }
    IndexCapacity c{w.index->name, w.index->global, 0};
    for (size_t bytes : w.sizes) c.units += WriteCapacityUnits(bytes);
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace ttlstore::ops
