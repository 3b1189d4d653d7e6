// DynamoDbClient: a small synchronous client of the DynamoDB HTTP/JSON API (and of the
// DynamoDB Streams API, which speaks the same protocol under another target prefix) for the
// commands that talk to a running endpoint: ttlstore, DynamoDB itself over https, DynamoDB
// Local, ScyllaDB Alternator. `Call(operation, json_body)` signs the request with SigV4
// (auth/sigv4_signer.h), sends it on a keep-alive connection, and answers the HTTP status and
// body, or the service's error type and message.
//
// Retries: throttling (ProvisionedThroughputExceededException, ThrottlingException,
// RequestLimitExceeded), InternalServerError / ServiceUnavailable / any 5xx, and a failed
// connection are retried with capped exponential backoff and full jitter (the shape of the AWS SDKs'
// retry strategies; here base 50 ms, cap 5 s), up to `max_attempts`; a cancel flag cuts the
// waiting short. Any other error is the caller's to handle.
//
// Thread-safety: none; give each thread its own client (each holds one connection).
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "auth/sigv4_signer.h"
#include "client/endpoint.h"
#include "client/http_connection.h"

namespace ttlstore::client {

inline constexpr char kDynamoDbTargetPrefix[] = "DynamoDB_20120810";
inline constexpr char kStreamsTargetPrefix[] = "DynamoDBStreams_20120810";

struct ClientOptions {
  Endpoint endpoint;
  auth::SigningIdentity identity;
  std::string target_prefix = kDynamoDbTargetPrefix;
  int max_attempts = 10;
  std::chrono::milliseconds timeout{30'000};
  // When set and true, backoff sleeps end early and no further attempt is made.
  const std::atomic<bool>* cancel = nullptr;
};

struct CallResult {
  // 0: the endpoint could not be reached (error_type "ConnectionError", retried, or
  // "TlsError": the handshake failed, e.g. an untrusted certificate, not retried).
  int http_status = 0;
  std::string body;
  // When not ok: the part of `__type` after '#' (or the HTTP status, "HTTP 502"), and the
  // service's message.
  std::string error_type;
  std::string error_message;
  int attempts = 0;

  bool ok() const { return http_status == 200; }
  // "ResourceNotFoundException: Requested resource not found".
  std::string Describe() const;
};

// Whether the service asks the caller to try again (throttling, a server-side failure, or a
// connection that failed other than in the TLS handshake).
bool IsRetryable(const CallResult& r);

class DynamoDbClient {
 public:
  explicit DynamoDbClient(ClientOptions options);

  // One operation, retried as described above.
  CallResult Call(std::string_view operation, const std::string& json_body);
  // One attempt, no retry.
  CallResult CallOnce(std::string_view operation, const std::string& json_body);

  const ClientOptions& options() const { return options_; }

 private:
  void Backoff(int attempt);

  ClientOptions options_;
  HttpConnection connection_;
  uint64_t jitter_state_;
};

// The Streams API endpoint that goes with a DynamoDB endpoint: DynamoDB itself serves it on
// streams.dynamodb.<region>.amazonaws.com; every other implementation on the same endpoint.
Endpoint StreamsEndpointFor(const Endpoint& dynamodb);

}  // namespace ttlstore::client
