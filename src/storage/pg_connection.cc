// libpq connections and their pool for the PostgreSQL backend (storage/pg_connection.h).
#include "storage/pg_connection.h"

#include <libpq-fe.h>

#include <chrono>
#include <cstring>

#include "common/coding.h"

namespace ttlstore::storage {
namespace {

// SQLSTATEs after which the same work may simply be tried again (the transaction was rolled
// back): serialization failure, deadlock.
bool IsRetryable(std::string_view state) { return state == "40001" || state == "40P01"; }

// SQLSTATEs meaning the database cannot serve now, though the request was fine: connection
// exceptions (class 08), shutdown or start-up in progress (57P01-57P03), too many connections
// (53300), and a standby that refuses writes (25006: the primary failed over and this connection
// still points at the old one).
bool IsUnavailable(std::string_view state) {
  return state.substr(0, 2) == "08" || state == "57P01" || state == "57P02" || state == "57P03" ||
         state == "53300" || state == "25006";
}

// libpq's message without its trailing newline.
std::string Trimmed(const char* message) {
  std::string m = message ? message : "";
  while (!m.empty() && (m.back() == '\n' || m.back() == ' ')) m.pop_back();
  return m;
}

}  // namespace

std::string PgInt64(int64_t v) {
  std::string out;
  PutFixed64BE(&out, static_cast<uint64_t>(v));
  return out;
}

std::string PgInt32(int32_t v) {
  std::string out;
  PutFixed32BE(&out, static_cast<uint32_t>(v));
  return out;
}

std::string PgByteaArray(const std::vector<std::string>& items) {
  constexpr uint32_t kByteaOid = 17;
  std::string out;
  PutFixed32BE(&out, 1);          // dimensions
  PutFixed32BE(&out, 0);          // no nulls
  PutFixed32BE(&out, kByteaOid);  // element type
  PutFixed32BE(&out, static_cast<uint32_t>(items.size()));
  PutFixed32BE(&out, 1);  // lower bound
  for (const auto& item : items) {
    PutFixed32BE(&out, static_cast<uint32_t>(item.size()));
    out += item;
  }
  return out;
}

std::string PgInt16(int16_t v) {
  auto u = static_cast<uint16_t>(v);
  return std::string{static_cast<char>(u >> 8), static_cast<char>(u & 0xff)};
}

bool PgDecodeInt64(std::string_view bytes, int64_t* v) {
  uint64_t u;
  if (bytes.size() != 8 || !GetFixed64BE(&bytes, &u)) return false;
  *v = static_cast<int64_t>(u);
  return true;
}

PgConnection::~PgConnection() {
  if (conn_) PQfinish(conn_);
}

std::unique_ptr<PgConnection> PgConnection::Connect(const std::string& conninfo,
                                                    PgError* error) {
  pg_conn* conn = PQconnectdb(conninfo.c_str());
  if (conn == nullptr) {
    *error = {PgFailure::kUnavailable, "", "out of memory opening a PostgreSQL connection"};
    return nullptr;
  }
  if (PQstatus(conn) != CONNECTION_OK) {
    // libpq's message names the host and port and why; it never contains the password.
    *error = {PgFailure::kUnavailable, "", Trimmed(PQerrorMessage(conn))};
    PQfinish(conn);
    return nullptr;
  }
  // The server's notices (e.g. "relation already exists, skipping") are not errors: dropped
  // rather than written to stderr by libpq's default processor.
  PQsetNoticeProcessor(conn, [](void*, const char*) {}, nullptr);
  // Plans. Every statement of this backend reads by primary key: single keys, `= ANY` lists,
  // and ranges in key order that stop after a page. For rows that arrived since a table's last
  // ANALYZE (a bulk load, a TTL wave's expiry entries) the planner's estimates are far too low,
  // and with them it chose a sequential scan of the whole table for each `= ANY` read during a
  // load, and a bitmap scan plus a sort of the whole range for each page of the sweeper's scan
  // (auto_explain: 30-70 ms per statement over 40,000 fresh rows, where the index reads only
  // the rows returned). An index scan is right for each of them at any table size, so the
  // session asks the planner to use one wherever one applies (the settings weigh against the
  // other plans; they forbid nothing). An engine that refuses them (CockroachDB, whose optimizer
  // refreshes its statistics by itself, knows other settings) is left as it is: they only help.
  for (const char* sql : {"SET enable_seqscan = off", "SET enable_bitmapscan = off"}) {
    PQclear(PQexec(conn, sql));
    if (PQstatus(conn) != CONNECTION_OK) {
      *error = {PgFailure::kUnavailable, "", Trimmed(PQerrorMessage(conn))};
      PQfinish(conn);
      return nullptr;
    }
  }
  return std::unique_ptr<PgConnection>(new PgConnection(conn));
}

bool PgConnection::Healthy() const { return conn_ && PQstatus(conn_) == CONNECTION_OK; }

int PgConnection::ServerVersion() const { return PQserverVersion(conn_); }

std::string PgConnection::Parameter(const char* name) const {
  const char* v = PQparameterStatus(conn_, name);
  return v ? v : "";
}

PgError PgConnection::ErrorOf(const pg_result* res) const {
  PgError e;
  const char* state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : nullptr;
  e.sqlstate = state ? state : "";
  e.message = Trimmed(res ? PQresultErrorMessage(res) : PQerrorMessage(conn_));
  if (e.message.empty()) e.message = Trimmed(PQerrorMessage(conn_));
  if (!Healthy() || IsUnavailable(e.sqlstate)) {
    e.kind = PgFailure::kUnavailable;
  } else if (IsRetryable(e.sqlstate)) {
    e.kind = PgFailure::kRetry;
  } else {
    e.kind = PgFailure::kFailed;
  }
  return e;
}

void PgConnection::Recover() {
  if (!Healthy()) return;
  if (PQpipelineStatus(conn_) != PQ_PIPELINE_OFF) {
    // Drain whatever is left, then leave pipeline mode.
    while (PGresult* r = PQgetResult(conn_)) PQclear(r);
    PQexitPipelineMode(conn_);
  }
  PGTransactionStatusType ts = PQtransactionStatus(conn_);
  if (ts == PQTRANS_INTRANS || ts == PQTRANS_INERROR) PQclear(PQexec(conn_, "ROLLBACK"));
}

bool PgConnection::Collect(size_t expected, std::vector<PgRows>* results,
                           std::vector<bool>* succeeded, PgError* error) {
  bool ok = true;
  succeeded->assign(expected, false);
  for (size_t i = 0; i < expected; ++i) {
    PGresult* res = PQgetResult(conn_);
    if (res == nullptr) {
      if (ok) *error = ErrorOf(nullptr);
      return false;
    }
    ExecStatusType st = PQresultStatus(res);
    if (st == PGRES_TUPLES_OK || st == PGRES_COMMAND_OK) {
      (*succeeded)[i] = true;
      if (results) {
        PgRows rows;
        int n = PQntuples(res), cols = PQnfields(res);
        rows.rows.reserve(n);
        for (int r = 0; r < n; ++r) {
          std::vector<std::optional<std::string>> row(cols);
          for (int c = 0; c < cols; ++c) {
            if (!PQgetisnull(res, r, c)) {
              row[c].emplace(PQgetvalue(res, r, c), PQgetlength(res, r, c));
            }
          }
          rows.rows.push_back(std::move(row));
        }
        const char* affected = PQcmdTuples(res);
        rows.affected = affected && *affected ? std::strtoull(affected, nullptr, 10) : 0;
        results->push_back(std::move(rows));
      }
    } else if (st == PGRES_PIPELINE_ABORTED) {
      ok = false;  // an earlier statement's error was recorded already
    } else {
      if (ok) *error = ErrorOf(res);
      ok = false;
    }
    PQclear(res);
    // Each statement's results end with a null.
    while (PGresult* extra = PQgetResult(conn_)) PQclear(extra);
  }
  PGresult* sync = PQgetResult(conn_);
  if (sync == nullptr || PQresultStatus(sync) != PGRES_PIPELINE_SYNC) {
    if (ok) *error = ErrorOf(sync);
    ok = false;
  }
  if (sync) PQclear(sync);
  return ok;
}

bool PgConnection::Run(const std::vector<PgStatement>& statements, const char* begin,
                       std::vector<PgRows>* results, PgError* error) {
  if (results) results->clear();
  if (!Healthy()) {
    *error = ErrorOf(nullptr);
    error->kind = PgFailure::kUnavailable;
    return false;
  }
  if (PQenterPipelineMode(conn_) != 1) {
    *error = ErrorOf(nullptr);
    return false;
  }
  size_t sent = 0;
  // Statements prepared by this pipeline: result slot of the Parse -> (SQL, name). A name is
  // recorded as prepared only once its Parse succeeded (one after an error in the same pipeline
  // is skipped by the server, and will be prepared again next time).
  std::vector<std::pair<size_t, std::pair<const std::string*, std::string>>> preparing;
  std::vector<bool> is_prepare;
  auto send = [&](const PgStatement& s) {
    std::vector<const char*> values(s.params.size());
    std::vector<int> lengths(s.params.size()), formats(s.params.size(), 1);
    for (size_t i = 0; i < s.params.size(); ++i) {
      if (s.params[i]) {
        values[i] = s.params[i]->data();
        lengths[i] = static_cast<int>(s.params[i]->size());
      }
    }
    const int n = static_cast<int>(s.params.size());
    if (!s.prepared) {
      if (PQsendQueryParams(conn_, s.sql.c_str(), n, nullptr, values.data(), lengths.data(),
                            formats.data(), /*resultFormat=*/1) != 1) {
        return false;
      }
    } else {
      std::string name;
      if (auto it = prepared_.find(s.sql); it != prepared_.end()) {
        name = it->second;
      } else {
        for (const auto& p : preparing) {
          if (*p.second.first == s.sql) name = p.second.second;
        }
        if (name.empty()) {
          name = "t" + std::to_string(prepared_.size() + preparing.size() + 1);
          if (PQsendPrepare(conn_, name.c_str(), s.sql.c_str(), n, nullptr) != 1) return false;
          preparing.push_back({sent++, {&s.sql, name}});
          is_prepare.push_back(true);
        }
      }
      if (PQsendQueryPrepared(conn_, name.c_str(), n, values.data(), lengths.data(),
                              formats.data(), /*resultFormat=*/1) != 1) {
        return false;
      }
    }
    ++sent;
    is_prepare.push_back(false);
    return true;
  };
  static const std::string kCommit = "COMMIT";
  bool ok = true;
  const bool transaction = begin != nullptr;
  const PgStatement begin_statement{begin ? begin : "", {}, true};
  const PgStatement commit_statement{kCommit, {}, true};
  if (transaction) ok = send(begin_statement);
  for (size_t i = 0; ok && i < statements.size(); ++i) ok = send(statements[i]);
  if (ok && transaction) ok = send(commit_statement);
  if (ok) ok = PQpipelineSync(conn_) == 1;
  if (!ok) {
    *error = ErrorOf(nullptr);
    Recover();
    return false;
  }
  std::vector<PgRows> all;
  std::vector<bool> succeeded;
  ok = Collect(sent, &all, &succeeded, error);
  for (const auto& [slot, what] : preparing) {
    if (slot < succeeded.size() && succeeded[slot]) prepared_.emplace(*what.first, what.second);
  }
  if (ok) PQexitPipelineMode(conn_);
  if (!ok) {
    Recover();
    return false;
  }
  if (results) {
    // `all` holds a result per sent message, Parses included: keep the statements' own.
    std::vector<PgRows> own;
    own.reserve(all.size());
    for (size_t i = 0; i < all.size(); ++i) {
      if (!is_prepare[i]) own.push_back(std::move(all[i]));
    }
    size_t first = transaction ? 1 : 0;
    for (size_t i = first; i < first + statements.size(); ++i) {
      results->push_back(std::move(own[i]));
    }
  }
  return true;
}

bool PgConnection::Exec(const PgStatement& statement, PgRows* rows, PgError* error) {
  std::vector<PgRows> results;
  if (!Run({statement}, nullptr, &results, error)) return false;
  if (rows) *rows = std::move(results[0]);
  return true;
}

PgPool::PgPool(std::string conninfo, size_t max_open)
    : conninfo_(std::move(conninfo)), max_open_(max_open) {}

PgPool::~PgPool() = default;

std::optional<PgPool::Lease> PgPool::Acquire(PgError* error) {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    while (!idle_.empty()) {
      std::unique_ptr<PgConnection> conn = std::move(idle_.back());
      idle_.pop_back();
      if (conn->Healthy()) return Lease(this, std::move(conn));
      --open_;  // a connection the server closed while it was idle: replace it
    }
    if (open_ < max_open_) break;
    // Every connection is leased: wait for one, but not forever (a caller holding several
    // leases while others wait for theirs would otherwise never finish).
    if (!released_.wait_for(lock, std::chrono::seconds(10),
                            [&] { return !idle_.empty() || open_ < max_open_; })) {
      *error = {PgFailure::kUnavailable, "",
                "every PostgreSQL connection of the pool is in use (" +
                    std::to_string(max_open_) + ")"};
      return std::nullopt;
    }
  }
  ++open_;
  lock.unlock();
  auto conn = PgConnection::Connect(conninfo_, error);
  if (!conn) {
    std::lock_guard<std::mutex> relock(mu_);
    --open_;
    released_.notify_one();
    return std::nullopt;
  }
  return Lease(this, std::move(conn));
}

void PgPool::Release(std::unique_ptr<PgConnection> conn) {
  std::lock_guard<std::mutex> lock(mu_);
  if (conn && conn->Healthy()) {
    idle_.push_back(std::move(conn));
  } else {
    --open_;
    // A connection lost its server (a restart, a failover): the idle ones very likely did too.
    // Close them now rather than fail one more request with each.
    open_ -= idle_.size();
    idle_.clear();
  }
  released_.notify_one();
}

}  // namespace ttlstore::storage
