// PgStore's sequenced writes (WriteBatch::PutSequenced): each head is a row of its family's
// table, locked in the committing transaction by an upsert that creates it when it is absent
// (empty, and so read as absent) and leaves it as it is otherwise, returning its value. A second
// transaction naming the head waits at that statement until the first has committed or rolled
// back, then reads what the first left (READ COMMITTED re-reads a row it waited for). So the
// values kept in a head change in commit order, whichever process commits; a transaction rolled
// back leaves its head as it found it. Heads are locked in key order, one statement each (a
// batch names one or two), all in one round trip.
#include "storage/pg_schema.h"
#include "storage/pg_sink.h"
#include "storage/pg_store.h"

namespace ttlstore::storage {

bool PgStore::ResolveSequencedHeads(PgConnection& conn, std::vector<PgStatement> before,
                                    const std::vector<BatchSink::Sequenced>& sequenced,
                                    std::vector<PgStatement>* out, PgError* error) {
  SequenceHeads heads;
  for (const auto& s : sequenced) heads.emplace(std::make_pair(s.space, s.head), std::nullopt);
  const size_t first = before.size();
  std::vector<PgStatement> statements = std::move(before);
  for (const auto& [where, value] : heads) {  // in (space, key) order: one locking order
    const std::string table = PgTableOf(where.first);
    statements.push_back({"INSERT INTO " + table +
                              " (h, d, k, v) VALUES ($1::bytea, $2::bytea, $3::bytea, "
                              "''::bytea) ON CONFLICT (h, d) DO UPDATE SET v = " + table +
                              ".v RETURNING v",
                          {PgKeyHead(where.second), PgKeyDigest(where.second), where.second},
                          /*prepared=*/true});
  }
  std::vector<PgRows> results;
  if (!conn.Run(statements, nullptr, &results, error)) return false;
  size_t i = first;
  for (auto& [where, value] : heads) {
    const auto& rows = results[i++].rows;
    if (!rows.empty() && rows[0][0] && !rows[0][0]->empty()) value = *rows[0][0];
  }
  PgSink resolved;
  ResolveSequenced(sequenced, heads, resolved);
  for (auto& s : resolved.Finish()) out->push_back(std::move(s));
  return true;
}

}  // namespace ttlstore::storage
