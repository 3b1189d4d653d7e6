// The PostgreSQL backend's migrations (storage/pg_schema.h). The SQL stays within what
// PostgreSQL 14+, YugabyteDB YSQL and CockroachDB accept (docs/storage.md lists it).
#include "storage/pg_schema.h"

#include <algorithm>
#include <string>
#include <vector>

#include <openssl/sha.h>

namespace ttlstore::storage {

std::string PgKeyHead(std::string_view key) {
  return std::string(key.substr(0, kPgKeyHeadBytes));
}

std::string PgKeyDigest(std::string_view key) {
  if (key.size() <= kPgKeyHeadBytes) return std::string();
  unsigned char md[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(key.data()), key.size(), md);
  return std::string(reinterpret_cast<const char*>(md), sizeof md);
}

namespace {

struct Migration {
  int version;
  // The oldest schema version a binary must know to read a database holding this migration.
  int readable_by;
  const char* description;
  std::vector<std::string> (*statements)(bool yugabyte);
};

constexpr const char* kSpaceTables[] = {
    "ttlstore_meta",   "ttlstore_catalog", "ttlstore_items",   "ttlstore_stats",
    "ttlstore_expiry", "ttlstore_indexes", "ttlstore_streams", "ttlstore_rows",
    "ttlstore_purge",  "ttlstore_pitr",    "ttlstore_search",  "ttlstore_sequences",
    "ttlstore_leases", "ttlstore_tokens",
};

// The spaces version 1 created (the first twelve); later ones come with their own migration.
constexpr size_t kVersion1Spaces = 12;

// One key space's table (see Version1 for the key columns).
std::string SpaceTable(const char* name, bool yugabyte) {
  const std::string pk = yugabyte ? "PRIMARY KEY (h ASC, d ASC)" : "PRIMARY KEY (h, d)";
  return std::string("CREATE TABLE ") + name +
         " (h bytea NOT NULL, d bytea NOT NULL, k bytea NOT NULL, v bytea NOT NULL, " + pk + ")";
}

// Version 1: one table per key space. A key is stored whole in `k`, but a B-tree entry holds at
// most about 2.7 KB and an item key can be longer (a 2048-byte partition key and a 1024-byte
// sort key, encoded): the primary key is (h, d), h the key's first kPgKeyHeadBytes bytes and d
// empty, or the key's SHA-256 when the key is longer. Key order is (h, k) order, so scans range
// over h in the index and order ties by k (docs/storage.md). YugabyteDB hash-partitions a
// primary key's first column unless told ASC, which would turn every range scan into a full
// scan; PostgreSQL does not accept ASC there, so the clause depends on the engine.
std::vector<std::string> Version1(bool yugabyte) {
  std::vector<std::string> out;
  for (size_t i = 0; i < kVersion1Spaces; ++i) {
    if (static_cast<Store::Space>(i) == Store::Space::kStats) continue;
    out.push_back(SpaceTable(kSpaceTables[i], yugabyte));
  }
  // Stats are sums of additions spread over shards, so concurrent writers to one table do not
  // all wait on one row (docs/storage.md).
  out.push_back(std::string("CREATE TABLE ttlstore_stats (k bytea NOT NULL, shard integer NOT "
                            "NULL, items bigint NOT NULL, bytes bigint NOT NULL, ") +
                (yugabyte ? "PRIMARY KEY (k ASC, shard ASC))" : "PRIMARY KEY (k, shard))"));
  out.push_back("CREATE TABLE ttlstore_counters (name text NOT NULL PRIMARY KEY, value bigint NOT "
                "NULL)");
  return out;
}

// Version 2: the rows Store::ReadModifyWrite locks (pg_store.cc, docs/storage.md): one per key
// being read for update (its space byte . key, as h and d above), inserted by the transaction
// and deleted by its commit, so the table is empty at rest. Binaries of version 1 can still read
// the database (they do not take these locks: run one version at a time when several processes
// share a database).
std::vector<std::string> Version2(bool yugabyte) {
  return {std::string("CREATE TABLE ttlstore_rmw_locks (h bytea NOT NULL, d bytea NOT NULL, n "
                      "integer NOT NULL, ") +
          (yugabyte ? "PRIMARY KEY (h ASC, d ASC))" : "PRIMARY KEY (h, d))")};
}

// Version 3: the leases of background work (storage/lease.h, docs/background-jobs.md) and the
// ClientRequestTokens of transactions (ops/request_tokens.h). Older binaries can read the
// database; they run background work without leases and keep tokens in memory, so run one
// version at a time when several processes share a database.
std::vector<std::string> Version3(bool yugabyte) {
  return {SpaceTable(kSpaceTables[static_cast<size_t>(Store::Space::kLeases)], yugabyte),
          SpaceTable(kSpaceTables[static_cast<size_t>(Store::Space::kTokens)], yugabyte)};
}

const Migration kMigrations[] = {
    {1, 1, "key spaces, stats shards, counters", &Version1},
    {2, 1, "read-modify-write key locks", &Version2},
    {3, 1, "leases of background work, request tokens", &Version3},
};

}  // namespace

const char* PgTableOf(Store::Space space) { return kSpaceTables[static_cast<size_t>(space)]; }

PgStatement PgPointRead(Store::Space space, const std::vector<std::string>& keys,
                        std::string_view suffix) {
  const std::string select = std::string("SELECT k, v FROM ") + PgTableOf(space);
  if (keys.size() == 1) {
    return {select + " WHERE h = $1::bytea AND d = ''::bytea" + std::string(suffix), {keys[0]},
            /*prepared=*/true};
  }
  return {select + " WHERE h = ANY($1::bytea[]) AND d = ''::bytea" + std::string(suffix),
          {PgByteaArray(keys)}, /*prepared=*/true};
}

Status MigratePgSchema(PgConnection& conn) {
  PgError error;
  auto fail = [&](const std::string& what) -> Status {
    if (error.kind == PgFailure::kUnavailable) {
      return Error(ErrorCode::kStorageUnavailable, what + ": " + error.message);
    }
    return Error::Internal(what + ": " + error.message);
  };
  const bool yugabyte = conn.Parameter("server_version").find("-YB-") != std::string::npos;
  // Two processes creating the table at once may collide on the catalog (23505): look again.
  for (int attempt = 0;; ++attempt) {
    if (conn.Exec({"CREATE TABLE IF NOT EXISTS ttlstore_schema (version integer NOT NULL PRIMARY "
                   "KEY, readable_by integer NOT NULL, description text NOT NULL, applied_at "
                   "timestamptz NOT NULL DEFAULT now())",
                   {}},
                  nullptr, &error)) {
      break;
    }
    if (attempt >= 3 || (error.sqlstate != "23505" && error.kind != PgFailure::kRetry)) {
      return fail("cannot create the schema table");
    }
  }
  PgRows applied;
  if (!conn.Exec({"SELECT version, readable_by FROM ttlstore_schema ORDER BY version", {}},
                 &applied, &error)) {
    return fail("cannot read the schema version");
  }
  std::vector<int> versions;
  int newest = 0, needs = 0;
  for (const auto& row : applied.rows) {
    int64_t version = 0, readable_by = 0;
    std::string v = row[0].value_or(""), r = row[1].value_or("");
    // integer columns come as 4 bytes big-endian
    if (v.size() != 4 || r.size() != 4) return Error::Internal("corrupt ttlstore_schema row");
    for (char c : v) version = version << 8 | static_cast<uint8_t>(c);
    for (char c : r) readable_by = readable_by << 8 | static_cast<uint8_t>(c);
    versions.push_back(static_cast<int>(version));
    newest = std::max(newest, static_cast<int>(version));
    needs = std::max(needs, static_cast<int>(readable_by));
  }
  if (needs > kPgSchemaVersion) {
    return Error::Internal("the database holds ttlstore schema version " +
                           std::to_string(newest) + ", which only binaries knowing schema " +
                           std::to_string(needs) + " or later can read; this binary knows " +
                           std::to_string(kPgSchemaVersion) + ": upgrade ttlstore");
  }
  for (const Migration& m : kMigrations) {
    if (std::find(versions.begin(), versions.end(), m.version) != versions.end()) continue;
    std::vector<PgStatement> statements;
    statements.push_back({"INSERT INTO ttlstore_schema (version, readable_by, description) "
                          "VALUES ($1::integer, $2::integer, $3::text)",
                          {PgInt32(m.version), PgInt32(m.readable_by), std::string(m.description)}});
    for (auto& sql : m.statements(yugabyte)) statements.push_back({std::move(sql), {}});
    if (!conn.Run(statements, "BEGIN", nullptr, &error)) {
      if (error.sqlstate == "23505") continue;  // another process applied it meanwhile
      return fail("migration " + std::to_string(m.version) + " failed");
    }
  }
  return Status::Ok();
}

}  // namespace ttlstore::storage
