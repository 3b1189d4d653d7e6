// Pieces of row requests that single-row, range and batch operations share: the write's
// condition (row existence and column condition), the read's spec (version condition, columns,
// column range, filter), consumed capacity.
#pragma once

#include <string>
#include <vector>

#include "common/result.h"
#include "ops/row_ops.h"
#include "tablestore/filter_decode.h"
#include "tablestore/row_convert.h"
#include "tablestore/tablestore.pb.h"

namespace ttlstore::tablestore {

// Sets the change's row existence expectation and column condition from a write's Condition
// (none: IGNORE, no column condition). An empty column_condition is none.
Status ApplyCondition(const otspb::Condition* condition, ops::RowChange* change);

void FillConsumed(int32_t read, int32_t write, otspb::ConsumedCapacity* out);

// The rules of AUTO_INCREMENT primary keys a write's request breaks on its own, with the
// service's messages (docs/tablestore.md, "Auto-increment primary keys"), checked once the
// change's condition is set (ApplyCondition): a placeholder with a row existence other than
// IGNORE, or with a column condition; on a table with an AUTO_INCREMENT column, a put or update
// naming its value with EXPECT_NOT_EXIST. (A placeholder in a delete's key is refused when it is
// decoded, row_convert.h; in a column that is not AUTO_INCREMENT, by the key's schema check.)
Status CheckAutoIncrement(const model::TablestoreSchema& schema, const ops::RowChange& change);

// What a write's ReturnContent asks back: RT_PK the primary key (`primary_key`: as written, with
// a generated AUTO_INCREMENT value); RT_AFTER_MODIFY the primary key and the newest visible
// version of each return_column_names column after the write (how an increment reads its
// result). nullopt for RT_NONE.
std::optional<PbRow> ReturnedRow(const otspb::ReturnContent& rc,
                                 const std::vector<versions::PkCell>& primary_key,
                                 const versions::StoredRow& after,
                                 const model::VersionOptions& options, int64_t now_ms);

// Whether a write reads its row before it writes, as the service charges read units for: a row
// existence condition other than IGNORE, or a column condition (the Python SDK's
// filter_and_condition_update_unitttest.test_batch_write_row: 1 read unit with IGNORE and a
// column condition).
inline bool ChecksCondition(const ops::RowChange& change) {
  return change.condition != ops::RowExistence::kIgnore || change.column_condition != nullptr;
}

// The version condition, columns, column range and filter of a GetRow, GetRange or BatchGetRow
// table entry (`batch`). An empty `filter` is no filter.
template <typename Request>
Result<versions::ReadSpec> ReadSpecOfRequest(const Request& req, bool range_op,
                                             bool batch = false) {
  std::optional<int32_t> max_versions;
  if (req.has_max_versions()) max_versions = req.max_versions();
  std::optional<TimeRangeArg> time_range;
  if (req.has_time_range()) {
    const auto& tr = req.time_range();
    TimeRangeArg arg;
    if (tr.has_start_time()) arg.start = tr.start_time();
    if (tr.has_end_time()) arg.end = tr.end_time();
    if (tr.has_specific_time()) arg.specific = tr.specific_time();
    time_range = arg;
  }
  std::vector<std::string> columns(req.columns_to_get().begin(), req.columns_to_get().end());
  RETURN_IF_ERROR(CheckColumnNames(columns));
  ASSIGN_OR_RETURN(spec, ReadSpecOf(max_versions, time_range, columns, range_op, batch));
  if (req.has_start_column()) spec.start_column = req.start_column();
  if (req.has_end_column()) spec.end_column = req.end_column();
  if (req.has_filter() && !req.filter().empty()) {
    ASSIGN_OR_RETURN(filter, DecodeFilter(req.filter(), FilterUse::kRead));
    spec.filter = std::move(filter);
  }
  return spec;
}

}  // namespace ttlstore::tablestore
