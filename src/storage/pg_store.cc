// The PostgreSQL backend (storage/pg_store.h).
#include "storage/pg_store.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <random>
#include <thread>
#include <unordered_map>

#include <spdlog/spdlog.h>

#include "common/coding.h"
#include "storage/backend.h"
#include "storage/catalog_codec.h"
#include "storage/key_codec.h"
#include "storage/pg_schema.h"
#include "storage/pg_sink.h"
#include "storage/search_queue.h"

namespace ttlstore::storage {
namespace {

using Space = Store::Space;

// Serialization failures and deadlocks are retried this many times before the caller gets a
// retryable error.
constexpr int kMaxAttempts = 8;
// Rows fetched by a scan's first statement, and per page after it.
constexpr size_t kFirstPage = 128;
constexpr size_t kPage = 512;
constexpr size_t kKeysPerStatement = PgStore::kKeysPerStatement;
// Connections open at most (PostgreSQL's default max_connections is 100).
constexpr size_t kMaxConnections = 48;

std::string Table(Space space) { return PgTableOf(space); }

// A scan: the first rows in one statement (a scan that fits is one round trip and one view of
// the data); a longer scan starts over inside a REPEATABLE READ transaction, whose snapshot every
// page then reads, so the whole scan sees one consistent view as the interface promises. The
// connection is held until the range is exhausted or the iterator is destroyed. A scan with a
// limit hint (below a page) reads hint + 1 rows in its one statement; only a caller that reads
// past them gets the rest, in a REPEATABLE READ transaction of its own (the hint's contract).
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
             bool reverse, const std::string* start_after, size_t limit_hint)
      : store_(store), table_(Table(space)), lower_(std::move(lower)), upper_(std::move(upper)),
        reverse_(reverse), hint_(limit_hint > 0 && limit_hint < kPage ? limit_hint : 0) {
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
    s.params = {PgKeyHead(lower_), PgKeyHead(upper_), lower_, upper_};
    auto param = [&s](std::string value) {
      s.params.push_back(std::move(value));
      return "$" + std::to_string(s.params.size()) + "::bytea";
    };
    if (in_group_) s.sql += " AND h = " + param(group_);
    if (has_past_head_) s.sql += (reverse_ ? " AND h < " : " AND h > ") + param(past_head_);
    if (has_after_) {
      if (!in_group_) s.sql += (reverse_ ? " AND h <= " : " AND h >= ") + param(PgKeyHead(after_));
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
    const size_t first = hint_ ? hint_ + 1 : kFirstPage + 1;
    if (!(*lease)->Exec(PageQuery(first), &rows, &error)) {
      status_ = PgStoreError(error, "scan failed");
      return;
    }
    if (rows.rows.size() < first || hint_) {
      // All of it, or all the caller wants (with one more row telling whether more follow):
      // pages past it, if read at all, come from a later view (FetchPages).
      Take(std::move(rows), first);
      if (rows_.empty()) FetchPages();
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
      if (!lease_ && hint_) {
        // A hinted scan read on past its hint: the rest in one view of its own.
        hint_ = 0;
        PgError error;
        auto lease = store_.pool().Acquire(&error);
        if (!lease) {
          status_ = PgStoreError(error, "scan failed");
          return;
        }
        lease_.emplace(std::move(*lease));
        std::vector<PgRows> results;
        if (!(*lease_)->Run({{"BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY", {}},
                             PageQuery(kPage)},
                            nullptr, &results, &error)) {
          status_ = PgStoreError(error, "scan failed");
          Finish();
          return;
        }
        Take(std::move(results[1]), kPage);
        continue;
      }
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
        group_ = PgKeyHead(last);
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
  size_t hint_;  // the caller's limit hint while the first page serves it, else 0
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
  PgStore* raw = store.get();
  store->point_reads_ = std::make_unique<PgPointReads>(
      kSpaceCount, [raw](size_t space, const std::vector<std::string>& keys) {
        return raw->FetchPoints(static_cast<Space>(space), keys);
      });
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

std::unique_ptr<BatchSink> PgStore::NewSink() const { return std::make_unique<PgSink>(); }

Status PgStore::Commit(BatchSink& sink) {
  std::vector<BatchSink::Sequenced> sequenced = std::move(sink.sequenced());
  sink.sequenced().clear();
  const auto& statements = static_cast<PgSink&>(sink).Finish();
  if (!sequenced.empty()) {
    // Two round trips in one transaction: the heads locked and read, then every write.
    return RetryConflicts([&](bool* conflict) -> Status {
      PgError error;
      auto lease = pool_->Acquire(&error);
      if (!lease) return PgStoreError(error, "no connection");
      std::vector<PgStatement> all = statements;
      if (ResolveSequencedHeads(**lease, {{"BEGIN ISOLATION LEVEL READ COMMITTED", {}}},
                                sequenced, &all, &error)) {
        all.push_back({"COMMIT", {}});
        if ((*lease)->Run(all, nullptr, nullptr, &error)) return Status::Ok();
      }
      *conflict = error.kind == PgFailure::kRetry;
      spdlog::warn("event=storage_write_failed message=\"{}\"", error.message);
      return PgStoreError(error, "statement failed");
    });
  }
  if (statements.empty()) return Status::Ok();
  auto done = Run(statements, "BEGIN");
  if (!done) {
    spdlog::warn("event=storage_write_failed message=\"{}\"", done.error().message());
    return done.error();
  }
  return Status::Ok();
}

Result<std::optional<std::string>> PgStore::GetIn(Space space, std::string_view key) const {
  if (key.size() <= kPgKeyHeadBytes) {
    return point_reads_->Get(static_cast<size_t>(space), std::string(key));
  }
  ASSIGN_OR_RETURN(results, Run({{"SELECT v FROM " + Table(space) +
                                      " WHERE h = $1::bytea AND d = $2::bytea",
                                  {PgKeyHead(key), PgKeyDigest(key)}, /*prepared=*/true}},
                                nullptr));
  if (results[0].rows.empty()) return std::optional<std::string>();
  return std::optional<std::string>(results[0].rows[0][0].value_or(""));
}

Result<std::vector<std::optional<std::string>>> PgStore::FetchPoints(
    Space space, const std::vector<std::string>& keys) const {
  ASSIGN_OR_RETURN(results, Run({PgPointRead(space, keys)}, nullptr));
  std::unordered_map<std::string_view, size_t> slot;
  for (size_t i = 0; i < keys.size(); ++i) slot.emplace(keys[i], i);
  std::vector<std::optional<std::string>> out(keys.size());
  for (const auto& row : results[0].rows) {
    auto it = slot.find(row[0].value_or(""));
    if (it != slot.end()) out[it->second] = row[1].value_or("");
  }
  return out;
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
    statements.back().params.push_back(PgKeyHead(keys[i]));
    statements.back().params.push_back(PgKeyDigest(keys[i]));
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
    statements.push_back(PgPointRead(Space::kItems, short_keys));
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
                                             bool reverse, const std::string* start_after,
                                             size_t limit_hint) const {
  return std::make_unique<PgIterator>(*this, space, std::move(lower), std::move(upper), reverse,
                                      start_after, limit_hint);
}

Result<std::vector<model::TableDescriptor>> PgStore::LoadTables() const {
  std::vector<model::TableDescriptor> tables;
  auto it = ScanIn(Space::kCatalog, std::string(), std::string(1, '\xff') + std::string(8, '\xff'),
                   false, nullptr, 0);
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
                       {PgKeyHead(lower), PgKeyHead(upper), std::string(lower), std::string(upper)}}},
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
