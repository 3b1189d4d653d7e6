// What the Tablestore front end's handlers work with: the shared catalog (tables of both front
// ends, each seeing its own), the versioned-row engine, the clock, and the operator's settings.
#pragma once

#include <cstdint>

#include "auth/credentials.h"
#include "common/clock.h"
#include "ops/row_ops.h"
#include "ops/table_ops.h"

namespace ttlstore::tablestore {

struct Services {
  ops::TableCatalog& catalog;
  ops::RowOps& rows;
  const Clock& clock;
  // Access keys whose signatures are verified; nullptr: any key and signature are accepted.
  const auth::Credentials* credentials = nullptr;
  // The smallest table TTL in seconds besides -1 (the service's is one day; lower for testing).
  int64_t min_time_to_live = 86400;
};

}  // namespace ttlstore::tablestore
