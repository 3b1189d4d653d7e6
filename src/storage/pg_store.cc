// The PostgreSQL backend (storage/pg_store.h).
#include "storage/pg_store.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <random>
#include <thread>
#include <unordered_map>

#include <openssl/sha.h>
#include <spdlog/spdlog.h>

#include "common/coding.h"
#include "storage/backend.h"
#include "storage/catalog_codec.h"
#include "storage/key_codec.h"
#include "storage/pg_schema.h"
#include "storage/search_queue.h"

namespace ttlstore::storage {
namespace {

using Space = Store::Space;

// Stats additions go to one of this many rows per key, picked at random, so writers of one
// table rarely wait on each other's row lock; a read sums them.
constexpr int kStatsShards = 16;
// Serialization failures and deadlocks are retried this many times before the caller gets a
// retryable error.
constexpr int kMaxAttempts = 8;
// Rows fetched by a scan's first statement, and per page after it.
constexpr size_t kFirstPage = 128;
constexpr size_t kPage = 512;
// Keys per statement of GetItems, and per point-delete statement of a batch. Point statements (by the whole primary key) are prepared once
// per connection (PgStatement::prepared); range scans and deletes are not, so that each is
// planned for its own bounds.
constexpr size_t kKeysPerStatement = 256;
constexpr size_t kDeletesPerStatement = 256;
// Connections open at most (PostgreSQL's default max_connections is 100).
constexpr size_t kMaxConnections = 48;

std::string Table(Space space) { return PgTableOf(space); }

// A key's indexed columns (pg_schema.cc, Version1): its head, and its digest when it is longer.
std::string Head(std::string_view key) { return std::string(key.substr(0, kPgKeyHeadBytes)); }
std::string Digest(std::string_view key) {
  if (key.size() <= kPgKeyHeadBytes) return std::string();
  unsigned char md[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(key.data()), key.size(), md);
  return std::string(reinterpret_cast<const char*>(md), sizeof md);
}

int RandomShard() {
  thread_local std::minstd_rand rng(std::random_device{}());
  return static_cast<int>(rng() % kStatsShards);
}

// A batch as SQL statements, in the order of the writes, with two reductions that keep the
// statement count (each one parsed, planned and executed by the server) low for big batches
// such as the TTL sweeper's:
// - the stats additions of the batch are summed per key and written at the end, one statement
//   per key (their order among themselves does not matter, and nothing else reads the stats
//   table within the batch); a stats value set outright or deleted first writes those pending;
// - consecutive point deletes of one space become one `DELETE … WHERE h = ANY($1) AND d = ''`
//   of up to kDeletesPerStatement keys (deletes of different keys commute; any other write ends
//   the run, so a delete and a later put of one key keep their order; a key longer than a head
//   is deleted by itself).
class PgSink final : public BatchSink {
 public:
  void Put(Space space, std::string_view key, std::string_view value) override {
    if (space == Space::kStats) {
      // A stats value set outright: replaces every shard of the key with one row.
      Delete(space, key);
      uint64_t items = 0, bytes = 0;
      std::string_view v = value;
      if (!GetFixed64BE(&v, &items) || !GetFixed64BE(&v, &bytes)) return;
      AddStats(key, static_cast<int64_t>(items), static_cast<int64_t>(bytes));
      return;
    }
    Push({"INSERT INTO " + Table(space) +
              " (h, d, k, v) VALUES ($1::bytea, $2::bytea, $3::bytea, $4::bytea) "
              "ON CONFLICT (h, d) DO UPDATE SET v = EXCLUDED.v",
          {Head(key), Digest(key), std::string(key), std::string(value)},
          /*prepared=*/true});
  }
  void Delete(Space space, std::string_view key) override {
    if (space == Space::kStats) {
      FlushStats();
      Push({"DELETE FROM ttlstore_stats WHERE k = $1::bytea", {std::string(key)}, true});
      return;
    }
    if (key.size() > kPgKeyHeadBytes) {  // a long key (rare): by itself
      Push({"DELETE FROM " + Table(space) + " WHERE h = $1::bytea AND d = $2::bytea",
            {Head(key), Digest(key)}, /*prepared=*/true});
      return;
    }
    if (run_ && run_space_ == space && run_keys_.size() < kDeletesPerStatement) {
      run_keys_.emplace_back(key);
      return;
    }
    Push({"", {}});
    run_ = true;
    run_space_ = space;
    run_keys_.assign(1, std::string(key));
  }
  void DeleteRange(Space space, std::string_view begin, std::string_view end) override {
    if (space == Space::kStats) {
      FlushStats();
      Push({"DELETE FROM ttlstore_stats WHERE k >= $1::bytea AND k < $2::bytea",
            {std::string(begin), std::string(end)}});
      return;
    }
    // Every key in range has a head in [head(begin), head(end)]: the index bounds the scan.
    Push({"DELETE FROM " + Table(space) +
              " WHERE h >= $1::bytea AND h <= $2::bytea AND k >= $3::bytea AND k < $4::bytea",
          {Head(begin), Head(end), std::string(begin), std::string(end)}});
  }
  void AddStats(std::string_view key, int64_t items, int64_t bytes) override {
    auto& sum = pending_stats_[std::string(key)];
    sum.first += items;
    sum.second += bytes;
  }
  // The batch's statements; writes the pending stats additions first. Called once, at commit.
  const std::vector<PgStatement>& Finish() {
    CloseRun();
    FlushStats();
    return statements_;
  }

