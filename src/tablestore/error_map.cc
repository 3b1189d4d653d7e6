#include "tablestore/error_map.h"

#include <spdlog/spdlog.h>

#include "tablestore/stream_ids.h"
#include "versions/row_key.h"

namespace ttlstore::tablestore {

OtsError ParameterInvalid(std::string message) {
  return {400, "OTSParameterInvalid", std::move(message)};
}

OtsError ToOtsError(const Error& error) {
  const std::string& m = error.message();
  switch (error.code()) {
    case ErrorCode::kValidation:
    case ErrorCode::kSerialization:
      if (m.starts_with(versions::kInvalidPkPrefix)) {
        return {400, "OTSInvalidPK", m.substr(versions::kInvalidPkPrefix.size())};
      }
      return ParameterInvalid(m);
    case ErrorCode::kConditionalCheckFailed:
      return {403, "OTSConditionCheckFail", "Condition check failed."};
    case ErrorCode::kResourceNotFound:
      if (m == kStreamNotExistMessage || m == kShardNotExistMessage) {
        return {404, "OTSObjectNotExist", m};
      }
      return {404, "OTSObjectNotExist", "Requested table does not exist."};
    case ErrorCode::kTrimmedDataAccess:
      return {400, "OTSTrimmedDataAccess", m};
    case ErrorCode::kResourceInUse:
      return {409, "OTSObjectAlreadyExist", "Requested table already exists."};
    case ErrorCode::kAccessDenied:
      return {403, "OTSNoPermissionAccess", m};
    case ErrorCode::kLimitExceeded:
      return {403, "OTSQuotaExhausted", m};
    case ErrorCode::kRequestTooLarge:
      return {413, "OTSRequestBodyTooLarge", m};
    case ErrorCode::kStorageUnavailable:
      return {503, "OTSServerUnavailable", m};
    case ErrorCode::kInternal:
      spdlog::error("event=tablestore_internal_error message=\"{}\"", m);
      return {500, "OTSInternalServerError", "Internal server error."};
    default:
      return ParameterInvalid(m);
  }
}

}  // namespace ttlstore::tablestore
