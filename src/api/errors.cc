#include "api/errors.h"

#include <rapidjson/stringbuffer.h>

#include "api/json_writer.h"

namespace ttlstore::api {

WireError ToWire(ErrorCode code) {
#define DDB "com.amazonaws.dynamodb.v20120810#"
  // Serialization and unknown-operation errors come from the service framework ("coral"),
  // not from DynamoDB itself, and the real service types them so.
#define CORAL "com.amazon.coral.service#"
  switch (code) {
    case ErrorCode::kValidation:
      // Constraint checks run in the framework's validator, hence its namespace.
      return {400, "com.amazon.coral.validate#ValidationException", "ValidationException"};
    case ErrorCode::kSerialization:
      return {400, CORAL "SerializationException", "SerializationException"};
    case ErrorCode::kUnknownOperation:
      return {400, CORAL "UnknownOperationException", "UnknownOperationException"};
    case ErrorCode::kResourceNotFound:
      return {400, DDB "ResourceNotFoundException", "ResourceNotFoundException"};
    case ErrorCode::kResourceInUse:
      return {400, DDB "ResourceInUseException", "ResourceInUseException"};
    case ErrorCode::kConditionalCheckFailed:
      return {400, DDB "ConditionalCheckFailedException", "ConditionalCheckFailedException"};
    case ErrorCode::kLimitExceeded:
      return {400, DDB "LimitExceededException", "LimitExceededException"};
    case ErrorCode::kAccessDenied:
      return {400, DDB "AccessDeniedException", "AccessDeniedException"};
    case ErrorCode::kTransactionCanceled:
      return {400, DDB "TransactionCanceledException", "TransactionCanceledException"};
    case ErrorCode::kIdempotentParameterMismatch:
      return {400, DDB "IdempotentParameterMismatchException",
              "IdempotentParameterMismatchException"};
    case ErrorCode::kDuplicateItem:
      return {400, DDB "DuplicateItemException", "DuplicateItemException"};
    case ErrorCode::kTransactionInProgress:
      return {400, DDB "TransactionInProgressException", "TransactionInProgressException"};
    case ErrorCode::kExpiredIterator:
      return {400, DDB "ExpiredIteratorException", "ExpiredIteratorException"};
    case ErrorCode::kTrimmedDataAccess:
      return {400, DDB "TrimmedDataAccessException", "TrimmedDataAccessException"};
    case ErrorCode::kRequestTooLarge:
      return {413, DDB "RequestEntityTooLarge", "RequestEntityTooLarge"};
    case ErrorCode::kUnrecognizedClient:
      return {400, CORAL "UnrecognizedClientException", "UnrecognizedClientException"};
    case ErrorCode::kInvalidSignature:
      return {400, CORAL "InvalidSignatureException", "InvalidSignatureException"};
    case ErrorCode::kMissingAuthenticationToken:
      return {400, CORAL "MissingAuthenticationTokenException",
              "MissingAuthenticationTokenException"};
    case ErrorCode::kIncompleteSignature:
      return {400, CORAL "IncompleteSignatureException", "IncompleteSignatureException"};
    case ErrorCode::kTableNotFound:
      return {400, DDB "TableNotFoundException", "TableNotFoundException"};
    case ErrorCode::kTableAlreadyExists:
      return {400, DDB "TableAlreadyExistsException", "TableAlreadyExistsException"};
    case ErrorCode::kBackupNotFound:
      return {400, DDB "BackupNotFoundException", "BackupNotFoundException"};
    case ErrorCode::kBackupInUse:
      return {400, DDB "BackupInUseException", "BackupInUseException"};
    case ErrorCode::kPointInTimeRecoveryUnavailable:
      return {400, DDB "PointInTimeRecoveryUnavailableException",
              "PointInTimeRecoveryUnavailableException"};
    case ErrorCode::kInvalidRestoreTime:
      return {400, DDB "InvalidRestoreTimeException", "InvalidRestoreTimeException"};
    case ErrorCode::kPolicyNotFound:
      return {400, DDB "PolicyNotFoundException", "PolicyNotFoundException"};
    case ErrorCode::kImportConflict:
      return {400, DDB "ImportConflictException", "ImportConflictException"};
    case ErrorCode::kImportNotFound:
      return {400, DDB "ImportNotFoundException", "ImportNotFoundException"};
    case ErrorCode::kExportConflict:
      return {400, DDB "ExportConflictException", "ExportConflictException"};
    case ErrorCode::kExportNotFound:
      return {400, DDB "ExportNotFoundException", "ExportNotFoundException"};
    case ErrorCode::kInvalidExportTime:
      return {400, DDB "InvalidExportTimeException", "InvalidExportTimeException"};
    case ErrorCode::kStorageUnavailable:
      return {500, DDB "InternalServerError", "InternalServerError"};
    case ErrorCode::kInternal:
      return {500, DDB "InternalServerError", "InternalServerError"};
  }
#undef DDB
#undef CORAL
  return {500, "com.amazonaws.dynamodb.v20120810#InternalServerError", "InternalServerError"};
}

std::string RenderErrorBody(const Error& error) {
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  w.Key("__type");
  w.String(ToWire(error.code()).type);
  // The service omits the message of unparsable-body and unknown-operation errors, and spells
  // the key "Message" on serialization and transaction-cancelled errors, "message" elsewhere.
  if (!error.message().empty()) {
    bool capital = error.code() == ErrorCode::kSerialization ||
                   error.code() == ErrorCode::kTransactionCanceled;
    w.Key(capital ? "Message" : "message");
    // Internal details (RocksDB status strings) stay in the log, not on the wire.
    w.String(error.code() == ErrorCode::kInternal ? "Internal server error" : error.message());
  }
  w.EndObject();
  std::string body(buf.GetString(), buf.GetSize());
  if (!error.extra_json().empty()) {
    body.pop_back();  // the closing brace
    body += "," + error.extra_json() + "}";
  }
  return body;
}

}  // namespace ttlstore::api
