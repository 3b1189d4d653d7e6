#include "check/sequence_check.h"

#include <fmt/format.h>

#include "common/coding.h"
#include "versions/auto_increment.h"
#include "versions/row_key.h"

namespace ttlstore::check {
namespace {

bool HasAutoIncrement(const model::TableDescriptor& t) {
  return t.tablestore && t.tablestore->AutoIncrementColumn() >= 0;
}

// Rule 1, for one table: its rows come in key order, so a partition key's rows come together;
// the largest value among them is compared with the record once the partition key ends.
Status CheckTableRows(const storage::Store& store, const model::TableDescriptor& t,
                      const std::function<void(std::string)>& problem) {
  const auto& schema = t.tablestore->primary_key;
  std::string partition;
  int64_t largest = 0;
  auto compare = [&]() -> Status {
    if (partition.empty()) return Status::Ok();
    ASSIGN_OR_RETURN(raw, store.Get(storage::Family::kSequences, partition));
    std::optional<int64_t> last = raw ? versions::DecodeSequenceValue(*raw) : std::nullopt;
    if (!raw) {
      problem(
          fmt::format("table {} has rows of a partition key without its auto-increment "
                      "record",
                      t.name));
    } else if (last && *last < largest) {
      problem(
          fmt::format("table {}: a partition key's auto-increment record ({}) is below one "
                      "of its rows' values ({})",
                      t.name, *last, largest));
    }
    return Status::Ok();
  };
  auto it = store.ScanFamily(storage::Family::kRows, versions::TableRowsBegin(t.id),
                             versions::TableRowsEnd(t.id), false, nullptr);
  for (; it->Valid(); it->Next()) {
    std::vector<versions::PkCell> pk;
    if (!versions::DecodeRowKey(it->key(), schema, &pk)) continue;  // CheckRows reports it
    auto key = versions::SequenceKey(t.id, schema, pk[0]);
    std::optional<int64_t> value = versions::AutoIncrementValueOf(schema, pk);
    if (!key || !value) continue;
    if (*key != partition) {
      RETURN_IF_ERROR(compare());
      partition = std::move(*key);
      largest = *value;
    } else if (*value > largest) {
      largest = *value;
    }
  }
  RETURN_IF_ERROR(it->status());
  return compare();
}

}  // namespace

Status CheckSequences(const storage::Store& store,
                      const std::map<uint32_t, model::TableDescriptor>& tables, uint64_t* records,
                      const std::function<void(std::string)>& problem) {
  for (const auto& [id, t] : tables) {
    if (HasAutoIncrement(t)) RETURN_IF_ERROR(CheckTableRows(store, t, problem));
  }
  // Rule 2: every record.
  auto it =
      store.ScanFamily(storage::Family::kSequences, "", std::string(5, '\xff'), false, nullptr);
  for (; it->Valid(); it->Next()) {
    ++*records;
    std::string_view key = it->key();
    uint32_t table_id = 0;
    std::string_view rest = key;
    if (!GetFixed32BE(&rest, &table_id)) {
      problem("an auto-increment record has a key too short for a table id");
      continue;
    }
    auto t = tables.find(table_id);
    if (t == tables.end() || !HasAutoIncrement(t->second)) {
      problem(
          fmt::format("an auto-increment record belongs to table id {}, which is not a live "
                      "table with an AUTO_INCREMENT column",
                      table_id));
      continue;
    }
    if (!versions::DecodeSequenceValue(it->value())) {
      problem(fmt::format("an auto-increment record of table {} holds no 8-byte value",
                          t->second.name));
      continue;
    }
    // The key must be exactly a partition key's prefix: the first column, nothing after it.
    const auto& schema = t->second.tablestore->primary_key;
    const std::vector<model::PrimaryKeyColumn> first_column(schema.begin(), schema.begin() + 1);
    std::vector<versions::PkCell> first;
    if (!versions::DecodeRowKey(key, first_column, &first)) {
      problem(
          fmt::format("an auto-increment record of table {} has a key that is not a "
                      "partition key",
                      t->second.name));
    }
  }
  return it->status();
}

}  // namespace ttlstore::check
