// The overrides RestoreTableFromBackup and RestoreTableToPointInTime share (BillingModeOverride,
// ProvisionedThroughputOverride, GlobalSecondaryIndexOverride, LocalSecondaryIndexOverride,
// VectorIndexOverride), parsed once for both (backup_api.cc).
#pragma once

#include <optional>
#include <string>

#include "api/json_value.h"
#include "backup/backups.h"
#include "common/result.h"

namespace ttlstore::api {

// REQUIRES: `billing` passed the enum check. Each pointer may be null (not given).
Result<backup::RestoreOverrides> ParseRestoreOverrides(const std::optional<std::string>& billing,
                                                       const rapidjson::Value* throughput,
                                                       const rapidjson::Value* gsis,
                                                       const rapidjson::Value* lsis,
                                                       const rapidjson::Value* vectors);

}  // namespace ttlstore::api
