// HttpServer: HTTP/1.1 with keep-alive on Boost.Beast's parser, one io_context per thread (a
// connection lives on one thread for its whole life: no strands, no cross-thread wake-ups), one
// session per connection. It routes
//   POST /         with X-Amz-Target  -> api::Dispatch (the DynamoDB JSON protocol)
//   POST /<Action>                    -> tablestore::HandleRequest (the Tablestore protocol)
//   GET  /health                      -> 200 {"status":"ok"}
//   GET  /metrics                     -> Prometheus text
// and shuts down cleanly: Stop() closes the listener, lets in-flight requests finish and write
// their responses, closes idle connections, and Run() returns.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "api/dispatch.h"
#include "auth/policy.h"
#include "auth/sigv4.h"
#include "tablestore/services.h"
#include "common/result.h"
#include "server/metrics.h"

namespace ttlstore::server {

struct ServerOptions {
  // Address to listen on. Default: loopback only.
  std::string host = "127.0.0.1";
  // TCP port; 0 picks a free one (see HttpServer::port()).
  uint16_t port = 8000;
  // Threads serving connections. Default: one per core.
  int threads = 0;
  // Largest request body accepted (DynamoDB's limit is 16 MB); larger bodies get HTTP 413.
  size_t max_body_bytes = 16u << 20;
  // A keep-alive connection with no request for this long is closed.
  int idle_timeout_seconds = 300;
  // A request must arrive whole within this long of its first byte (slow-loris defence).
  int request_timeout_seconds = 30;
  // Connections beyond this many are closed as soon as they are accepted.
  size_t max_connections = 10000;
  // Verifies the SigV4 signature of every DynamoDB API request; null: any signature is
  // accepted (the local emulators' behaviour; main.cc allows that on loopback only).
  const auth::SigV4Verifier* sigv4 = nullptr;
  // PEM files of the certificate (chain) and private key: when both are set the listener speaks
  // TLS only (https), for both front ends and /health, /metrics.
  std::string tls_cert_file;
  std::string tls_key_file;
  // What each access key may do (with sigv4 only); null: every verified key may do anything.
  const auth::PolicySet* policies = nullptr;
};

class HttpServer {
 public:
  // `tablestore` may be null: then POST /<Action> answers 404 like any unknown path.
  HttpServer(ServerOptions options, const api::Services& services,
             const tablestore::Services* tablestore, Metrics& metrics);
  ~HttpServer();

  // Binds and listens. Errors: address in use, bad host.
  Status Listen();
  // The bound port (after Listen).
  uint16_t port() const;
  // Whether the listener speaks TLS (after Listen).
  bool tls() const;
  // How many threads serve connections.
  int threads() const;
  // Serves until SIGINT/SIGTERM or Stop(); returns once every connection has closed.
  void Run();
  // Thread-safe; may be called from any thread or a signal handler's executor.
  void Stop();

  class Impl;  // Beast details, in http_server.cc

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace ttlstore::server
