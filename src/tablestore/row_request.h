// Pieces of row requests that single-row, range and batch operations share: the row existence
// condition, the version condition, consumed capacity, and the options ttlstore refuses.
#pragma once

#include <string>
#include <vector>

#include "common/result.h"
#include "ops/row_ops.h"
#include "tablestore/row_convert.h"
#include "tablestore/tablestore.pb.h"

namespace ttlstore::tablestore {

// The row existence expectation; column conditions (filters) are refused.
Result<ops::RowExistence> ConditionOf(const otspb::Condition* condition);

void FillConsumed(int32_t read, int32_t write, otspb::ConsumedCapacity* out);

// What a write's ReturnContent asks back: RT_PK the primary key; RT_AFTER_MODIFY the primary
// key and the newest visible version of each return_column_names column after the write (how
// an increment reads its result). nullopt for RT_NONE.
std::optional<PbRow> ReturnedRow(const otspb::ReturnContent& rc, const ops::RowChange& change,
                                 const versions::StoredRow& after,
                                 const model::VersionOptions& options, int64_t now_ms);

// The version condition and columns of a GetRow, GetRange or BatchGetRow table entry.
template <typename Request>
Result<versions::ReadSpec> ReadSpecOfRequest(const Request& req, bool range_op) {
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
  return ReadSpecOf(max_versions, time_range, columns, range_op);
}

// Filters, column ranges and tokens are not implemented: refused rather than ignored.
template <typename Request>
Status RefuseUnsupportedReadOptions(const Request& req) {
  if (req.has_filter() && !req.filter().empty()) {
    return Error::Validation("Filters are not supported by ttlstore.");
  }
  if (req.has_start_column() || req.has_end_column()) {
    return Error::Validation("start_column and end_column are not supported by ttlstore.");
  }
  return Status::Ok();
}

}  // namespace ttlstore::tablestore
