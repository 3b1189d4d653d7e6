// The lease of a table being filled by a restore or an import (several processes on one
// database; docs/background-jobs.md, "Leases"): unit `restore/<table name>`, held by the process
// whose thread fills the table from before it creates the table until the thread ends. Another
// process starting meanwhile sees the table marked in progress and the unit held, and leaves the
// table alone instead of dropping it as one a stop interrupted (DropAbandonedRestores,
// PitrRestores::ResumeInterrupted). A holder killed mid-restore leaves the unit to lapse; the
// recovery pass that every process runs under kRestoreRecoveryUnit (a start's work, repeated
// every lease period on a shared database) then drops or resumes the table, as a restart would.
#pragma once

#include <string>

#include "storage/lease_keeper.h"

namespace ttlstore::backup {

std::string RestoreLeaseUnit(const std::string& table_name);

// The unit of the periodic recovery pass (server/main.cc) on a shared database.
inline const std::string kRestoreRecoveryUnit = "restores/recover";

// Whether a process (this one included) is filling `table_name` now (false without a keeper).
bool RestoreUnderWay(const storage::LeaseKeeper* keeper, const std::string& table_name);

// The lease of a one-shot job (a restore, an import, an export): claims `unit` for its life
// (no keeper: nothing to claim, held() is true).
class JobLease {
 public:
  JobLease(storage::LeaseKeeper* keeper, std::string unit);
  ~JobLease();
  JobLease(const JobLease&) = delete;
  JobLease& operator=(const JobLease&) = delete;
  bool held() const { return held_; }

 private:
  storage::LeaseKeeper* const keeper_;
  const std::string unit_;
  bool held_ = true;
};

// Whether a process (this one included) holds `unit` now (false without a keeper; true when
// that cannot be read: the safe answer leaves the job alone).
bool JobUnderWay(const storage::LeaseKeeper* keeper, const std::string& unit);

// The leases of restores reading one backup file: `backup-read/<backup id>/<target table>`, held
// by each such restore until its thread ends, so that DeleteBackup through any process answers
// BackupInUseException meanwhile. The prefix for `backup_arn` (a unit adds the target's name).
std::string BackupReadLeasePrefix(const std::string& backup_arn);

// A restore's or an import's: unit RestoreLeaseUnit(table_name).
class RestoreLease : public JobLease {
 public:
  RestoreLease(storage::LeaseKeeper* keeper, const std::string& table_name)
      : JobLease(keeper, RestoreLeaseUnit(table_name)) {}
};

}  // namespace ttlstore::backup
