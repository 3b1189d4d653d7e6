// The Tablestore side of a table (rules T1-T14): its primary-key schema and version options.
// A table created through the Tablestore front end carries one (TableDescriptor::tablestore);
// its rows live in the `rows` family as versioned cells (versions/), not as DynamoDB items.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ttlstore::model {

// Numbered as the protocol's PrimaryKeyType (persisted).
enum class PkType : uint8_t { kInteger = 1, kString = 2, kBinary = 3 };

struct PrimaryKeyColumn {
  std::string name;
  PkType type = PkType::kString;
};

// Numbered as the protocol's DefinedColumnType (persisted). Declared only; not enforced.
struct DefinedColumn {
  std::string name;
  uint8_t type = 4;
};

// The table options of the Tablestore model. Defaults are the service's.
struct VersionOptions {
  // T6/T7: seconds a version stays visible after its timestamp; -1 = forever.
  int32_t time_to_live = -1;
  // T1: versions kept per column.
  int32_t max_versions = 1;
  // T9: how far (seconds) a written version may lie from now.
  int64_t max_time_deviation = 86400;
  // T10: whether UpdateRow is allowed.
  bool allow_update = true;

  friend bool operator==(const VersionOptions&, const VersionOptions&) = default;
};

struct TablestoreSchema {
  std::vector<PrimaryKeyColumn> primary_key;  // 1-4 columns, in key order
  std::vector<DefinedColumn> defined_columns;
  VersionOptions options;
  // Whether StartLocalTransaction is allowed (CreateTable's enable_local_txn; absent means
  // true here, docs/tablestore.md "Local transactions").
  bool local_transactions = true;
};

}  // namespace ttlstore::model
