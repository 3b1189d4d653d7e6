// PgSink: a WriteBatch's writes as the SQL statements of one PostgreSQL transaction
// (storage/pg_store.h). Included by storage/ only.
//
// A batch's statements are few whatever its size, because each one is parsed, planned and
// executed by the server (a TTL sweeper batch of 256 items used to be about a thousand):
// - Writes are kept per key until the batch commits: only the last write of each key counts
//   (a transaction's outcome is the same), so a key is written once. They are then written
//   space by space in key order (so every writer takes row locks in one order): the deletes of
//   keys no longer than a head as `DELETE … WHERE h = ANY($1) AND d = ''`, the puts as one
//   `INSERT … SELECT * FROM unnest($1, $2, $3, $4) ON CONFLICT (h, d) DO UPDATE`, each up to
//   kRowsPerStatement rows (one row: the single-row form of the same statement); a longer key's
//   delete by itself. Every such statement is prepared (its text depends on the table only).
// - A DeleteRange writes what was kept before it first, so it removes none of the later writes
//   and every earlier one is inside it when it runs.
// - Stats additions are summed per key and written at the end, one statement per key (their
//   order does not matter, and nothing else reads the stats table within the batch); a stats
//   value set outright or deleted first writes those pending.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "storage/backend.h"
#include "storage/pg_connection.h"

namespace ttlstore::storage {

class PgSink final : public BatchSink {
 public:
  // Rows per multi-row statement, and the most parameter bytes one gathers before the next.
  static constexpr size_t kRowsPerStatement = 256;
  static constexpr size_t kBytesPerStatement = 8 << 20;

  void Put(Space space, std::string_view key, std::string_view value) override;
  void Delete(Space space, std::string_view key) override;
  void DeleteRange(Space space, std::string_view begin, std::string_view end) override;
  void AddStats(std::string_view key, int64_t items, int64_t bytes) override;
  // The batch's statements, in order. Called once, at commit.
  std::vector<PgStatement> Finish();
  // Whether the sink holds nothing to write.
  bool Empty() const {
    return statements_.empty() && writes_.empty() && pending_stats_.empty() &&
           sequenced().empty();
  }
  // Takes in `other`'s writes, as if they had been made to this sink after its own, and its
  // stats additions (summed), leaving `other` empty: the writes of read-modify-writes of
  // distinct keys that commit in one transaction (pg_store_rmw.cc). False, with nothing taken,
  // when `other` has statements already (a range delete or a stats value set outright put
  // them in order): then its Finish() goes after this sink's.
  bool Absorb(PgSink& other);

 private:
  // Writes the kept writes' statements.
  void FlushWrites();
  void FlushStats();
  void FlushDeletes(Space space, std::vector<std::string>& keys);
  void FlushPuts(Space space, std::vector<std::pair<std::string, std::string>>& rows);

  std::vector<PgStatement> statements_;
  // (space, key) -> the last value written (nullopt: deleted), since the last flush.
  std::map<std::pair<Space, std::string>, std::optional<std::string>> writes_;
  std::map<std::string, std::pair<int64_t, int64_t>> pending_stats_;
};

}  // namespace ttlstore::storage
