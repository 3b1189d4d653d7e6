// The DynamoDB JSON 1.0 protocol front end: X-Amz-Target -> handler, JSON in, JSON out.
// Transport-free: server/ hands it a target and a body and writes back what it returns, so
// tests can call it directly.
#pragma once

#include <string>
#include <string_view>

#include "common/clock.h"
#include "model/arn.h"
#include "ops/item_ops.h"
#include "ops/multi_item_ops.h"
#include "ops/table_ops.h"
#include "vector/knn_plan.h"

namespace ttlstore::backup {
class Backups;
class Imports;
class Exports;
class PitrRestores;
}  // namespace ttlstore::backup
namespace ttlstore::ttl {
class ExpiryBackfiller;
}  // namespace ttlstore::ttl
namespace ttlstore::ops {
class VectorGraphs;
}  // namespace ttlstore::ops

namespace ttlstore::api {

// What every handler may use. Built once at start-up.
struct Services {
  ops::TableCatalog& catalog;
  ops::ItemOps& items;
  ops::IdempotencyCache& tokens;  // TransactWriteItems ClientRequestToken
  const Clock& clock;
  std::string region = model::kDefaultRegion;
  std::string account_id = model::kDefaultAccountId;
  // Runs UpdateTable's index backfills and drops in the background (null: run them inline).
  index::IndexBuilder* index_builder = nullptr;
  // On-demand backups and restores (null: the backup operations are unknown operations).
  backup::Backups* backups = nullptr;
  // ImportTable and its describe/list (null: unknown operations).
  backup::Imports* imports = nullptr;
  // ExportTableToPointInTime and its describe/list (null: unknown operations).
  backup::Exports* exports = nullptr;
  // Point-in-time recovery's restores and window (null: continuous backups are reported
  // disabled and RestoreTableToPointInTime is an unknown operation).
  backup::PitrRestores* pitr = nullptr;
  // Runs UpdateTimeToLive's backfills of the expiry index (null: run them inline).
  ttl::ExpiryBackfiller* ttl_backfiller = nullptr;
  // The HNSW graphs SearchVectors ranks large vector indexes with (null: always exactly), and
  // the index size up to which it ranks exactly anyway (--knn-exact-up-to).
  ops::VectorGraphs* vector_graphs = nullptr;
  size_t knn_exact_up_to = vector::kDefaultExactUpTo;
};

struct ApiResponse {
  int http_status = 200;
  std::string body;
  // The operation name ("PutItem") or "" when the target was not understood; the error's short
  // type ("ValidationException") or "" on success. For metrics and logs.
  std::string operation;
  std::string error_type;
  std::string error_message;
};

// The response for a request refused before dispatch (e.g. by authentication).
ApiResponse ErrorResponse(const Error& error);

// What the transport knows of a request that an answer may name.
struct RequestContext {
  // The address the client reached this server at ("127.0.0.1:8000", the Host header):
  // DescribeEndpoints answers with it, so a client doing endpoint discovery stays here. Empty:
  // "localhost".
  std::string_view host;
};

// Handles one request. `target` is the X-Amz-Target header value.
ApiResponse Dispatch(const Services& services, std::string_view target, std::string_view body,
                     const RequestContext& context = {});

}  // namespace ttlstore::api
