// The invariants of AUTO_INCREMENT primary keys (versions/auto_increment.h), for `ttlstore
// check` (check/consistency.h):
//   - every row of a table with an AUTO_INCREMENT column has its partition key's `sequences`
//     record, holding a value at least the row's (a row's value was issued, and the record is
//     written in the row's batch and never goes back, so it can never be below);
//   - every `sequences` record decodes (an 8-byte value; a key that is a table id and a first
//     primary-key column of its table) and belongs to a live table with an AUTO_INCREMENT column
//     (DeleteTable drops a table's records with it).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "common/result.h"
#include "model/table.h"
#include "storage/store.h"

namespace ttlstore::check {

// Reports each problem through `problem`; counts the records in *records.
Status CheckSequences(const storage::Store& store,
                      const std::map<uint32_t, model::TableDescriptor>& tables, uint64_t* records,
                      const std::function<void(std::string)>& problem);

}  // namespace ttlstore::check
