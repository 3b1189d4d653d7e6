#include "tablestore/error_map.h"

#include <spdlog/spdlog.h>

#include "search/search_engine.h"
#include "tablestore/stream_ids.h"
#include "ops/txn_errors.h"
#include "versions/row_key.h"

namespace ttlstore::tablestore {
namespace {

// Local transactions' errors (ops/txn_errors.h) and their HTTP statuses.
struct TxnErrorStatus {
  std::string_view prefix;
  int status;
};
constexpr TxnErrorStatus kTxnErrors[] = {
    {ops::kRowOperationConflictPrefix, 409},
    {ops::kSessionNotExistPrefix, 404},
    {ops::kSessionBusyPrefix, 409},
    {ops::kDataOutOfRangePrefix, 400},
    {ops::kOutOfTransactionDataSizeLimitPrefix, 400},
    // Search indexes' coded 400s (search/search_engine.h, error_map.h).
    {search::kSessionExpiredPrefix, 400},
    {kMetaNotMatchPrefix, 400},
};

}  // namespace

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
      for (const auto& [prefix, status] : kTxnErrors) {
        if (m.starts_with(prefix)) {
          return {status, std::string(prefix.substr(0, prefix.size() - 1)),
                  m.substr(prefix.size())};
        }
      }
      return ParameterInvalid(m);
    case ErrorCode::kConditionalCheckFailed:
      return {403, "OTSConditionCheckFail", "Condition check failed."};
    case ErrorCode::kResourceNotFound:
      if (m == kStreamNotExistMessage || m == kShardNotExistMessage ||
          m.starts_with(kSearchIndexMessagePrefix)) {
        return {404, "OTSObjectNotExist", m};
      }
      return {404, "OTSObjectNotExist", "Requested table does not exist."};
    case ErrorCode::kTrimmedDataAccess:
      return {400, "OTSTrimmedDataAccess", m};
    case ErrorCode::kResourceInUse:
      if (m.starts_with(kSearchIndexMessagePrefix)) return {409, "OTSObjectAlreadyExist", m};
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
