// The PostgreSQL backend's schema and its numbered migrations. Each migration applied is recorded
// in the table ttlstore_schema with the oldest schema version a ttlstore binary must know to still
// read a database that has it (`readable_by`), so binaries of different versions can run on one
// database during a rolling upgrade: a binary applies the migrations it knows and the database
// lacks, and refuses to start only when a migration it does not know says it cannot read the data.
// Included by storage/ only.
#pragma once

#include <string>
#include <string_view>

#include "common/result.h"
#include "storage/pg_connection.h"
#include "storage/store.h"

namespace ttlstore::storage {

// The newest schema version this binary knows (and writes).
inline constexpr int kPgSchemaVersion = 2;

// A key space's keys are indexed by their first this many bytes (and a digest when longer).
inline constexpr size_t kPgKeyHeadBytes = 1024;

// A key's indexed columns: its first kPgKeyHeadBytes bytes (h), and its SHA-256 when it is
// longer, else empty (d).
std::string PgKeyHead(std::string_view key);
std::string PgKeyDigest(std::string_view key);

// The table holding one key space.
const char* PgTableOf(Store::Space space);

// The statement reading the rows (k, v) of `keys` of `space`, each no longer than a head (the
// key itself is h, d is empty), with `suffix` after (" FOR UPDATE"): `h = $1` for one key (it
// plans as a single probe, about half the cost), `h = ANY($1)` for more (one index scan, one
// prepared statement whatever the count). REQUIRES: !keys.empty().
PgStatement PgPointRead(Store::Space space, const std::vector<std::string>& keys,
                        std::string_view suffix = "");

// Brings the database's schema up to kPgSchemaVersion, or fails (kStorageUnavailable when the
// database cannot be reached; kInternal with a message naming both versions when the database
// holds a schema this binary cannot read). Safe to run from several processes at once: each
// migration is one transaction that starts by recording itself, so a second process applying
// the same migration waits for the first and then finds it done.
Status MigratePgSchema(PgConnection& conn);

}  // namespace ttlstore::storage