 private:
  void Push(PgStatement statement) {
    CloseRun();
    statements_.push_back(std::move(statement));
  }
  // Gives the open run of point deletes (keys no longer than a head, so d is empty) its
  // statement: one key by the point statement, several by `h = ANY(array)`. Both are prepared:
  // the array is one parameter whatever the count, planned as one index scan.
  void CloseRun() {
    if (!run_) return;
    run_ = false;
    PgStatement& s = statements_.back();
    s.prepared = true;
    if (run_keys_.size() == 1) {
      s.sql = "DELETE FROM " + Table(run_space_) + " WHERE h = $1::bytea AND d = $2::bytea";
      s.params = {run_keys_[0], std::string()};
    } else {
      s.sql = "DELETE FROM " + Table(run_space_) +
              " WHERE h = ANY($1::bytea[]) AND d = ''::bytea";
      s.params = {PgByteaArray(run_keys_)};
    }
    run_keys_.clear();
  }
  void FlushStats() {
    for (const auto& [key, sum] : pending_stats_) {  // in key order: rows locked in one order
      if (sum.first == 0 && sum.second == 0) continue;
      Push({"INSERT INTO ttlstore_stats (k, shard, items, bytes) VALUES ($1::bytea, $2::integer, "
            "$3::bigint, $4::bigint) ON CONFLICT (k, shard) DO UPDATE SET items = "
            "ttlstore_stats.items + EXCLUDED.items, bytes = ttlstore_stats.bytes + EXCLUDED.bytes",
            {key, PgInt32(RandomShard()), PgInt64(sum.first), PgInt64(sum.second)},
            /*prepared=*/true});
    }
    pending_stats_.clear();
  }

