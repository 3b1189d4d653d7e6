#include "backup/restore_lease.h"

#include <spdlog/spdlog.h>

namespace ttlstore::backup {

std::string RestoreLeaseUnit(const std::string& table_name) { return "restore/" + table_name; }

bool JobUnderWay(const storage::LeaseKeeper* keeper, const std::string& unit) {
  if (keeper == nullptr) return false;
  auto held = keeper->HeldNow(unit);
  if (!held) {
    // Unknown: the safe answer leaves the job alone (the next pass decides again).
    spdlog::warn("event=job_lease_unreadable unit={} message=\"{}\"", unit,
                 held.error().message());
    return true;
  }
  return *held;
}

std::string BackupReadLeasePrefix(const std::string& backup_arn) {
  return "backup-read/" + backup_arn.substr(backup_arn.rfind('/') + 1) + "/";
}

bool RestoreUnderWay(const storage::LeaseKeeper* keeper, const std::string& table_name) {
  return JobUnderWay(keeper, RestoreLeaseUnit(table_name));
}

JobLease::JobLease(storage::LeaseKeeper* keeper, std::string unit)
    : keeper_(keeper), unit_(std::move(unit)) {
  if (keeper_) held_ = keeper_->Claim(unit_);
}

JobLease::~JobLease() {
  if (keeper_) keeper_->Forget(unit_);
}

}  // namespace ttlstore::backup
