// RowOps: the data plane of Tablestore-model tables (PutRow, UpdateRow, DeleteRow, GetRow,
// GetRange), over versioned rows in the `rows` family. Requests arrive decoded and checked for
// shape by the front end (tablestore/); the rules applied here need the stored row or the
// table's options: row existence and column conditions, the write window (T9), allow-update
// (T10), what a read sees (T2, T5, T8) and which rows its filter keeps (versions/filter.h).
//
// A write is a storage read-modify-write of the whole row (storage::Store::ReadModifyWrite), so
// concurrent writers to one row, in this process or another on the same database, serialize and
// each sees the other's versions. A write also drops what the
// table's options hide at that moment (beyond max versions, past the TTL), so a row updated a
// million times holds max-versions versions, not a million, and each write costs in proportion
// to that. What it drops is gone for good: raising an option brings back only hidden data that
// neither a write of its row nor the purge (ops/row_purger.h) has reached yet (T3, T8;
// docs/tablestore.md). Each write keeps the row's purge-index entries in step, in its batch, and
// on a table with an enabled stream adds its stream record there too (ops/row_stream_record.h);
// versions a write or the purge drops because the options hide them make no record. A write
// with the AUTO_INCREMENT placeholder first takes its partition key's next value from the
// `sequences` family, in a read-modify-write of that record, and writes the record back in the
// row's batch (versions/auto_increment.h).
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/clock.h"
#include "common/result.h"
#include "model/table.h"
#include "storage/store.h"
#include "streams/stream_log.h"
#include "versions/row.h"
#include "versions/row_key.h"
#include "versions/visibility.h"

namespace ttlstore::ops {

enum class RowExistence : uint8_t { kIgnore = 0, kExpectExist = 1, kExpectNotExist = 2 };

struct CellChange {
  enum class Kind : uint8_t { kPut, kDeleteOneVersion, kDeleteAllVersions, kIncrement };
  Kind kind = Kind::kPut;
  std::string column;
  model::CellValue value;                 // kPut; the delta for kIncrement
  std::optional<int64_t> timestamp_ms;    // kPut (server time if absent), kDeleteOneVersion
};

struct RowChange {
  enum class Kind : uint8_t { kPut, kUpdate, kDelete };
  Kind kind = Kind::kPut;
  std::vector<versions::PkCell> primary_key;
  std::vector<CellChange> cells;  // kPut: only kPut cells
  RowExistence condition = RowExistence::kIgnore;
  // A column condition, checked after the row existence condition against the visible versions
  // of the row as stored, under the row's lock. None: no column condition.
  std::shared_ptr<const versions::Filter> column_condition;
  // Set by RowOps::Write only, on its copy of a change whose key held the AUTO_INCREMENT
  // placeholder, once it has put the generated value there: the row is new. A put or update of
  // a table with an AUTO_INCREMENT column whose key names the value instead only modifies an
  // existing row (a missing one fails its condition, whatever the row existence asked), so
  // every row's value was generated (docs/tablestore.md, "Auto-increment primary keys").
  bool generated_key = false;
};

// A row as a reader sees it.
struct RowView {
  std::vector<versions::PkCell> primary_key;
  std::vector<versions::Column> columns;  // name order, versions newest first
};

struct RangeRequest {
  std::vector<versions::PkCell> start;  // inclusive; may hold INF_MIN / INF_MAX
  std::vector<versions::PkCell> end;    // exclusive
  bool backward = false;
  int32_t limit = 0;                    // <= 0: no limit beyond the page caps
  versions::ReadSpec spec;
};

// A local transaction's writes not yet committed: each row it wrote, by `rows` key, as the
// transaction left it (nullopt: deleted). Ordered like the `rows` family.
using RowOverlay = std::map<std::string, std::optional<versions::StoredRow>, std::less<>>;

struct RangeResult {
  std::vector<RowView> rows;
  // Where the next page starts (inclusive); absent when the range is exhausted.
  std::optional<std::vector<versions::PkCell>> next_start;
};

// One GetRange page holds at most this many rows, and stops after this many bytes of values
// (the service's 5000 rows / 4 MB). Rows a filter drops count toward the 5000: the service
// scans at most 5000 rows a page, and a page of filtered-out rows may be empty with a
// next_start_primary_key (docs/tablestore.md).
inline constexpr size_t kMaxRangeRows = 5000;
inline constexpr size_t kMaxRangeBytes = 4u << 20;

// A record a write reads for update with its rows and checks before anything is staged: the
// partition key's lock of Tablestore local transactions (ops/local_transactions.h). `check`
// gets the record's value (nullopt: none) and the write's batch (for cleanup it decides); an
// error refuses the write.
struct RowGuard {
  storage::RmwKey key;
  std::function<Status(const std::optional<std::string>& value, storage::WriteBatch& batch)> check;
};

class RowOps {
 public:
  RowOps(storage::Store& store, const Clock& clock) : store_(store), clock_(clock) {}

