// The capacity units (CU) an operation reports as `consumed`, computed as the service computes
// them (docs/tablestore.md, "Consumed capacity", has each rule and its source):
//   - one CU per 4 KB of data, rounded up (read and write alike);
//   - a row's data = the names and values of its primary-key columns plus, per attribute cell,
//     its name and value; on a table that keeps versions (max versions > 1 or a TTL) each cell
//     also counts 8 bytes for its version number;
//   - a value counts 8 bytes (integer, double), 1 (boolean) or its length (string, binary);
//     a cell a write deletes counts its name only.
// Pure functions: no engine, no wire.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "model/versioned_table.h"
#include "tablestore/plainbuffer.h"

namespace ttlstore::tablestore {

inline constexpr size_t kCapacityUnitBytes = 4096;

struct Consumed {
  int32_t read = 0;
  int32_t write = 0;
  friend bool operator==(const Consumed&, const Consumed&) = default;
};

// ceil(bytes / 4 KB), and at least 1 (an operation that reads or writes costs one unit even
// when it finds or carries nothing).
int32_t CapacityUnitsOf(size_t bytes);

// Whether each cell also counts 8 bytes for its version number: the table keeps more than one
// version or has a TTL.
bool CountsVersionBytes(const model::VersionOptions& options);

// Names and values of the primary-key cells.
size_t PrimaryKeyDataSize(const PbRow& row);
// The primary key plus every attribute cell (one cell per version) as described above.
size_t RowCapacityDataSize(const PbRow& row, bool version_bytes);

// GetRow / a BatchGetRow row: the returned row's size in read units; 1 if nothing is returned.
Consumed ReadConsumed(const PbRow* returned, bool version_bytes);
// GetRange: the returned rows' sizes summed, in read units; 1 if none is returned.
Consumed RangeConsumed(const std::vector<PbRow>& returned, bool version_bytes);
// PutRow, UpdateRow, DeleteRow and BatchWriteRow rows that succeed: the request's row in write
// units; when the write had to read the row first (`checks_condition`: a row existence condition
// other than IGNORE, or a column condition whatever the row existence condition) also the
// primary key in read units.
Consumed WriteConsumed(const PbRow& written, bool version_bytes, bool checks_condition);
// A write whose condition (row existence or column condition) fails: 1 read and 1 write unit.
inline constexpr Consumed kFailedConditionConsumed{1, 1};

}  // namespace ttlstore::tablestore
