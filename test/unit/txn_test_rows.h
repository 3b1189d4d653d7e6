// The rows the local-transaction tests write (local_transactions_test.cc, txn_processes_test.cc):
// a table "txn" keyed (pk1 STRING, pk2 INTEGER) with one INTEGER column "v".
#pragma once

#include <string>
#include <vector>

#include "ops/row_ops.h"

namespace ttlstore::ops::txn_test {

inline model::TableDescriptor TxnTableSpec() {
  model::TableDescriptor spec;
  spec.name = "txn";
  spec.key.hash = {"pk1", model::ValueType::kS};
  spec.tablestore.emplace();
  spec.tablestore->primary_key = {{"pk1", model::PkType::kString},
                                  {"pk2", model::PkType::kInteger}};
  spec.tablestore->options.max_versions = 1;
  return spec;
}

inline std::vector<versions::PkCell> Pk(const std::string& part, int64_t n) {
  return {{"pk1", model::CellValue::String(part)}, {"pk2", model::CellValue::Integer(n)}};
}

inline RowChange Put(const std::string& part, int64_t n, int64_t v) {
  RowChange c;
  c.kind = RowChange::Kind::kPut;
  c.primary_key = Pk(part, n);
  c.cells.push_back({CellChange::Kind::kPut, "v", model::CellValue::Integer(v), std::nullopt});
  return c;
}

inline RowChange Increment(const std::string& part, int64_t n) {
  RowChange c;
  c.kind = RowChange::Kind::kUpdate;
  c.primary_key = Pk(part, n);
  c.cells.push_back(
      {CellChange::Kind::kIncrement, "v", model::CellValue::Integer(1), std::nullopt});
  return c;
}

inline RowChange Delete(const std::string& part, int64_t n) {
  RowChange c;
  c.kind = RowChange::Kind::kDelete;
  c.primary_key = Pk(part, n);
  return c;
}

}  // namespace ttlstore::ops::txn_test
