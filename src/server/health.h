// GET /health: whether this process can reach its storage. With a database (several processes
// behind a load balancer, issue 34) a balancer's health check must take a process that has lost
// its database out of rotation; on RocksDB the read is local and always answers.
#pragma once

#include "server/request_handler.h"
#include "storage/store.h"

namespace ttlstore::server {

// 200 {"status":"ok","storage":"reachable"} after one read of the store, or 503
// {"status":"unavailable","storage":"unreachable","message":"..."} when that read fails.
Response HealthResponse(const storage::Store& store);

}  // namespace ttlstore::server
