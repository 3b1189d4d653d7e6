// Minimal HTTP/1.1 client pieces for the load generator: endpoint parsing, building a signed
// DynamoDB request, an incremental response parser, and a blocking client used only for table
// set-up (never on the measured path).
#pragma once

#include <netinet/in.h>

#include <cstdint>
#include <ctime>
#include <string>
#include <string_view>

#include "sigv4.h"

namespace loadgen {

struct Endpoint {
  sockaddr_storage addr{};
  socklen_t addr_len = 0;
  std::string host_header;  // "host:port" exactly as signed
};

// Accepts http://host:port[/]; throws std::runtime_error otherwise (no TLS: loopback only).
Endpoint ParseEndpoint(const std::string& url);

// Opens a TCP connection with TCP_NODELAY. Non-blocking sockets return with connect in progress.
int OpenSocket(const Endpoint& ep, bool nonblocking);

// Builds the whole request (headers + body) into `out` (cleared first). `op` is the bare operation
// name, e.g. "PutItem".
void BuildRequest(std::string& out, SigV4Signer& signer, const Endpoint& ep, std::string_view op,
                  std::string_view body, std::time_t now);

// Incremental parser for one response at a time. Feed bytes with Append(); Parse() says whether a
// whole response is buffered. After Done, status()/body()/close() describe it and Consume() drops
// it (keeping any bytes that follow, though without pipelining none should).
class ResponseParser {
 public:
  enum Result { kNeedMore, kDone, kBad };

  char* WritePtr(size_t want);  // grows the buffer; write at most `want` bytes there
  void Commit(size_t n) { len_ += n; }
  Result Parse();
  int status() const { return status_; }
  std::string_view body() const;
  bool close() const { return close_; }
  void Consume();
  void Reset();

 private:
  Result ParseChunked();

  std::string buf_;
  size_t len_ = 0;
  size_t header_end_ = 0;  // offset of the body; 0 while headers are incomplete
  int status_ = 0;
  int64_t content_length_ = -1;
  bool chunked_ = false;
  bool close_ = false;
  size_t total_ = 0;       // bytes of the whole response once known
  std::string dechunked_;  // body of a chunked response
};

// The error type of a DynamoDB error body ("__type":"com.amazonaws...#ValidationException" →
// "ValidationException"); "HTTP_<status>" if the body has none.
std::string ErrorType(int status, std::string_view body);

// Blocking request/response over one keep-alive connection, reconnecting when needed.
class BlockingClient {
 public:
  BlockingClient(const Endpoint& ep, SigV4Signer& signer, int timeout_ms);
  ~BlockingClient();
  // Returns the HTTP status (0 if the connection failed; then `body` holds the reason).
  int Call(std::string_view op, std::string_view body, std::string& response_body);

 private:
  bool Ensure();
  void Close();

  const Endpoint& ep_;
  SigV4Signer& signer_;
  int timeout_ms_;
  int fd_ = -1;
  std::string req_;
  ResponseParser parser_;
};

// Integer value of `"key":<digits>` in a compact-or-spaced JSON text; -1 if absent.
int64_t JsonIntField(std::string_view body, std::string_view key);

}  // namespace loadgen
