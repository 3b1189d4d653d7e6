// Capacity units as DynamoDB charges them (developer guide, "Read/write capacity mode"):
//   write: 1 WCU per started KB of the item (the larger of old and new for a replace), min 1;
//   read:  1 RCU per started 4 KB for a strongly consistent read, half for an eventually
//          consistent one, min one unit even when the item does not exist.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "model/attribute_value.h"
#include "model/table.h"

namespace ttlstore::ops {

double WriteCapacityUnits(size_t item_bytes);
double ReadCapacityUnits(size_t item_bytes, bool consistent_read);

// One secondary index's share of a write's consumed capacity. A vector index's is not in
// capacity units but in bytes replicated to it (`vector` set, `vector_bytes`; the service's
// VectorWriteRequestBytes, reported apart from CapacityUnits).
struct IndexCapacity {
  std::string name;
  bool global = false;
  double units = 0;
  bool vector = false;
  double vector_bytes = 0;
};

// What replacing `old_item` with `new_item` (either may be null) costs in each index it writes:
// one write unit per started KB of each index entry it deletes or puts, and for a vector index
// the bytes the change replicates to it (index/index_writer.h, IndexWritesOf). Indexes it does
// not write are left out.
std::vector<IndexCapacity> IndexWriteCapacity(const model::TableDescriptor& table,
                                              const model::Item* old_item,
                                              const model::Item* new_item);

}  // namespace ttlstore::ops