  std::vector<PgStatement> statements_;
  std::map<std::string, std::pair<int64_t, int64_t>> pending_stats_;
  bool run_ = false;  // statements_.back() stands for the run of point deletes run_keys_
  Space run_space_ = Space::kItems;
  std::vector<std::string> run_keys_;
};

// A scan: the first rows in one statement (a scan that fits is one round trip and one view of
// the data); a longer scan starts over inside a REPEATABLE READ transaction, whose snapshot every
// page then reads, so the whole scan sees one consistent view as the interface promises. The
// connection is held until the range is exhausted or the iterator is destroyed.
//
// Pages are read in primary-key order, `ORDER BY h, d`, which the index gives as it is: so the
// plan is an index scan that stops after the page whatever the planner believes about the range
// (an `ORDER BY h, k` needs a sort, and with statistics that lag behind fresh rows, such as a
// TTL wave's expiry entries, PostgreSQL chose to sort the whole range for every page). (h, d)
// order is key order except among keys longer than kPgKeyHeadBytes that share their head, which
// come in digest order: such a group of equal heads is sorted by key here when a page holds it
// whole, and read alone by `h = head ORDER BY k` pages (a sort of that group only) when a page
// ends inside it.
class PgIterator final : public ItemIterator {
 public:
  PgIterator(const PgStore& store, Space space, std::string lower, std::string upper,
             bool reverse, const std::string* start_after)
      : store_(store), table_(Table(space)), lower_(std::move(lower)), upper_(std::move(upper)),
        reverse_(reverse) {
    if (start_after) after_ = *start_after;
    has_after_ = start_after != nullptr;
    Start();
  }
  ~PgIterator() override { Finish(); }

  bool Valid() const override { return status_.ok() && pos_ < rows_.size(); }
  void Next() override {
    ++pos_;
    if (pos_ >= rows_.size()) FetchPages();
  }
  std::string_view key() const override { return *rows_[pos_][0]; }
  std::string_view value() const override { return *rows_[pos_][1]; }
  Status status() const override { return status_; }

 private:
  // Whether two keys fall in one group of equal heads (only keys of at least
  // kPgKeyHeadBytes can share a head with another key).
  static bool SameHead(std::string_view a, std::string_view b) {
    return a.size() >= kPgKeyHeadBytes && b.size() >= kPgKeyHeadBytes &&
           a.substr(0, kPgKeyHeadBytes) == b.substr(0, kPgKeyHeadBytes);
  }

  // Keys in [lower, upper) past the cursors: after_ (a key), past_head_ (a whole group of
  // heads), or inside the group group_ only.
  PgStatement PageQuery(size_t limit) const {
    PgStatement s;
    s.sql = "SELECT k, v FROM " + table_ +
            " WHERE h >= $1::bytea AND h <= $2::bytea AND k >= $3::bytea AND k < $4::bytea";
    s.params = {Head(lower_), Head(upper_), lower_, upper_};
    auto param = [&s](std::string value) {
      s.params.push_back(std::move(value));
      return "$" + std::to_string(s.params.size()) + "::bytea";
    };
    if (in_group_) s.sql += " AND h = " + param(group_);
    if (has_past_head_) s.sql += (reverse_ ? " AND h < " : " AND h > ") + param(past_head_);
    if (has_after_) {
      if (!in_group_) s.sql += (reverse_ ? " AND h <= " : " AND h >= ") + param(Head(after_));
      s.sql += (reverse_ ? " AND k < " : " AND k > ") + param(after_);
    }
    if (in_group_) {
      s.sql += reverse_ ? " ORDER BY k DESC" : " ORDER BY k";
    } else {
      s.sql += reverse_ ? " ORDER BY h DESC, d DESC" : " ORDER BY h, d";
    }
    s.sql += " LIMIT " + std::to_string(limit);
    return s;
  }

  void Start() {
    if (lower_ >= upper_) {
      exhausted_ = true;
      return;
    }
    PgError error;
    auto lease = store_.pool().Acquire(&error);
    if (!lease) {
      status_ = PgStoreError(error, "scan failed");
      return;
    }
    PgRows rows;
    if (!(*lease)->Exec(PageQuery(kFirstPage + 1), &rows, &error)) {
      status_ = PgStoreError(error, "scan failed");
      return;
    }
    if (rows.rows.size() <= kFirstPage) {
      Take(std::move(rows), kFirstPage + 1);
      return;
    }
    // Longer than one page: read it again, and the rest, from one snapshot.
    lease_.emplace(std::move(*lease));
    std::vector<PgRows> results;
    if (!(*lease_)->Run({{"BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY", {}}, PageQuery(kPage)},
                        nullptr, &results, &error)) {
      status_ = PgStoreError(error, "scan failed");
      Finish();
      return;
    }
    Take(std::move(results[1]), kPage);
    if (rows_.empty()) FetchPages();
  }

