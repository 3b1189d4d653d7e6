// /metrics lines for the leases of background work this process holds (storage/lease_keeper.h):
// which units it holds now and how many it took over from a process that stopped renewing.
#pragma once

#include <string>

#include "storage/lease_keeper.h"

namespace ttlstore::server {

std::string RenderLeaseMetrics(const storage::LeaseKeeper& keeper);

}  // namespace ttlstore::server
