// SearchEngine: the search indexes of Tablestore tables (issue 20). Each index is a Xapian
// database under <data-dir>/search/<id>, fed asynchronously from a queue of changed row keys
// that StageRowChange (ops/row_batch.h) writes in the same WriteBatch as the row. One
// background thread applies the queue (re-reading each row's current state, so a replay is
// idempotent), builds new indexes from the table's rows with a resumable cursor, and purges
// documents past the index's or the table's TTL by an expiry order, not a scan. The applied
// queue position and the build cursor are committed inside the Xapian commit, so a kill -9
// at any point resumes exactly (docs/background-jobs.md).
//
// Reads never wait for the queue: like the service's, a search index is near-real-time. Rows
// past the index's TTL (T11) or the table's TTL are hidden at query time, before any purge.
//
// For the front end (tablestore/): CreateSearchIndex gives the new SearchIndexMeta an id from
// TableCatalog::AllocateId(), create_time_us, building = true, adds it with catalog.Update and
// calls Wake(); DeleteSearchIndex removes it with catalog.Update and calls Wake() (the folder is
// deleted by the background thread); DescribeSearchIndex reads Stats(). Search and
// ParallelScan return `rows` keys: read the rows with versions::DecodeRowKey / RowOps. Every
// refusal is ErrorCode::kValidation (OTSParameterInvalid) with the text to show
// (docs/compatibility.md, "Tablestore search indexes"); a bad next_token is "invalid
// next_token". Tokens are opaque bytes of at most 64 KiB (search/token.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "common/clock.h"
#include "common/result.h"
#include "model/search_index.h"
#include "model/versioned_table.h"
#include "search/query.h"

namespace ttlstore::storage { class Store; }
namespace ttlstore::ops { class TableCatalog; }
namespace ttlstore::vector { class GraphRegistry; }

namespace ttlstore::search {

// ParallelScan's error for a next_token past its alive_time: the message after this prefix,
// with the service's code OTSSessionExpired (tablestore/error_map.cc).
inline constexpr std::string_view kSessionExpiredPrefix = "OTSSessionExpired:";

struct IndexStats {
  bool full_sync = true;             // SyncPhase FULL while building, else INCR
  int64_t current_sync_timestamp_ms = 0;  // rows written up to here are searchable
  int64_t row_count = 0;
  int64_t storage_size = 0;          // bytes of the Xapian database
};

class SearchEngine {
 public:
  // `dir` is <data-dir>/search.
  SearchEngine(storage::Store& store, ops::TableCatalog& catalog, std::string dir,
               const Clock& clock);
  ~SearchEngine();

  // Opens every index the catalog names (creating missing databases, removing folders of
  // indexes no table names) and starts the background thread.
  Status Start();
  void Stop();
  // The catalog gained or lost an index, or a table's options changed: look again now.
  void Wake();

  // Ok, or Error::Validation with the service's text, for `q` against `index`.
  static Status Validate(const model::SearchIndexMeta& index, const Query& q);

  Result<SearchResult> Search(uint32_t table_id, const model::TablestoreSchema& table,
                              const model::SearchIndexMeta& index, const SearchRequest& req);
  // The number of splits ParallelScan may use, and a session id for them.
  Result<int32_t> ComputeSplits(const model::SearchIndexMeta& index, std::string* session_id);
  Result<ScanResult> ParallelScan(uint32_t table_id, const model::TablestoreSchema& table,
                                  const model::SearchIndexMeta& index, const ScanRequest& req);

  IndexStats Stats(const model::SearchIndexMeta& index) const;
  // KNN (docs/vector-engine.md, "How KNN is served"): filtered sets of at most `n` documents
  // are ranked exactly, larger ones through the field's HNSW graph. Call before Start.
  void SetKnnExactUpTo(size_t n);
  // Where the graphs are published (ids "ts/<index id>/<slot>"); the engine's own unless one
  // shared with other users (DynamoDB's vector indexes) is given before Start.
  void SetGraphRegistry(vector::GraphRegistry* registry);
  // Prometheus text: KNN queries by path (graph, exact) and the graphs ready.
  std::string MetricsText() const;

  // On a store several processes share: follow the change queue by cursors published in a
  // record renewed within `lease_ms` (search/shared_queue.h), instead of deleting what this
  // process applied. The record's id is kept in `dir` (a restart carries on as the same
  // consumer). Call before Start; a store no other process opens ignores it.
  void ShareQueue(int64_t lease_ms);

  // Waits until every change queued before the call is searchable here and no index is
  // building (tests, `ttlstore check`); works under a steady write load too. Internal error
  // after 120 s.
  Status Flush();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ttlstore::search
