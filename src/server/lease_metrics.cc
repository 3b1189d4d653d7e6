#include "server/lease_metrics.h"

#include <fmt/format.h>

namespace ttlstore::server {

std::string RenderLeaseMetrics(const storage::LeaseKeeper& keeper) {
  std::string out =
      "# HELP ttlstore_lease_held Whether this process holds the lease of a unit of background "
      "work (1) or another process does or nobody (0).\n"
      "# TYPE ttlstore_lease_held gauge\n";
  // Unit names are ours (no quotes or backslashes to escape).
  for (const auto& [unit, held] : keeper.Units()) {
    out += fmt::format("ttlstore_lease_held{{unit=\"{}\"}} {}\n", unit, held ? 1 : 0);
  }
  out += fmt::format(
      "# HELP ttlstore_lease_takeovers_total Units of background work this process took over "
      "from a process whose lease ran out.\n"
      "# TYPE ttlstore_lease_takeovers_total counter\n"
      "ttlstore_lease_takeovers_total {}\n",
      keeper.takeovers());
  out += fmt::format(
      "# HELP ttlstore_lease_processes The ttlstore processes on this database that share work "
      "out (this one included), as this process last counted them.\n"
      "# TYPE ttlstore_lease_processes gauge\n"
      "ttlstore_lease_processes {}\n",
      keeper.processes());
  return out;
}

}  // namespace ttlstore::server
