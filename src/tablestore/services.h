// What the Tablestore front end's handlers work with: the shared catalog (tables of both front
// ends, each seeing its own), the versioned-row engine, the clock, and the operator's settings.
#pragma once

#include <cstdint>
#include <string_view>

#include "auth/credentials.h"
#include "auth/policy.h"
#include "common/clock.h"
#include "ops/local_transactions.h"
#include "ops/row_ops.h"
#include "ops/table_ops.h"
#include "ops/ts_index_backfill.h"

namespace ttlstore::search { class SearchEngine; }

namespace ttlstore::tablestore {

struct Services {
  ops::TableCatalog& catalog;
  ops::RowOps& rows;
  const Clock& clock;
  // Access keys whose signatures are verified; nullptr: any key and signature are accepted.
  const auth::Credentials* credentials = nullptr;
  // The smallest table TTL in seconds besides -1 (the service's is one day; lower for testing).
  int64_t min_time_to_live = 86400;
  // What each access key may do ("ots:<Action>" on acs:ots:... table resources); null: anything.
  const auth::PolicySet* policies = nullptr;
  // Local transactions; every row write goes through it (ops/local_transactions.h). Null: none
  // (the transaction operations answer OTSParameterInvalid, writes go straight to `rows`).
  ops::LocalTransactions* transactions = nullptr;
  // Secondary indexes' backfills and drops (ops/ts_index_backfill.h), woken by CreateIndex and
  // DropIndex. Null: the work waits for the next start that has one.
  ops::TsIndexBackfill* index_backfill = nullptr;
  // Search indexes' documents and queries (search/search_engine.h), woken by the search-index
  // calls that change the catalog. Null: Search, ComputeSplits and ParallelScan are refused.
  search::SearchEngine* search = nullptr;

  // Per request, on the front end's copy of these services: the caller and the operation.
  std::string_view access_key_id;
  std::string_view instance;
  std::string_view action;
};

}  // namespace ttlstore::tablestore
