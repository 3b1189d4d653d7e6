// The invariants of Tablestore secondary indexes (versions/index_rows.h), for `ttlstore check`
// (check/consistency.h):
//   - every row stored under an index's rows id is exactly the index row its table row implies
//     now (the table row is found from the index row's key, which holds every primary-key column
//     of the table): no orphan, no stale copy, no index row of a row that implies none;
//   - every table row implies index rows that are stored, byte for byte, in each index built from
//     the table's rows (include_base_data; CreateTable's indexes), and in an index whose backfill
//     runs, for the rows at or before its cursor; an index made without the base data is owed
//     only the rows written since (which the first rule covers for the ones it has);
//   - rows under the rows id of a dropped index whose removal is pending are only counted.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>

#include "common/result.h"
#include "model/table.h"
#include "storage/store.h"

namespace ttlstore::check {

// The rows ids of every live and dropped-pending index of `tables`.
std::set<uint32_t> TsIndexRowsIds(const std::map<uint32_t, model::TableDescriptor>& tables);

// Reports each problem through `problem`; counts index rows in *index_rows and rows of dropped
// indexes in *dropped_rows.
Status CheckTsIndexes(const storage::Store& store,
                      const std::map<uint32_t, model::TableDescriptor>& tables,
                      uint64_t* index_rows, uint64_t* dropped_rows,
                      const std::function<void(std::string)>& problem);

}  // namespace ttlstore::check
