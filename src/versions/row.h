// StoredRow: one row of a Tablestore-model table as the `rows` family holds it: every attribute
// column with all the versions not yet purged, newest first. Which of them a reader sees depends
// on the table's *current* options (versions/visibility.h), so that lowering an option hides data
// at once and raising it brings back what is not yet purged (T3, T8).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/cell.h"

namespace ttlstore::versions {

struct Version {
  int64_t timestamp_ms = 0;
  model::CellValue value;
};

struct Column {
  std::string name;
  std::vector<Version> versions;  // newest first, distinct timestamps
};

struct StoredRow {
  std::vector<Column> columns;  // sorted by name, none empty

  // The column named `name`, or nullptr.
  Column* Find(std::string_view name);
  const Column* Find(std::string_view name) const;
  // The column named `name`, created (in name order) if missing.
  Column& FindOrAdd(std::string_view name);
  // Removes the column if it has no versions left.
  void DropIfEmpty(std::string_view name);
};

// Adds `value` as the version at `timestamp_ms`, replacing a version with that exact timestamp.
void PutVersion(Column& column, int64_t timestamp_ms, model::CellValue value);
// Removes the version at exactly `timestamp_ms`, if any.
void DeleteVersion(Column& column, int64_t timestamp_ms);

// The value encoding of the `rows` family (docs/formats.md).
std::string EncodeRow(const StoredRow& row);
// False if `bytes` is not a row this code wrote (corruption).
bool DecodeRow(std::string_view bytes, StoredRow* row);

// Bytes of one value as the service counts them toward row size (8 for numbers, 1 for booleans,
// the length for strings and blobs).
size_t ValueSize(const model::CellValue& v);

}  // namespace ttlstore::versions