  // Applies one row change. Errors: condition failed (ErrorCode::kConditionalCheckFailed),
  // write window (T9) and allow-update (T10) violations, key mismatches (kValidation with
  // versions::kInvalidPkPrefix). A failed row writes nothing. With `after`, a successful write
  // leaves there the row as stored after it (empty after a delete), for ReturnContent.
  //
  // A put or update whose key holds the AUTO_INCREMENT placeholder in the table's
  // AUTO_INCREMENT column writes a new row under a generated value
  // (versions/auto_increment.h): under the lock of its partition key's `sequences` record, then
  // the row's own, the record is read, the value chosen, and the record written in the row's
  // batch. With `written_key`, a successful write leaves there the primary key as written (the
  // change's, with the generated value in place of the placeholder), for RT_PK.
  // With `guard`, its record is read for update with the row and checked first (not for a
  // change with the AUTO_INCREMENT placeholder: such tables have no transactions).
  Status Write(const model::TableDescriptor& table, const RowChange& change,
               versions::StoredRow* after = nullptr,
               std::vector<versions::PkCell>* written_key = nullptr,
               const RowGuard* guard = nullptr);

  // The row as `change` leaves it, computed from `old` (the row as stored, or as a local
  // transaction's writes left it; nullopt: no row) at `now_ms`: the allow-update (T10) and
  // write-window (T9) checks, the row existence and column conditions, the change itself and
  // the trimming of what the options hide (`trimmed` counts the versions dropped; may be null).
  // `record` (may be null): the write's stream record (ops/row_stream_record.h), an UpdateRow's
  // as the update applied it, with the origin columns of the table's enabled stream taken from
  // `old`. On a table with update_full_row an UpdateRow also stamps every column it does not
  // name again at `now_ms` (docs/tablestore.md, "Update full row"). nullopt: no row after the
  // change. Errors as Write's; nothing is written. Write is this
  // plus the row's lock, its read and its batch; ops/local_transactions.h buffers the result.
  Result<std::optional<versions::StoredRow>> Apply(const model::TableDescriptor& table,
                                                   const RowChange& change,
                                                   const std::optional<versions::StoredRow>& old,
                                                   int64_t now_ms, uint64_t* trimmed,
                                                   std::optional<streams::RowRecord>* record =
                                                       nullptr) const;

  // Writes `changes` (rows of `table`, in order; a key may come more than once, each change
  // then applying to the row the earlier ones left) all or none, as an atomic BatchWriteRow
  // (ops/row_write_all.cc): each change is computed as Write computes it; if one fails, nothing
  // is written, `*failed` is its index and its error is returned. Otherwise every row changed,
  // with its purge-index, secondary-index and search-queue entries and the writes' stream
  // records (in order), goes in one WriteBatch, under the locks of all the rows. `afters` (may
  // be null) gets one row per change, as that change left it (empty after a delete). A change
  // with the AUTO_INCREMENT placeholder gets its value as Write gives it (the partition keys'
  // `sequences` records locked first, and written in the same batch); `written_keys` (may be
  // null) gets each change's primary key as written.
  // `guard` as Write's (a refusal fails row 0).
  Status WriteAll(const model::TableDescriptor& table, const std::vector<RowChange>& changes,
                  std::vector<versions::StoredRow>* afters, size_t* failed,
                  std::vector<std::vector<versions::PkCell>>* written_keys = nullptr,
                  const RowGuard* guard = nullptr);

