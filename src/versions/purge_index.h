// PurgeIndex: the key layout of the `purge` family, which names the Tablestore rows that can
// hold versions their table's options hide, so that the purge reads those rows and no others
// (docs/formats.md, "Purge index"; docs/tablestore.md, "When hidden data is gone for good").
//
// A write trims the row it writes (ops/row_ops.h): right after any write, a row holds only
// versions a reader could see. Versions become hidden afterwards in two ways only, and each
// kind of entry finds the rows one of them can reach:
//   - Time passes under a TTL (T6, T8). One *age* entry per row with versions, keyed by the
//     bucket of its oldest version's timestamp. With TTL T, a row holds an expired version iff
//     its oldest version is older than now - T, so the rows to purge are the entries of the
//     buckets that end at or before now - T (and some of the one bucket straddling it, taken
//     on a later pass). Keying by timestamp, not by due time, means a TTL change moves nothing:
//     lowering it just makes more buckets due.
//   - Max versions is lowered (T2, T3). One *count* entry per row that keeps more than one
//     version of some column, keyed by the largest number of versions any column keeps. With
//     max versions m, the rows holding hidden versions are exactly the entries with count > m:
//     one seek, then only rows to purge.
// Entries are a function of the row's value alone (MarksOf), written in the same WriteBatch as
// the row, so the index is exact after any crash. A row with no versions (primary key only)
// has no entry: nothing in it can be hidden.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "versions/row.h"

namespace ttlstore::versions {

// Width of an age bucket. A row whose oldest version just expired is purged once its bucket
// has ended, i.e. at most this much later (plus the purge interval). Wider buckets mean fewer
// index moves: a row's age entry moves only when a write changes its oldest version's bucket,
// so a row rewritten more often than this costs no index write at all (a hot counter, the
// 100k-increments benchmark); a minute keeps the extra delay small against an hourly purge.
inline constexpr int64_t kAgeBucketMs = 60'000;

// The bucket of a timestamp (floor division: negative timestamps are legal, T9).
int64_t AgeBucket(int64_t timestamp_ms);

// The index entries a stored row needs, as `purge` family keys, sorted. `row_key` is the row's
// `rows` key (table id first).
std::vector<std::string> MarksOf(std::string_view row_key, const StoredRow& row);

// [begin, end) of the age entries of `table_id` whose bucket ends at or before `cutoff_ms`:
// every row there holds a version older than cutoff_ms.
std::string AgeMarksBegin(uint32_t table_id);
std::string AgeMarksEnd(uint32_t table_id, int64_t cutoff_ms);
// [begin, end) of the count entries of `table_id` with count > max_versions.
std::string CountMarksBegin(uint32_t table_id, int32_t max_versions);
std::string CountMarksEnd(uint32_t table_id);
// [begin, end) of every entry of the table (DeleteTable drops them with the rows).
std::string TableMarksBegin(uint32_t table_id);
std::string TableMarksEnd(uint32_t table_id);

// The `rows` key an entry points at. False if `mark` is not an entry this code wrote.
bool RowKeyOfMark(std::string_view mark, std::string* row_key);

// Key of the record that says the index covers every row (written once the start-up build of
// an index for rows stored before it existed has finished; ops/row_purger.h). Table id 0 is
// never allocated, so it cannot collide with an entry.
std::string IndexBuiltKey();

}  // namespace ttlstore::versions
