// RowStreamRecord: what a Tablestore row write looks like to a stream reader (GetStreamRecord).
// RowOps::Write puts it in the batch of the write itself (streams::StreamLog::AddRowRecord), so a
// crash keeps both or neither. Pure function; no storage.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ops/row_ops.h"
#include "streams/row_record.h"
#include "versions/row.h"

namespace ttlstore::ops {

// The record of `change` applied at `now_ms`. `applied` is the row right after an UpdateRow's
// cell changes were applied (before versions the options hide are dropped): an INCREMENT is
// recorded as the put of its result, stamped now_ms, read from there. Each cell change becomes
// one column of the record, in request order: a put with its timestamp (the server's time when
// the request gave none), a delete of one version with its timestamp, a delete of all versions.
// A DeleteRow has the primary key only.
streams::RowRecord RowStreamRecord(const RowChange& change, int64_t now_ms,
                                   const versions::StoredRow* applied);

// A record's origin columns (streams::RowRecord::origin): for each of `names` (the stream's
// origin columns, in order), a put of the newest version of that column visible in `old` (the
// row before the write; nullopt: no row) at `now_ms`, with its value and timestamp. A column the
// row did not have, or whose versions the options hide, is left out.
std::vector<streams::RecordColumn> OriginColumns(const std::optional<versions::StoredRow>& old,
                                                 const std::vector<std::string>& names,
                                                 const model::VersionOptions& options,
                                                 int64_t now_ms);

}  // namespace ttlstore::ops