  // The row stored under `key` (a `rows` key), or nullopt.
  Result<std::optional<versions::StoredRow>> Read(const std::string& key) const;
  // The row a read-modify-write read of a `rows` key returned (nullopt: none).
  static Result<std::optional<versions::StoredRow>> DecodeRead(
      const std::optional<std::string>& raw);

  // The reader's view of `row` stored (or buffered) under `key`, as Get returns it.
  std::optional<RowView> ViewRow(const model::TableDescriptor& table, std::string_view key,
                                 const versions::StoredRow& row,
                                 const versions::ReadSpec& spec) const;

  // The row, or nullopt if it does not exist for readers, shows none of the asked columns, or
  // fails the spec's filter.
  Result<std::optional<RowView>> Get(const model::TableDescriptor& table,
                                     const std::vector<versions::PkCell>& primary_key,
                                     const versions::ReadSpec& spec) const;

  // With `overlay` (a local transaction's buffered writes), its rows replace or hide the
  // stored ones of the same key and join the range as if stored (ops/row_overlay.h).
  Result<RangeResult> GetRange(const model::TableDescriptor& table, const RangeRequest& request,
                               const RowOverlay* overlay = nullptr) const;

  // The table's split points for ComputeSplitPointsBySize (ops/split_points.h).
  Result<std::vector<versions::PkCell>> SplitPoints(const model::TableDescriptor& table,
                                                    uint64_t split_bytes,
                                                    size_t max_points) const;

  // Where writes to a table with an enabled stream add their record (in the write's own batch);
  // null: no records (unit tests). Not owned; set before the first write.
  void set_streams(streams::StreamLog* log) { streams_ = log; }
  streams::StreamLog* streams() const { return streams_; }

  // Versions writes have dropped because the options hid them (for /metrics).
  uint64_t versions_trimmed() const { return versions_trimmed_.load(std::memory_order_relaxed); }
  void NoteTrimmed(uint64_t n) {
    if (n > 0) versions_trimmed_.fetch_add(n, std::memory_order_relaxed);
  }

 private:
  // Write for a change whose key holds the placeholder in column `ai`.
  Status WriteGenerated(const model::TableDescriptor& table, const RowChange& change, int ai,
                        versions::StoredRow* after, std::vector<versions::PkCell>* written_key);
  // The rest of a write, inside the read-modify-write of `key` (the change's row key) that read
  // `old`: applies the change at `now_ms` and stages the row, its companions and, if given, the
  // `sequences` record `sequence` (key, value) in `batch`. Sets *after and *trimmed (the
  // versions the options hid); may run more than once (storage::Store::ReadModifyWrite).
  Status Stage(const model::TableDescriptor& table, const RowChange& change,
               const std::string& key, std::optional<versions::StoredRow> old, int64_t now_ms,
               const std::pair<std::string, int64_t>* sequence, storage::WriteBatch& batch,
               versions::StoredRow* after, uint64_t* trimmed);
  // Applies the cell changes of an UpdateRow to `row`.
  Status ApplyUpdate(const model::TableDescriptor& table, const RowChange& change,
                     int64_t now_ms, versions::StoredRow& row) const;
  // The reader's view of a stored row, or nullopt (see Get). `filtered_out` (if given) is set
  // when the row exists for readers but the spec's filter drops it: GetRange counts such rows
  // as read toward its page.
  std::optional<RowView> View(const model::TableDescriptor& table, std::string_view key,
                              const versions::StoredRow& row, int64_t now_ms,
                              const versions::ReadSpec& spec, bool* filtered_out = nullptr) const;

  storage::Store& store_;
  const Clock& clock_;
  streams::StreamLog* streams_ = nullptr;
  std::atomic<uint64_t> versions_trimmed_{0};
};

// The Tablestore service's message for a failed row existence condition.
inline constexpr char kConditionCheckFailed[] = "Condition check failed.";

}  // namespace ttlstore::ops