  // Reads pages until one has rows or the range is exhausted (a page can be empty when its rows
  // all belonged to a group read next by itself).
  void FetchPages() {
    while (pos_ >= rows_.size() && !exhausted_ && status_.ok()) {
      if (!lease_) {
        exhausted_ = true;
        return;
      }
      PgError error;
      PgRows rows;
      if (!(*lease_)->Exec(PageQuery(kPage), &rows, &error)) {
        status_ = PgStoreError(error, "scan failed");
        Finish();
        return;
      }
      Take(std::move(rows), kPage);
    }
  }

  void Take(PgRows rows, size_t limit) {
    rows_ = std::move(rows.rows);
    pos_ = 0;
    for (const auto& r : rows_) {
      if (!r[0] || !r[1]) {
        status_ = Error::Internal("scan of " + table_ + " returned a null key or value");
        rows_.clear();
        Finish();
        return;
      }
    }
    const bool full = rows_.size() >= limit;
    const bool was_group = in_group_;
    if (in_group_) {
      // Rows of one group, in key order already.
      if (full) {
        after_ = *rows_.back()[0];
        has_after_ = true;
      } else {
        // The group is done: on past it, in (h, d) order.
        in_group_ = false;
        past_head_ = std::move(group_);
        has_past_head_ = true;
        has_after_ = false;
      }
    } else if (full) {
      std::string last = *rows_.back()[0];
      if (last.size() >= kPgKeyHeadBytes) {
        // The page may end inside a group: drop its rows, read the group by itself next.
        while (!rows_.empty() && SameHead(*rows_.back()[0], last)) rows_.pop_back();
        in_group_ = true;
        group_ = Head(last);
        // after_ stays (it bounds the first group of the scan, and is below every later one).
      } else {
        past_head_ = std::move(last);  // a key this short is its own head, alone in its group
        has_past_head_ = true;
        has_after_ = false;
      }
    }
    if (was_group) return;  // a group's page came in key order; the range goes on past it
    SortGroups();
    if (!full) {
      exhausted_ = true;
      Finish();
    }
  }

  // Puts each run of rows sharing a head (keys longer than the head, in digest order) in key
  // order.
  void SortGroups() {
    for (size_t i = 0; i < rows_.size();) {
      size_t j = i + 1;
      while (j < rows_.size() && SameHead(*rows_[i][0], *rows_[j][0])) ++j;
      if (j - i > 1) {
        auto by_key = [this](const auto& a, const auto& b) {
          return reverse_ ? *a[0] > *b[0] : *a[0] < *b[0];
        };
        std::sort(rows_.begin() + static_cast<std::ptrdiff_t>(i),
                  rows_.begin() + static_cast<std::ptrdiff_t>(j), by_key);
      }
      i = j;
    }
  }

  void Finish() {
    if (!lease_) return;
    PgError error;
    (*lease_)->Exec({"COMMIT", {}}, nullptr, &error);
    lease_.reset();
  }

