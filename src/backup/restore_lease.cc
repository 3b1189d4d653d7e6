#include "backup/restore_lease.h"

#include <spdlog/spdlog.h>

namespace ttlstore::backup {

std::string RestoreLeaseUnit(const std::string& table_name) { return "restore/" + table_name; }

bool RestoreUnderWay(const storage::LeaseKeeper* keeper, const std::string& table_name) {
  if (keeper == nullptr) return false;
  auto held = keeper->HeldNow(RestoreLeaseUnit(table_name));
  if (!held) {
    // Unknown: the safe answer leaves the table alone (the next start decides again).
    spdlog::warn("event=restore_lease_unreadable table={} message=\"{}\"", table_name,
                 held.error().message());
    return true;
  }
  return *held;
}

RestoreLease::RestoreLease(storage::LeaseKeeper* keeper, const std::string& table_name)
    : keeper_(keeper), unit_(RestoreLeaseUnit(table_name)) {
  if (keeper_) held_ = keeper_->Claim(unit_);
}

RestoreLease::~RestoreLease() {
  if (keeper_) keeper_->Forget(unit_);
}

}  // namespace ttlstore::backup
