// The PITR change log's invariants (storage/pitr_log.h), for `ttlstore check`
// (check/consistency.h):
//   - every record decodes and belongs to a live table that has PITR enabled (disabling PITR and
//     DeleteTable drop a table's records in the same batch as the catalog write, so there are
//     no leftovers to tolerate);
//   - every old image decodes and carries the key its record names (a restore writes it back
//     under that key);
//   - a table's RecoveryPeriodInDays is within 1-35.
// Records older than the window are not problems: the trimmer drops them on its next pass.
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
Status CheckPitrLog(const storage::Store& store,
                    const std::map<uint32_t, model::TableDescriptor>& tables, uint64_t* records,
                    const std::function<void(std::string)>& problem);

}  // namespace ttlstore::check
