// The stream record of a Tablestore row write (PutRow, UpdateRow, DeleteRow; BatchWriteRow's
// rows): what GetStreamRecord returns, kept in the `streams` family beside DynamoDB's records
// (streams/stream_record.h) under the same keys, with its own value format (0x02,
// docs/formats.md "Streams"). The front end turns it into the PlainBuffer row the service sends
// (tablestore/stream_handlers.cc). Pure functions; no storage.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/cell.h"

namespace ttlstore::streams {

// Numbered as the protocol's ActionType (persisted).
enum class RowAction : uint8_t { kPutRow = 1, kUpdateRow = 2, kDeleteRow = 3 };

// One column operation of the record. Numbered as PlainBuffer's cell op type (persisted); kPut
// has no type on the wire.
enum class ColumnOp : uint8_t { kPut = 0, kDeleteAllVersions = 1, kDeleteOneVersion = 3 };

struct RecordColumn {
  ColumnOp op = ColumnOp::kPut;
  std::string name;
  std::optional<model::CellValue> value;  // kPut
  std::optional<int64_t> timestamp_ms;    // kPut, kDeleteOneVersion
};

struct RowRecord {
  uint64_t seq = 0;  // from the key
  RowAction action = RowAction::kPutRow;
  int64_t created_ms = 0;
  // When the trimmer may drop it: created_ms + the stream's expiration time.
  int64_t expires_ms = 0;
  std::vector<std::pair<std::string, model::CellValue>> primary_key;
  std::vector<RecordColumn> columns;  // kDeleteRow: none
  // The values the stream's origin columns had before the write (model::StreamInfo::
  // origin_columns): a put of the newest visible version of each such column the row had, in
  // the stream's order. Empty when the stream names none or the row had none of them.
  std::vector<RecordColumn> origin;
};

// The first byte of a row record's value (DynamoDB records start with 0x01).
inline constexpr char kRowRecordFormat = 0x02;

std::string EncodeRowRecord(const RowRecord& record);
// nullopt for bytes EncodeRowRecord did not produce. `seq` is set by the caller from the key.
std::optional<RowRecord> DecodeRowRecord(std::string_view bytes);
// Only the expiry (for trimming), of either format: a DynamoDB record expires 24 hours after it
// was made.
std::optional<int64_t> RecordExpiresMs(std::string_view bytes);

}  // namespace ttlstore::streams
