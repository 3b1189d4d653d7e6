// One error type for the whole server: a code, a message, and (for a few codes) extra payload.
// Errors are values: functions return Result<T> and nothing is thrown on the request path.
// The mapping from ErrorCode to the DynamoDB `__type` and HTTP status lives in api/, so that
// lower layers never spell an exception name.
#pragma once

#include <string>
#include <utility>

namespace ttlstore {

enum class ErrorCode {
  // The request is malformed or breaks a limit; the message says which. HTTP 400.
  kValidation,
  // The body is not valid JSON or a field has the wrong JSON type. HTTP 400.
  kSerialization,
  // X-Amz-Target names no operation we serve. HTTP 400.
  kUnknownOperation,
  // The named table (or resource ARN) does not exist. HTTP 400.
  kResourceNotFound,
  // The table exists already, or is in a state that forbids the call. HTTP 400.
  kResourceInUse,
  // A ConditionExpression evaluated to false. HTTP 400.
  kConditionalCheckFailed,
  // Too many tables or tags. HTTP 400.
  kLimitExceeded,
  // A transaction was cancelled; the extra members carry CancellationReasons. HTTP 400.
  kTransactionCanceled,
  // Another transaction or request with the same token is in progress or differs. HTTP 400.
  kIdempotentParameterMismatch,
  // The caller may not do this (e.g. a resource in another account). HTTP 400.
  kAccessDenied,
  // The request body is larger than the server accepts. HTTP 413.
  kRequestTooLarge,
  // A PartiQL INSERT named an item that exists. HTTP 400.
  kDuplicateItem,
  // A transaction with this ClientRequestToken is still running. HTTP 400.
  kTransactionInProgress,
  // A stream shard iterator is older than its 15-minute lifetime. HTTP 400.
  kExpiredIterator,
  // A stream read asked for records past the retention period. HTTP 400.
  kTrimmedDataAccess,
  // Authentication (SigV4): the access key is unknown. HTTP 400.
  kUnrecognizedClient,
  // Authentication: the signature does not match, or its date is too far from now. HTTP 400.
  kInvalidSignature,
  // Authentication: the request carries no signature at all. HTTP 400.
  kMissingAuthenticationToken,
  // Authentication: the signature is malformed (a part is missing). HTTP 400.
  kIncompleteSignature,
  // Backups: the source table of CreateBackup does not exist. HTTP 400.
  kTableNotFound,
  // Backups: the target table of a restore exists already. HTTP 400.
  kTableAlreadyExists,
  // Backups: no backup has this ARN. HTTP 400.
  kBackupNotFound,
  // Backups: another backup operation (a restore from it) is under way. HTTP 400.
  kBackupInUse,
  // Point-in-time recovery: the source table of RestoreTableToPointInTime does not have it
  // enabled. HTTP 400.
  kPointInTimeRecoveryUnavailable,
  // Point-in-time recovery: RestoreDateTime is outside the table's restorable window. HTTP 400.
  kInvalidRestoreTime,
  // Resource-based policies: the resource has no policy, or not the revision the caller
  // expected (ExpectedRevisionId). HTTP 400.
  kPolicyNotFound,
  // ImportTable: a ClientToken in use by a running import that names another table. HTTP 400.
  kImportConflict,
  // DescribeImport: no import has this ARN. HTTP 400.
  kImportNotFound,
  // ExportTableToPointInTime: a ClientToken already names an export with other parameters.
  // HTTP 400.
  kExportConflict,
  // DescribeExport: no export has this ARN. HTTP 400.
  kExportNotFound,
  // ExportTableToPointInTime: ExportTime, or an incremental export's period, is not one the
  // table's point-in-time recovery can serve. HTTP 400.
  kInvalidExportTime,
  // The data dir cannot take writes now (disk full, read-only file system); the message says
  // which and is shown to the client. Reads still work. HTTP 500 InternalServerError.
  kStorageUnavailable,
  // Storage failed (I/O error, corruption); the message is for the log. HTTP 500.
  kInternal,
};

class Error {
 public:
  Error(ErrorCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Error Validation(std::string m) { return {ErrorCode::kValidation, std::move(m)}; }
  static Error Serialization(std::string m) { return {ErrorCode::kSerialization, std::move(m)}; }
  static Error ResourceNotFound(std::string m) {
    return {ErrorCode::kResourceNotFound, std::move(m)};
  }
  static Error ResourceInUse(std::string m) { return {ErrorCode::kResourceInUse, std::move(m)}; }
  static Error LimitExceeded(std::string m) { return {ErrorCode::kLimitExceeded, std::move(m)}; }
  static Error Internal(std::string m) { return {ErrorCode::kInternal, std::move(m)}; }

  ErrorCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // Extra members of the JSON error body, already rendered as `"Name":value` pairs joined by
  // commas (e.g. the old item of a failed condition). Empty for most errors.
  const std::string& extra_json() const { return extra_json_; }
  Error&& WithExtraJson(std::string members) && {
    extra_json_ = std::move(members);
    return std::move(*this);
  }

 private:
  ErrorCode code_;
  std::string message_;
  std::string extra_json_;
};

}  // namespace ttlstore
