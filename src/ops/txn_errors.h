// The errors of Tablestore local transactions (ops/local_transactions.h), with the service's
// codes and messages. They travel as ErrorCode::kValidation whose message starts with the
// service's code and a colon ("OTSSessionNotExist:Session not exist or may be timeout."), the way
// versions::kInvalidPkPrefix carries OTSInvalidPK; tablestore/error_map.cc turns the prefix back
// into the code and its HTTP status. Sources of each text: docs/tablestore.md, "Local
// transactions"; the texts no source gives are marked Chosen there.
#pragma once

#include <string>
#include <string_view>

#include "common/error.h"

namespace ttlstore::ops {

// 409: the partition key is locked by a transaction (a write without its id, a second
// StartLocalTransaction of it). Java SDK LocalTxnTest, ex_aliyun_ots transaction tests.
inline constexpr std::string_view kRowOperationConflictPrefix = "OTSRowOperationConflict:";
inline constexpr char kRowOperationConflictMessage[] = "Data is being modified by the other request.";
// 404 (status Chosen): unknown, committed, aborted or expired transaction id. Java SDK LocalTxnTest.
inline constexpr std::string_view kSessionNotExistPrefix = "OTSSessionNotExist:";
inline constexpr char kSessionNotExistMessage[] = "Session not exist or may be timeout.";
// 409 (status and message Chosen): another request is using the transaction.
inline constexpr std::string_view kSessionBusyPrefix = "OTSSessionBusy:";
inline constexpr char kSessionBusyMessage[] =
    "The transaction is being used by another request.";
// 400 (status Chosen): a row outside the transaction's table or partition key. The message is
// the service's (ex_aliyun_ots): "Data out of scope of transaction. Transaction PartKey:a. Data
// PartKey:b".
inline constexpr std::string_view kDataOutOfRangePrefix = "OTSDataOutOfRange:";
// 400 (status and message Chosen): more than kMaxTransactionBytes written in one transaction.
inline constexpr std::string_view kOutOfTransactionDataSizeLimitPrefix =
    "OTSOutOfTransactionDataSizeLimit:";

inline Error TxnError(std::string_view prefix, std::string_view message) {
  std::string m(prefix);
  m += message;
  return Error::Validation(std::move(m));
}

}  // namespace ttlstore::ops