  const PgStore& store_;
  const std::string table_;
  const std::string lower_, upper_;
  const bool reverse_;
  std::string after_;  // rows past this key only
  bool has_after_ = false;
  std::string past_head_;  // rows past this head only
  bool has_past_head_ = false;
  std::string group_;  // rows of this head only, read by key
  bool in_group_ = false;
  std::optional<PgPool::Lease> lease_;  // while a multi-page scan's transaction is open
  std::vector<std::vector<std::optional<std::string>>> rows_;
  size_t pos_ = 0;
  bool exhausted_ = false;
  Status status_ = Status::Ok();
};

}  // namespace

Error PgStoreError(const PgError& error, const std::string& what) {
  switch (error.kind) {
    case PgFailure::kUnavailable:
    case PgFailure::kRetry:
      return Error(ErrorCode::kStorageUnavailable, "the database is unavailable (" + what + "): " +
                                                       error.message);
    case PgFailure::kFailed:
      break;
  }
  return Error::Internal(what + ": " + (error.sqlstate.empty() ? "" : error.sqlstate + " ") +
                         error.message);
}

Result<std::unique_ptr<Store>> PgStore::Open(const StoreOptions& options) {
  std::unique_ptr<PgStore> store(new PgStore());
  store->pool_ = std::make_unique<PgPool>(options.storage, kMaxConnections);
  PgError error;
  {
    auto lease = store->pool_->Acquire(&error);
    if (!lease) return Error(ErrorCode::kStorageUnavailable, "cannot reach the database: " + error.message);
    if (!options.read_only) RETURN_IF_ERROR(MigratePgSchema(**lease));
  }
  ASSIGN_OR_RETURN(seq, store->LargestSearchQueueSeq());
  store->SeedSearchQueueSeq(seq);
  return std::unique_ptr<Store>(std::move(store));
}

PgStore::~PgStore() = default;

Result<std::vector<PgRows>> PgStore::Run(const std::vector<PgStatement>& statements,
                                         const char* begin) const {
  std::vector<PgRows> results;
  // A batch without reads is sent again as it is after a serialization failure or deadlock:
  // Store::RetryConflicts, the one retry loop (read-modify-write's too).
  Status status = RetryConflicts([&](bool* conflict) -> Status {
    PgError error;
    auto lease = pool_->Acquire(&error);
    if (!lease) return PgStoreError(error, "no connection");
    if ((*lease)->Run(statements, begin, &results, &error)) return Status::Ok();
    *conflict = error.kind == PgFailure::kRetry;
    return PgStoreError(error, "statement failed");
  });
  if (!status.ok()) return std::move(status).error();
  return results;
}

namespace {

// "($1::bytea, $2::bytea), ($3::bytea, $4::bytea), ..." for `pairs` (h, d) parameters from $first.
std::string KeyTuples(size_t pairs, size_t first = 1) {
  std::string out;
  for (size_t i = 0; i < pairs; ++i) {
    size_t p = first + 2 * i;
    out += (i ? ", ($" : "($") + std::to_string(p) + "::bytea, $" + std::to_string(p + 1) +
           "::bytea)";
  }
  return out;
}

}  // namespace

Status PgStore::AttemptReadModifyWrite(const std::vector<RmwKey>& keys, const RmwFunction& fn,
                                       bool* conflict) {
  // docs/storage.md, "Read-modify-write": one READ COMMITTED transaction. Its first statement
  // upserts a row per key into ttlstore_rmw_locks (the row lock is taken whether or not the key
  // holds anything yet; a second writer of the key waits for the first to commit, then finds the
  // row gone and inserts its own); the reads that follow are new statements, so they see every
  // commit of the keys made before the locks were granted. The commit deletes the lock rows, so
  // the table is empty at rest.
  std::vector<std::string> locks;  // space byte . key, sorted: one locking order for everyone
  locks.reserve(keys.size());
  for (const RmwKey& k : keys) {
    Space space = k.family ? SpaceOf(*k.family) : Space::kItems;
    locks.push_back(std::string(1, static_cast<char>(space)) + k.key);
  }
  std::sort(locks.begin(), locks.end());
  locks.erase(std::unique(locks.begin(), locks.end()), locks.end());
  std::vector<std::optional<std::string>> lock_params;
  lock_params.reserve(2 * locks.size());
  for (const auto& l : locks) {
    lock_params.push_back(Head(l));
    lock_params.push_back(Digest(l));
  }
  std::vector<PgStatement> first;
  first.push_back({"BEGIN ISOLATION LEVEL READ COMMITTED", {}});
  for (size_t at = 0; at < locks.size(); at += kKeysPerStatement) {
    size_t n = std::min(kKeysPerStatement, locks.size() - at);
    first.push_back({"INSERT INTO ttlstore_rmw_locks (h, d, n) SELECT h, d, 0 FROM (VALUES " +
                         KeyTuples(n) + ") AS l (h, d) ON CONFLICT (h, d) DO UPDATE SET n = "
                         "ttlstore_rmw_locks.n + 1",
                     std::vector<std::optional<std::string>>(lock_params.begin() + 2 * at, lock_params.begin() + 2 * (at + n))});
  }
  // The reads: one statement per key space (and per kKeysPerStatement keys).
  std::vector<Space> read_space;  // of each read statement
  for (const std::string& l : locks) {
    Space space = static_cast<Space>(l[0]);
    std::string_view key = std::string_view(l).substr(1);
    if (read_space.empty() || read_space.back() != space ||
        first.back().params.size() == 2 * kKeysPerStatement) {
      read_space.push_back(space);
      first.push_back({"SELECT k, v FROM " + Table(space) + " WHERE (h, d) IN (", {}});
    }
    first.back().params.push_back(Head(key));
    first.back().params.push_back(Digest(key));
  }
  const size_t first_read = first.size() - read_space.size();
  for (size_t i = first_read; i < first.size(); ++i) {
    first[i].sql += KeyTuples(first[i].params.size() / 2) + ")";
  }

  PgError error;
  auto lease = pool_->Acquire(&error);
  if (!lease) return PgStoreError(error, "no connection");
  std::vector<PgRows> results;
  if (!(*lease)->Run(first, nullptr, &results, &error)) {
    *conflict = error.kind == PgFailure::kRetry;
    return PgStoreError(error, "read for update failed");
  }
  RmwReads reads(keys.size());
  {
    std::vector<std::pair<std::string, std::string>> found;  // (space byte . key, value)
    for (size_t i = 0; i < read_space.size(); ++i) {
      for (auto& row : results[first_read + i].rows) {
        found.emplace_back(std::string(1, static_cast<char>(read_space[i])) + row[0].value_or(""),
                           std::move(row[1]).value_or(""));
      }
    }
    std::sort(found.begin(), found.end());
    for (size_t i = 0; i < keys.size(); ++i) {
      Space space = keys[i].family ? SpaceOf(*keys[i].family) : Space::kItems;
      std::string want = std::string(1, static_cast<char>(space)) + keys[i].key;
      auto it = std::lower_bound(found.begin(), found.end(), want,
                                 [](const auto& f, const std::string& w) { return f.first < w; });
      if (it != found.end() && it->first == want) reads[i] = it->second;
    }
  }
  auto rollback = [&] { (*lease)->Exec({"ROLLBACK", {}}, nullptr, &error); };
  WriteBatch batch(*this);
  Status status = RunRmwFunction(fn, reads, batch, conflict);
  if (!status.ok()) {
    rollback();
    return status;
  }
  std::vector<PgStatement> second = static_cast<PgSink&>(SinkOf(batch)).Finish();
  if (second.empty()) {
    rollback();  // nothing to write: releases the locks
    return Status::Ok();
  }
  for (size_t at = 0; at < locks.size(); at += kKeysPerStatement) {
    size_t n = std::min(kKeysPerStatement, locks.size() - at);
    second.push_back({"DELETE FROM ttlstore_rmw_locks WHERE (h, d) IN (" + KeyTuples(n) + ")",
                      std::vector<std::optional<std::string>>(lock_params.begin() + 2 * at, lock_params.begin() + 2 * (at + n))});
  }
  second.push_back({"COMMIT", {}});
  if (!(*lease)->Run(second, nullptr, nullptr, &error)) {
    *conflict = error.kind == PgFailure::kRetry;
    spdlog::warn("event=storage_write_failed message=\"{}\"", error.message);
    return PgStoreError(error, "read-modify-write failed");
  }
  Committed(batch);
  return Status::Ok();
}

std::unique_ptr<BatchSink> PgStore::NewSink() const { return std::make_unique<PgSink>(); }

Status PgStore::Commit(BatchSink& sink) {
  const auto& statements = static_cast<PgSink&>(sink).Finish();
  if (statements.empty()) return Status::Ok();
  auto done = Run(statements, "BEGIN");
  if (!done) {
    spdlog::warn("event=storage_write_failed message=\"{}\"", done.error().message());
    return done.error();
  }
  return Status::Ok();
}

Result<std::optional<std::string>> PgStore::GetIn(Space space, std::string_view key) const {
  ASSIGN_OR_RETURN(results, Run({{"SELECT v FROM " + Table(space) +
                                      " WHERE h = $1::bytea AND d = $2::bytea",
                                  {Head(key), Digest(key)}, /*prepared=*/true}},
                                nullptr));
  if (results[0].rows.empty()) return std::optional<std::string>();
  return std::optional<std::string>(results[0].rows[0][0].value_or(""));
}

Result<std::vector<std::optional<std::string>>> PgStore::GetItems(
    const std::vector<std::string>& keys) const {
  std::vector<std::optional<std::string>> out(keys.size());
  if (keys.empty()) return out;
  std::unordered_map<std::string_view, std::vector<size_t>> where;
  // Keys no longer than a head (nearly all) by `h = ANY(array)`: one prepared statement, one
  // index scan, whatever the count; longer keys by (h, d) pairs.
  std::vector<std::string> short_keys;
  std::vector<PgStatement> statements;
  for (size_t i = 0; i < keys.size(); ++i) {
    auto& slots = where[keys[i]];
    slots.push_back(i);
    if (slots.size() > 1) continue;  // asked already
    if (keys[i].size() <= kPgKeyHeadBytes) {
      short_keys.push_back(keys[i]);
      continue;
    }
    if (statements.empty() || statements.back().params.size() == 2 * kKeysPerStatement) {
      statements.push_back({"", {}});
    }
    statements.back().params.push_back(Head(keys[i]));
    statements.back().params.push_back(Digest(keys[i]));
  }
  for (auto& s : statements) {
    s.sql = "SELECT k, v FROM ttlstore_items WHERE (h, d) IN (";
    for (size_t p = 1; p <= s.params.size(); p += 2) {
      s.sql += (p > 1 ? ", ($" : "($") + std::to_string(p) + "::bytea, $" + std::to_string(p + 1) +
               "::bytea)";
    }
    s.sql += ")";
  }
  if (!short_keys.empty()) {
    statements.push_back({"SELECT k, v FROM ttlstore_items WHERE h = ANY($1::bytea[]) AND "
                          "d = ''::bytea",
                          {PgByteaArray(short_keys)}, /*prepared=*/true});
  }
  // Several statements read one snapshot, as one MultiGet does.
  ASSIGN_OR_RETURN(results, Run(statements, statements.size() > 1
                                                ? "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY"
                                                : nullptr));
  for (const auto& rows : results) {
    for (const auto& row : rows.rows) {
      auto it = where.find(row[0].value_or(""));
      if (it == where.end()) continue;
      for (size_t i : it->second) out[i] = row[1].value_or("");
    }
  }
  return out;
}

std::unique_ptr<ItemIterator> PgStore::ScanIn(Space space, std::string lower, std::string upper,
                                             bool reverse, const std::string* start_after) const {
  return std::make_unique<PgIterator>(*this, space, std::move(lower), std::move(upper), reverse,
                                      start_after);
}

Result<std::vector<model::TableDescriptor>> PgStore::LoadTables() const {
  std::vector<model::TableDescriptor> tables;
  auto it = ScanIn(Space::kCatalog, std::string(), std::string(1, '\xff') + std::string(8, '\xff'),
                   false, nullptr);
  for (; it->Valid(); it->Next()) {
    auto t = DecodeTableDescriptor(it->value());
    if (!t) return Error::Internal("corrupt catalog entry for table " + std::string(it->key()));
    tables.push_back(std::move(*t));
  }
  RETURN_IF_ERROR(it->status());
  return tables;
}

Result<uint32_t> PgStore::AllocateTableId() {
  // One statement: the row lock orders concurrent callers, in this process or another.
  ASSIGN_OR_RETURN(results,
                   Run({{"INSERT INTO ttlstore_counters (name, value) VALUES ('next_table_id', 2) "
                         "ON CONFLICT (name) DO UPDATE SET value = ttlstore_counters.value + 1 "
                         "RETURNING value - 1",
                         {}}},
                       nullptr));
  int64_t id = 0;
  if (results[0].rows.empty() || !PgDecodeInt64(results[0].rows[0][0].value_or(""), &id) ||
      id <= 0 || id > UINT32_MAX) {
    return Error::Internal("corrupt next_table_id counter");
  }
  return static_cast<uint32_t>(id);
}

Result<TableStats> PgStore::ReadStats(std::string_view key) const {
  ASSIGN_OR_RETURN(results, Run({{"SELECT COALESCE(SUM(items), 0)::bigint, COALESCE(SUM(bytes), "
                                  "0)::bigint FROM ttlstore_stats WHERE k = $1::bytea",
                                  {std::string(key)}, /*prepared=*/true}},
                                nullptr));
  TableStats stats;
  const auto& row = results[0].rows.at(0);
  if (!PgDecodeInt64(row[0].value_or(""), &stats.item_count) ||
      !PgDecodeInt64(row[1].value_or(""), &stats.size_bytes)) {
    return Error::Internal("corrupt stats");
  }
  return stats;
}

uint64_t PgStore::ApproximateItemBytes(std::string_view lower, std::string_view upper) const {
  auto results = Run({{"SELECT COALESCE(SUM(octet_length(k) + octet_length(v)), 0)::bigint FROM "
                       "ttlstore_items WHERE h >= $1::bytea AND h <= $2::bytea AND k >= $3::bytea "
                       "AND k < $4::bytea",
                       {Head(lower), Head(upper), std::string(lower), std::string(upper)}}},
                     nullptr);
  int64_t bytes = 0;
  if (!results || results->at(0).rows.empty() ||
      !PgDecodeInt64(results->at(0).rows[0][0].value_or(""), &bytes)) {
    return 0;
  }
  return static_cast<uint64_t>(bytes);
}

Result<uint64_t> PgStore::LargestSearchQueueSeq() const {
  // The last entry of each table's queue (keys: table id . sequence number): one read for the
  // table's last entry, one for the next table's first, so the cost follows the number of
  // tables, not of entries (as RocksStore's).
  uint64_t largest = 0;
  std::string from;
  for (;;) {
    ASSIGN_OR_RETURN(first, Run({{"SELECT k FROM ttlstore_search WHERE h >= $1::bytea ORDER BY "
                                  "h, k LIMIT 1",
                                  {from}}},
                                nullptr));
    if (first[0].rows.empty() || !first[0].rows[0][0]) break;
    const std::string& key = *first[0].rows[0][0];
    if (key.size() < 4) break;
    std::string next = PrefixSuccessor(key.substr(0, 4));
    ASSIGN_OR_RETURN(last, Run({{"SELECT k FROM ttlstore_search WHERE h < $1::bytea ORDER BY h "
                                 "DESC, k DESC LIMIT 1",
                                 {next}}},
                               nullptr));
    uint32_t table_id;
    uint64_t seq;
    if (!last[0].rows.empty() && last[0].rows[0][0] &&
        DecodeSearchQueueKey(*last[0].rows[0][0], &table_id, &seq)) {
      largest = std::max(largest, seq);
    }
    if (next.empty()) break;
    from = next;
  }
  return largest;
}

}  // namespace ttlstore::storage
