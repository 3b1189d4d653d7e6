// HttpConnection: one keep-alive HTTP/1.1 connection to an Endpoint, plain or TLS (Boost.Beast
// over Asio; OpenSSL verifies the server's certificate against the system's CA store and its
// host name). Synchronous: a command's worker thread owns one. A request on a connection the
// server has closed meanwhile is sent again once on a fresh connection.
//
// Bounds: every request has a deadline (connect, write and read together); a response body
// larger than kMaxResponseBytes is an error, never buffered.
//
// Thread-safety: none; one connection per thread.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "client/endpoint.h"
#include "common/result.h"

namespace ttlstore::client {

// DynamoDB's largest responses (a 1 MB Query/Scan page, a BatchGetItem of 16 MB) fit well below.
inline constexpr size_t kMaxResponseBytes = 64 << 20;

struct HttpResponse {
  int status = 0;
  std::string body;
};

class HttpConnection {
 public:
  explicit HttpConnection(Endpoint endpoint);
  ~HttpConnection();
  HttpConnection(const HttpConnection&) = delete;
  HttpConnection& operator=(const HttpConnection&) = delete;

  // POSTs `body` to `target` with `headers` (Host, Content-Length and Connection are set here).
  // An error when the server cannot be reached or answers no valid HTTP: kAccessDenied when
  // the TLS handshake failed (e.g. an untrusted certificate: trying again will not help),
  // kInternal otherwise. Trusted CAs: the system's, or $SSL_CERT_FILE / $SSL_CERT_DIR.
  Result<HttpResponse> Post(const std::string& target,
                            const std::vector<std::pair<std::string, std::string>>& headers,
                            const std::string& body, std::chrono::milliseconds timeout);

  const Endpoint& endpoint() const { return endpoint_; }

 private:
  struct Impl;
  Endpoint endpoint_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ttlstore::client
