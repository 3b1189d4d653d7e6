// Writing to the target of `ttlstore replicate`: BatchWriteItem in requests of 25 (the
// service's limit), every UnprocessedItems sent again after a backoff until all are written;
// and the stream page turned into such writes: within one GetRecords page only the last change
// of each key matters (a later write of a key replaces what an earlier one did), so the page
// becomes one Put (its NewImage) or Delete (its Keys) per key, and BatchWriteItem, which refuses
// two writes of one key, takes them in any order.
#pragma once

#include <atomic>
#include <boost/json/array.hpp>
#include <boost/json/value.hpp>
#include <string>
#include <vector>

#include "client/dynamodb_client.h"
#include "common/result.h"

namespace ttlstore::cli {

// BatchWriteItem's limit per request [API reference, BatchWriteItem: up to 25 put or delete
// requests].
inline constexpr size_t kBatchWriteLimit = 25;

class TargetWriter {
 public:
  TargetWriter(client::DynamoDbClient& ddb, std::string table, const std::atomic<bool>& stop)
      : ddb_(ddb), table_(std::move(table)), stop_(stop) {}

  // Writes every request ({"PutRequest":{"Item":…}} or {"DeleteRequest":{"Key":…}}); each key
  // at most once. Returns once all are written, or the error that stopped it (the stop flag
  // included: then some may not be written).
  Status Write(std::vector<boost::json::value> requests);

  int64_t unprocessed_retries() const { return unprocessed_retries_; }

 private:
  Status WriteChunk(boost::json::array chunk);

  client::DynamoDbClient& ddb_;
  std::string table_;
  const std::atomic<bool>& stop_;
  int64_t unprocessed_retries_ = 0;
};

// One GetRecords page, reduced to the writes that bring the target to the state after it.
struct ChangeBatch {
  std::vector<boost::json::value> requests;  // one per key
  int64_t records = 0;
  int64_t ttl_deletes = 0;    // REMOVEs by the service (userIdentity dynamodb.amazonaws.com)
  std::string last_sequence;  // SequenceNumber of the page's last record
  double last_created_s = 0;  // its ApproximateCreationDateTime
};

// Errors (kValidation) for a record without Keys or SequenceNumber, or an INSERT/MODIFY without
// a NewImage (the stream does not record new images).
Result<ChangeBatch> CollapseRecords(const boost::json::array& records);

}  // namespace ttlstore::cli
