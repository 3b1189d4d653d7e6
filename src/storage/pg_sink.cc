// PgSink (storage/pg_sink.h).
#include "storage/pg_sink.h"

#include <random>

#include "common/coding.h"
#include "storage/pg_schema.h"

namespace ttlstore::storage {
namespace {

using Space = Store::Space;

// Stats additions go to one of this many rows per key, picked at random, so writers of one
// table rarely wait on each other's row lock; a read sums them.
constexpr int kStatsShards = 16;

int RandomShard() {
  thread_local std::minstd_rand rng(std::random_device{}());
  return static_cast<int>(rng() % kStatsShards);
}

std::string Table(Space space) { return PgTableOf(space); }

}  // namespace

void PgSink::Put(Space space, std::string_view key, std::string_view value) {
  if (space == Space::kStats) {
    // A stats value set outright: replaces every shard of the key with one row.
    Delete(space, key);
    uint64_t items = 0, bytes = 0;
    std::string_view v = value;
    if (!GetFixed64BE(&v, &items) || !GetFixed64BE(&v, &bytes)) return;
    AddStats(key, static_cast<int64_t>(items), static_cast<int64_t>(bytes));
    return;
  }
  writes_[{space, std::string(key)}] = std::string(value);
}

void PgSink::Delete(Space space, std::string_view key) {
  if (space == Space::kStats) {
    FlushStats();
    statements_.push_back(
        {"DELETE FROM ttlstore_stats WHERE k = $1::bytea", {std::string(key)}, true});
    return;
  }
  writes_[{space, std::string(key)}] = std::nullopt;
}

void PgSink::DeleteRange(Space space, std::string_view begin, std::string_view end) {
  if (space == Space::kStats) {
    FlushStats();
    statements_.push_back({"DELETE FROM ttlstore_stats WHERE k >= $1::bytea AND k < $2::bytea",
                           {std::string(begin), std::string(end)}});
    return;
  }
  FlushWrites();
  // Every key in range has a head in [head(begin), head(end)]: the index bounds the scan. Not
  // prepared: each range is planned for its own bounds.
  statements_.push_back(
      {"DELETE FROM " + Table(space) +
           " WHERE h >= $1::bytea AND h <= $2::bytea AND k >= $3::bytea AND k < $4::bytea",
       {PgKeyHead(begin), PgKeyHead(end), std::string(begin), std::string(end)}});
}

void PgSink::AddStats(std::string_view key, int64_t items, int64_t bytes) {
  auto& sum = pending_stats_[std::string(key)];
  sum.first += items;
  sum.second += bytes;
}

std::vector<PgStatement> PgSink::Finish() {
  FlushWrites();
  FlushStats();
  return std::move(statements_);
}

void PgSink::FlushWrites() {
  std::vector<std::string> deletes;
  std::vector<std::pair<std::string, std::string>> puts;
  for (auto it = writes_.begin(); it != writes_.end();) {
    const Space space = it->first.first;
    for (; it != writes_.end() && it->first.first == space; ++it) {
      std::string key = it->first.second;  // a copy: the map is cleared below
      if (!it->second) {
        deletes.push_back(std::move(key));
      } else {
        puts.emplace_back(std::move(key), std::move(*it->second));
      }
    }
    FlushDeletes(space, deletes);
    FlushPuts(space, puts);
  }
  writes_.clear();
}

void PgSink::FlushDeletes(Space space, std::vector<std::string>& keys) {
  std::vector<std::string> run;  // keys no longer than a head: their d is empty
  auto close_run = [&] {
    if (run.empty()) return;
    if (run.size() == 1) {
      statements_.push_back({"DELETE FROM " + Table(space) +
                                 " WHERE h = $1::bytea AND d = $2::bytea",
                             {run[0], std::string()}, /*prepared=*/true});
    } else {
      // The array is one parameter whatever the count: planned once, as one index scan.
      statements_.push_back({"DELETE FROM " + Table(space) +
                                 " WHERE h = ANY($1::bytea[]) AND d = ''::bytea",
                             {PgByteaArray(run)}, /*prepared=*/true});
    }
    run.clear();
  };
  for (std::string& key : keys) {
    if (key.size() > kPgKeyHeadBytes) {  // a long key (rare): by itself
      statements_.push_back({"DELETE FROM " + Table(space) +
                                 " WHERE h = $1::bytea AND d = $2::bytea",
                             {PgKeyHead(key), PgKeyDigest(key)}, /*prepared=*/true});
      continue;
    }
    run.push_back(std::move(key));
    if (run.size() == kRowsPerStatement) close_run();
  }
  close_run();
  keys.clear();
}

void PgSink::FlushPuts(Space space, std::vector<std::pair<std::string, std::string>>& rows) {
  std::vector<std::string> heads, digests, keys, values;
  size_t bytes = 0;
  auto close = [&] {
    if (keys.empty()) return;
    if (keys.size() == 1) {
      statements_.push_back({"INSERT INTO " + Table(space) +
                                 " (h, d, k, v) VALUES ($1::bytea, $2::bytea, $3::bytea, "
                                 "$4::bytea) ON CONFLICT (h, d) DO UPDATE SET v = EXCLUDED.v",
                             {std::move(heads[0]), std::move(digests[0]), std::move(keys[0]),
                              std::move(values[0])},
                             /*prepared=*/true});
    } else {
      statements_.push_back({"INSERT INTO " + Table(space) +
                                 " (h, d, k, v) SELECT * FROM unnest($1::bytea[], $2::bytea[], "
                                 "$3::bytea[], $4::bytea[]) ON CONFLICT (h, d) DO UPDATE SET v = "
                                 "EXCLUDED.v",
                             {PgByteaArray(heads), PgByteaArray(digests), PgByteaArray(keys),
                              PgByteaArray(values)},
                             /*prepared=*/true});
    }
    heads.clear();
    digests.clear();
    keys.clear();
    values.clear();
    bytes = 0;
  };
  for (auto& [key, value] : rows) {
    if (!keys.empty() && bytes + key.size() + value.size() > kBytesPerStatement) close();
    bytes += key.size() + value.size();
    heads.push_back(PgKeyHead(key));
    digests.push_back(PgKeyDigest(key));
    keys.push_back(std::move(key));
    values.push_back(std::move(value));
    if (keys.size() == kRowsPerStatement) close();
  }
  close();
  rows.clear();
}

bool PgSink::Absorb(PgSink& other) {
  if (!other.statements_.empty()) return false;
  for (auto& [key, value] : other.writes_) writes_.insert_or_assign(key, std::move(value));
  for (const auto& [key, sum] : other.pending_stats_) {
    auto& mine = pending_stats_[key];
    mine.first += sum.first;
    mine.second += sum.second;
  }
  other.writes_.clear();
  other.pending_stats_.clear();
  return true;
}

void PgSink::FlushStats() {
  for (const auto& [key, sum] : pending_stats_) {  // in key order: rows locked in one order
    if (sum.first == 0 && sum.second == 0) continue;
    statements_.push_back(
        {"INSERT INTO ttlstore_stats (k, shard, items, bytes) VALUES ($1::bytea, $2::integer, "
         "$3::bigint, $4::bigint) ON CONFLICT (k, shard) DO UPDATE SET items = "
         "ttlstore_stats.items + EXCLUDED.items, bytes = ttlstore_stats.bytes + EXCLUDED.bytes",
         {key, PgInt32(RandomShard()), PgInt64(sum.first), PgInt64(sum.second)},
         /*prepared=*/true});
  }
  pending_stats_.clear();
}

}  // namespace ttlstore::storage
