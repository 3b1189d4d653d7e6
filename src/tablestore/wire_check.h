// A check of a protobuf request's raw bytes before the generated parser allocates anything.
//
// protobuf-lite parses a body of a few bytes per element into a heap object per element: two
// bytes of `columns_to_get` become a std::string (~50 bytes), two bytes of a batch's `rows` a
// whole message. A 5 MB body could thus cost hundreds of MB before any handler could count the
// entries and refuse them. CheckWire walks the wire format without allocating, following only
// the fields its WireShape names as submessages, and refuses first:
//   - bytes the generated parser would refuse too (a truncated varint, a length past the end, a
//     group that never ends, nesting past protobuf's recursion limit of 100, a field number 0,
//     wire types 6 and 7): 400 "Parse PBMessage from RawString failed.";
//   - the service's documented counts, with its messages: more than 1024 columns to get or to
//     return in one message, more than 4 primary-key columns or 32 defined columns in a
//     TableMeta, more than 100 rows in a BatchGetRow or 200 in a BatchWriteRow (docs/limits.md);
//   - more than kMaxRepeatedEntries entries of repeated fields in the whole request (ttlstore's
//     own bound on what parsing may allocate; every request the service accepts stays below).
// The nesting of the input never becomes nesting of the C++ stack: the walk recurses along the
// shape (at most a few levels) and counts group nesting in a fixed array.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "common/result.h"

namespace ttlstore::tablestore {

// Which documented count a repeated field is held to (per message instance, or summed over the
// whole request for the batch rows).
enum class CountRule : uint8_t {
  kNone,
  kColumns,            // columns_to_get, return_column_names: 1024 per message
  kPrimaryKeySchema,   // TableMeta.primary_key: 4
  kDefinedColumns,     // TableMeta.defined_column: 32
  kBatchGetRows,       // TableInBatchGetRowRequest.primary_key: 100 in the request
  kBatchWriteRows,     // TableInBatchWriteRowRequest.rows: 200 in the request
};

struct WireShape;

// One field the check knows about. Fields a shape does not list are skipped like unknown
// fields (as the generated parser keeps them as raw bytes, nothing is allocated per entry).
struct WireField {
  uint32_t number;
  bool repeated;
  // The submessage's shape, descended into; null for scalars, strings and bytes.
  const WireShape* message;
  CountRule rule;
};

struct WireShape {
  std::span<const WireField> fields;
};

// The generated parser's default recursion limit (io::CodedInputStream's 100): how many
// submessages and groups may nest below the top-level message.
inline constexpr int kMaxWireDepth = 100;
// Repeated-field entries (strings, bytes, messages) in one request. The largest request the
// service accepts (100 BatchGetRow tables asking for 1024 columns each, or 200 BatchWriteRow
// rows returning 1024 columns each) has fewer than 210,000; at ~60 bytes per parsed entry the
// bound keeps a request's parse under ~16 MB.
inline constexpr size_t kMaxRepeatedEntries = 262144;
// The service's limits that CheckWire enforces (docs/limits.md, Tablestore section).
inline constexpr size_t kMaxColumnsInRequest = 1024;
inline constexpr size_t kMaxPrimaryKeyColumns = 4;
inline constexpr size_t kMaxDefinedColumns = 32;
inline constexpr size_t kMaxBatchGetRows = 100;
inline constexpr size_t kMaxBatchWriteRows = 200;

// The message of a body the generated parser refuses (the service's text for a protobuf that
// does not deserialize).
inline constexpr std::string_view kParseFailedMessage = "Parse PBMessage from RawString failed.";

// Ok if `bytes` may be handed to the generated parser of the message `shape` describes;
// otherwise a validation error with the message listed above. Linear in `bytes`, no allocation.
Status CheckWire(std::string_view bytes, const WireShape& shape);

// What CheckWire counted, for tests: whether the bytes are well formed and the counts.
struct WireCounts {
  bool well_formed = false;
  size_t repeated_entries = 0;
  size_t max_columns = 0;          // largest kColumns count of one message
  size_t max_primary_key_schema = 0;
  size_t max_defined_columns = 0;
  size_t batch_get_rows = 0;
  size_t batch_write_rows = 0;
  int max_depth = 0;               // deepest nesting of submessages and groups seen
};
WireCounts CountWire(std::string_view bytes, const WireShape& shape);

}  // namespace ttlstore::tablestore
