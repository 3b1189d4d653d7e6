// PgConnection and PgPool: libpq connections for the PostgreSQL backend (storage/pg_store.h).
// A PgConnection runs statements with binary parameters and results, alone or many in one
// pipeline (one round trip), and classifies failures: a serialization failure or deadlock
// (SQLSTATE 40001, 40P01) is kRetry, a lost or unusable connection is kUnavailable, anything else
// kFailed. PgPool hands out connections to one thread at a time and opens new ones as needed (up
// to a cap), replacing a connection found broken. Included by storage/ only.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/result.h"

struct pg_conn;
struct pg_result;

namespace ttlstore::storage {

// One statement: SQL text with $1..$n and its parameters, each bytes sent in binary format
// (bytea as is, bigint/integer as big-endian), or null. A `prepared` statement is parsed once per
// connection (a named prepared statement, created in the same pipeline as its first use) and
// then only bound and executed; PostgreSQL may then plan it once for every parameter value (a
// generic plan). So only statements whose best plan does not depend on the values should be
// prepared: point reads and writes by the whole primary key, not range scans (whose ORDER BY
// plan depends on how many rows the range holds).
struct PgStatement {
  std::string sql;
  std::vector<std::optional<std::string>> params;
  bool prepared = false;
};

// The rows of one statement's result, binary format: rows[r][c], nullopt for NULL.
struct PgRows {
  std::vector<std::vector<std::optional<std::string>>> rows;
  uint64_t affected = 0;  // rows inserted, updated or deleted
};

enum class PgFailure {
  kRetry,        // 40001 / 40P01: the transaction was rolled back; running it again is safe
  kUnavailable,  // the connection is lost or the server refuses connections now
  kFailed,       // any other error (a bug or a schema problem)
};

struct PgError {
  PgFailure kind = PgFailure::kFailed;
  std::string sqlstate;
  std::string message;
};

class PgConnection {
 public:
  PgConnection(const PgConnection&) = delete;
  PgConnection& operator=(const PgConnection&) = delete;
  ~PgConnection();

  // Connects with a libpq connection string or URI. Fails with a message that never contains
  // the password.
  static std::unique_ptr<PgConnection> Connect(const std::string& conninfo, PgError* error);

  // Runs the statements in one pipeline (one round trip), in order, and returns each one's rows.
  // With `begin` (e.g. "BEGIN" or "BEGIN ISOLATION LEVEL REPEATABLE READ") they run between it and
  // COMMIT: all or none take effect. After a failure the connection is left outside any
  // transaction. On a kUnavailable failure the outcome of a COMMIT is unknown.
  bool Run(const std::vector<PgStatement>& statements, const char* begin,
           std::vector<PgRows>* results, PgError* error);
  // One statement, outside an explicit transaction.
  bool Exec(const PgStatement& statement, PgRows* rows, PgError* error);

  // Whether the connection can still be used (false after a lost connection).
  bool Healthy() const;
  // The server's version as libpq reports it (e.g. 150004 for 15.4).
  int ServerVersion() const;
  // A server parameter reported at connection start (e.g. "server_version"), or "".
  std::string Parameter(const char* name) const;

 private:
  explicit PgConnection(pg_conn* conn) : conn_(conn) {}
  // Reads `expected` results and the pipeline's sync; ok[i] tells whether result i succeeded.
  bool Collect(size_t expected, std::vector<PgRows>* results, std::vector<bool>* ok,
               PgError* error);
  void Recover();
  PgError ErrorOf(const pg_result* res) const;

  pg_conn* conn_ = nullptr;
  // The statements prepared on this connection: SQL text -> statement name.
  std::unordered_map<std::string, std::string> prepared_;
};

class PgPool {
 public:
  // `max_open`: connections open at most at once; an Acquire past it waits for a release.
  PgPool(std::string conninfo, size_t max_open);
  ~PgPool();

  class Lease {
   public:
    Lease() = default;
    Lease(Lease&& other) noexcept : pool_(other.pool_), conn_(std::move(other.conn_)) {
      other.pool_ = nullptr;
    }
    Lease& operator=(Lease&&) = delete;
    ~Lease() {
      if (pool_) pool_->Release(std::move(conn_));
    }
    PgConnection* operator->() const { return conn_.get(); }
    PgConnection& operator*() const { return *conn_; }

   private:
    friend class PgPool;
    Lease(PgPool* pool, std::unique_ptr<PgConnection> conn)
        : pool_(pool), conn_(std::move(conn)) {}
    PgPool* pool_ = nullptr;
    std::unique_ptr<PgConnection> conn_;
  };

  // A connection for the caller alone until the lease ends; nullopt (and `error`) when the
  // database cannot be reached.
  std::optional<Lease> Acquire(PgError* error);

 private:
  void Release(std::unique_ptr<PgConnection> conn);

  const std::string conninfo_;
  const size_t max_open_;
  std::mutex mu_;
  std::condition_variable released_;
  std::vector<std::unique_ptr<PgConnection>> idle_;
  size_t open_ = 0;  // idle + leased
};

// Encodings of binary-format parameters and results.
std::string PgInt64(int64_t v);
std::string PgInt32(int32_t v);
std::string PgInt16(int16_t v);
bool PgDecodeInt64(std::string_view bytes, int64_t* v);
// A one-dimensional bytea[] without nulls in the binary array format, for `= ANY($n::bytea[])`:
// one parameter (and one prepared statement) for any number of keys.
std::string PgByteaArray(const std::vector<std::string>& items);

}  // namespace ttlstore::storage
