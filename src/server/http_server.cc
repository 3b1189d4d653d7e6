#include "server/http_server.h"

#include "server/request_handler.h"
#include "server/service_headers.h"
#include "server/transport.h"
#include "common/clock.h"

#include <spdlog/spdlog.h>
#include <array>
#include <cctype>
#include <atomic>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "common/thread.h"

namespace ttlstore::server {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;
using Clock = std::chrono::steady_clock;

// Headers are small in this protocol; 64 KB leaves room for long SigV4 headers.
constexpr size_t kMaxHeaderBytes = 64 * 1024;
// The most bytes a connection's read buffer holds before the parser consumes them. The header
// limit bounds the request head, and body bytes move into the body as they arrive, but Beast
// reads a chunk's header line (chunk extensions) and the trailer fields after the last chunk
// without the header limit: without this bound a client could make the buffer grow until memory
// runs out, and a trailer field over 64 KB made Beast throw out of the read and abort the
// process (its fields hold at most 65,533 bytes; this bound keeps every line below that). Such a
// request gets the 431 of an oversized header.
constexpr size_t kMaxUnparsedBytes = kMaxHeaderBytes;
// What a connection's buffer holds from the start. Beast reads at most the buffer's free
// capacity at a time (at least 512 bytes), so a buffer left to grow on demand read a request
// with SigV4 headers (about 700 bytes from the SDKs) in two recv calls, every time. 8 KB takes
// the head and body of most requests in one (and costs 80 MB at the 10,000-connection limit).
constexpr size_t kReadBufferBytes = 8 * 1024;
// How often each thread looks for connections idle past the timeout.
constexpr auto kIdleCheckPeriod = std::chrono::seconds(1);

}  // namespace

class Session;

// One thread's share of the connections: its io_context and the sessions living on it.
struct Worker {
  Worker(int idle_timeout_seconds, int request_timeout_seconds)
      : ioc(1), idle_check(ioc), idle_timeout(std::chrono::seconds(idle_timeout_seconds)),
        request_timeout(std::chrono::seconds(request_timeout_seconds)) {}
  net::io_context ioc;
  net::steady_timer idle_check;
  Clock::duration idle_timeout;
  Clock::duration request_timeout;
  std::unordered_set<Session*> sessions;  // touched only on this worker's thread
};

class HttpServer::Impl {
 public:
  Impl(ServerOptions options, const api::Services& services,
       const tablestore::Services* tablestore, Metrics& metrics)
      : options_(std::move(options)), services_(services), tablestore_(tablestore),
        metrics_(metrics), handler_context_{options_, services_, tablestore_, metrics_} {
    int n = options_.threads > 0 ? options_.threads : static_cast<int>(UsableCpus());
    for (int i = 0; i < n; ++i) {
      workers_.push_back(std::make_unique<Worker>(options_.idle_timeout_seconds,
                                                  options_.request_timeout_seconds));
    }
    acceptor_.emplace(workers_[0]->ioc);
    signals_.emplace(workers_[0]->ioc, SIGINT, SIGTERM);
  }

  Status Listen();
  Status LoadTls();
  void Run();
  static void RunWorker(Worker& w);
  void Stop();
  void DoAccept();
  void ArmIdleCheck(Worker& w);

  void Register(const std::shared_ptr<Session>& s);
  void Unregister(Session* s);
  bool stopping() const { return stopping_.load(); }

  ServerOptions options_;
  const api::Services& services_;
  const tablestore::Services* tablestore_;
  Metrics& metrics_;
  const HandlerContext handler_context_;  // what request_handler.h needs, over the members above
  std::vector<std::unique_ptr<Worker>> workers_;
  size_t next_worker_ = 0;  // round-robin for new connections; touched only by the acceptor
  std::optional<tcp::acceptor> acceptor_;
  std::optional<net::signal_set> signals_;
  // Set by Listen() when the listener speaks TLS; shared by every connection (OpenSSL's
  // SSL_CTX is safe to use from several threads once configured).
  std::optional<net::ssl::context> tls_;
  std::atomic<bool> stopping_{false};
  std::atomic<uint64_t> rejected_connections_{0};
  std::mutex sessions_mu_;
  std::unordered_map<Session*, std::weak_ptr<Session>> sessions_;  // GUARDED_BY(sessions_mu_)
};

// One connection: read a request, handle it, write the response, repeat while keep-alive. All
// of it runs on its worker's thread.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(Transport&& socket, Worker& worker, HttpServer::Impl& server)
      : socket_(std::move(socket)), worker_(worker), server_(server) {
    buffer_.reserve(kReadBufferBytes);
  }

  void Start() {
    server_.Register(shared_from_this());
    net::post(worker_.ioc, [self = shared_from_this()] {
      self->worker_.sessions.insert(self.get());
      // The handshake counts as receiving a request: a client that stalls in it is closed
      // after the request timeout, like a slow-loris.
      self->handshaking_ = true;
      self->receiving_since_ = Clock::now();
      self->socket_.async_accept_handshake([self](beast::error_code ec) {
        self->handshaking_ = false;
        if (ec) {
          spdlog::debug("event=tls_handshake_failed message=\"{}\"", ec.message());
          return self->Close();
        }
        self->DoRead();
      });
    });
  }

  // Called at shutdown: close now if idle, otherwise after the current response.
  void Shutdown() {
    net::post(worker_.ioc, [self = shared_from_this()] {
      if (!self->busy_) self->Close();
    });
  }

  // Called by the worker's idle check: closes the connection if it has waited for (or been
  // receiving) a request for longer than the idle timeout.
  void CloseIfIdle(Clock::time_point now) {
    if (busy_) return;
    if (handshaking_) {
      if (now - receiving_since_ > worker_.request_timeout) Close();
      return;
    }
    // Bytes of a request have arrived: from then on the request timeout applies. The check runs
    // on this session's thread, so reading the parser and buffer here is safe.
    if (parser_ && (parser_->got_some() || buffer_.size() > 0)) {
      if (receiving_since_ == Clock::time_point{}) receiving_since_ = now;
      if (now - receiving_since_ > worker_.request_timeout) {
        spdlog::info("event=request_timeout message=\"closing a connection whose request did not "
                     "arrive whole in time\"");
        Close();
      }
      return;
    }
    if (now - last_active_ > worker_.idle_timeout) Close();
  }

 private:
  void DoRead() {
    if (server_.stopping()) return Close();
    parser_.emplace();
    parser_->header_limit(kMaxHeaderBytes);
    parser_->body_limit(server_.options_.max_body_bytes);
    last_active_ = Clock::now();
    receiving_since_ = {};
    http::async_read(socket_, buffer_, *parser_,
                     beast::bind_front_handler(&Session::OnRead, shared_from_this()));
  }

  void OnRead(beast::error_code ec, size_t) {
    if (ec == http::error::body_limit) return WriteTooLarge();
    if (ec == http::error::header_limit || ec == http::error::buffer_overflow) {
      return WriteHeadersTooLarge();
    }
    if (ec) return Close();  // end of stream, idle timeout, reset, shutdown
    busy_ = true;
    const Request& req = parser_->get();
    version_ = req.version();
    keep_alive_ = req.keep_alive();
    response_ = HandleRequest(server_.handler_context_, req, LocalAddress());
    // The response is written after the other requests that arrived in the same wake-up (the
    // post queues behind their read completions), not at once: a client is woken once for a
    // burst of responses instead of once for each, and waking a sleeping thread on another CPU
    // was the largest single cost of a request (an inter-processor interrupt; 15% of a put's
    // CPU). Server CPU per op at 50 connections: put 112 -> 90 µs, get 45 -> 32 µs (one core).
    // With one request in flight the queue is empty and the write follows at once.
    net::post(worker_.ioc, [self = shared_from_this()] { self->Write(); });
  }

  // This server's address as the client reached it ("127.0.0.1:8000"), for a request without a
  // Host header; looked up once per connection, when first needed.
  std::string_view LocalAddress() {
    if (local_address_.empty()) {
      beast::error_code ec;
      auto local = socket_.socket().local_endpoint(ec);
      if (ec) {
        local_address_ = "localhost";
      } else {
        std::string address = local.address().to_string();
        if (local.address().is_v6()) address = "[" + address + "]";
        local_address_ = address + ":" + std::to_string(local.port());
      }
    }
    return local_address_;
  }

  void WriteTooLarge() {
    busy_ = true;
    version_ = 11;
    keep_alive_ = false;
    // The head is whole: the limit is checked after it.
    response_ = TooLargeResponse(server_.handler_context_, parser_->get());
    Write();
  }

  // Headers past kMaxHeaderBytes: answered (431, then closed) rather than dropped, so a client
  // sees why.
  void WriteHeadersTooLarge() {
    busy_ = true;
    version_ = 11;
    keep_alive_ = false;
    response_ = Response{};
    response_.status = 431;
    response_.content_type = "text/plain";
    response_.body = "Request header fields too large (limit: 65536 bytes)\n";
    server_.metrics_.RecordRequest("", "RequestHeaderFieldsTooLarge", 0);
    Write();
  }

  // Serializes the head into head_ (its capacity is reused from request to request) and writes
  // head and body in one gathered write. The service's responses carry its headers
  // (server/service_headers.h); ours (Tablestore, /health, /metrics) name ttlstore.
  void Write() {
    const Response& r = response_;
    head_.clear();
    head_ += version_ == 10 ? "HTTP/1.0 " : "HTTP/1.1 ";
    head_ += std::to_string(r.status);
    head_ += ' ';
    head_ += http::obsolete_reason(static_cast<http::status>(r.status));
    head_ += r.service_head ? "\r\nServer: Server\r\nDate: " : "\r\nServer: ttlstore\r\nDate: ";
    AppendHttpDate(&head_);
    if (r.content_type) {
      head_ += "\r\nContent-Type: ";
      head_ += r.content_type;
    }
    head_ += "\r\nContent-Length: ";
    head_ += std::to_string(r.body.size());
    // HTTP/1.1 keeps connections open unless told, HTTP/1.0 closes them unless told; the
    // service says keep-alive on every response that keeps the connection.
    if (keep_alive_ && (version_ == 10 || r.service_head)) head_ += "\r\nConnection: keep-alive";
    if (!keep_alive_ && version_ != 10) head_ += "\r\nConnection: close";
    if (r.service_head) {
      head_ += "\r\nx-amzn-RequestId: ";
      AppendRequestId(&head_);
      if (!r.preflight) {
        head_ += "\r\nx-amz-crc32: ";
        head_ += std::to_string(Crc32(r.body));
      }
    }
    head_ += "\r\n";
    head_ += r.extra_headers;  // whole "Name: value\r\n" lines
    head_ += "\r\n";
    std::array<net::const_buffer, 2> buffers{net::buffer(head_), net::buffer(response_.body)};
    net::async_write(socket_, buffers, [self = shared_from_this()](beast::error_code ec, size_t) {
      self->busy_ = false;
      if (ec || !self->keep_alive_) return self->Close();
      self->DoRead();
    });
  }

  void Close() {
    if (closed_) return;
    closed_ = true;
    socket_.Close();
    worker_.sessions.erase(this);
    server_.Unregister(this);
  }

  Transport socket_;
  Worker& worker_;
  HttpServer::Impl& server_;
  beast::flat_buffer buffer_{kMaxUnparsedBytes};
  std::optional<http::request_parser<http::string_body>> parser_;
  Clock::time_point last_active_ = Clock::now();
  // When the first bytes of the request being read were seen (zero: none yet).
  Clock::time_point receiving_since_{};
  bool busy_ = false;  // a request is being handled or its response written
  bool handshaking_ = false;  // the TLS handshake (or, on plain TCP, its no-op) is under way
  bool closed_ = false;
  // The response being written.
  unsigned version_ = 11;
  bool keep_alive_ = true;
  Response response_;
  std::string head_;
  std::string local_address_;  // LocalAddress(), once known
};

void HttpServer::Impl::Register(const std::shared_ptr<Session>& s) {
  std::lock_guard<std::mutex> lock(sessions_mu_);
  sessions_.emplace(s.get(), s);
}

void HttpServer::Impl::Unregister(Session* s) {
  std::lock_guard<std::mutex> lock(sessions_mu_);
  sessions_.erase(s);
}

// TLS 1.2 and 1.3 only, with OpenSSL's default cipher list; the certificate file may hold the
// chain after the leaf.
Status HttpServer::Impl::LoadTls() {
  if (options_.tls_cert_file.empty() && options_.tls_key_file.empty()) return Status::Ok();
  if (options_.tls_cert_file.empty() || options_.tls_key_file.empty()) {
    return Error::Validation("TLS needs both --tls-cert and --tls-key");
  }
  tls_.emplace(net::ssl::context::tls_server);
  tls_->set_options(net::ssl::context::default_workarounds | net::ssl::context::no_sslv2 |
                    net::ssl::context::no_sslv3 | net::ssl::context::no_tlsv1 |
                    net::ssl::context::no_tlsv1_1 | net::ssl::context::single_dh_use);
  beast::error_code ec;
  tls_->use_certificate_chain_file(options_.tls_cert_file, ec);
  if (ec) {
    return Error::Validation("cannot load the TLS certificate " + options_.tls_cert_file + ": " +
                             ec.message());
  }
  tls_->use_private_key_file(options_.tls_key_file, net::ssl::context::pem, ec);
  if (ec && ec.message().find("mismatch") != std::string::npos) {
    return Error::Validation("the TLS private key " + options_.tls_key_file +
                             " does not match the certificate " + options_.tls_cert_file);
  }
  if (ec) {
    return Error::Validation("cannot load the TLS private key " + options_.tls_key_file + ": " +
                             ec.message());
  }
  if (SSL_CTX_check_private_key(tls_->native_handle()) != 1) {
    return Error::Validation("the TLS private key " + options_.tls_key_file +
                             " does not match the certificate " + options_.tls_cert_file);
  }
  return Status::Ok();
}

Status HttpServer::Impl::Listen() {
  if (Status s = LoadTls(); !s) return s;
  beast::error_code ec;
  auto address = net::ip::make_address(options_.host, ec);
  if (ec) return Error::Validation("invalid --host '" + options_.host + "': " + ec.message());
  tcp::endpoint endpoint(address, options_.port);
  acceptor_->open(endpoint.protocol(), ec);
  if (!ec) acceptor_->set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) acceptor_->bind(endpoint, ec);
  if (!ec) acceptor_->listen(net::socket_base::max_listen_connections, ec);
  if (ec) {
    return Error::Internal("cannot listen on " + options_.host + ":" +
                           std::to_string(options_.port) + ": " + ec.message());
  }
  return Status::Ok();
}

void HttpServer::Impl::DoAccept() {
  Worker& w = *workers_[next_worker_++ % workers_.size()];
  acceptor_->async_accept(w.ioc, [this, &w](beast::error_code ec, tcp::socket socket) {
    if (ec) {
      if (stopping()) return;
      spdlog::warn("event=accept_error message=\"{}\"", ec.message());
    } else {
      size_t open;
      {
        std::lock_guard<std::mutex> lock(sessions_mu_);
        open = sessions_.size();
      }
      if (open >= options_.max_connections) {
        // A flood of connections is bounded: refuse at once rather than queue without end.
        rejected_connections_.fetch_add(1, std::memory_order_relaxed);
        if (rejected_connections_.load() % 1000 == 1) {
          spdlog::warn("event=connection_refused open={} max={}", open, options_.max_connections);
        }
        socket.close(ec);
      } else {
        socket.set_option(tcp::no_delay(true), ec);
        Transport transport = tls_ ? Transport(std::move(socket), *tls_) : Transport(std::move(socket));
        std::make_shared<Session>(std::move(transport), w, *this)->Start();
      }
    }
    DoAccept();
  });
}

// Each worker checks its own sessions once a second; this keeps timers off the per-request path.
void HttpServer::Impl::ArmIdleCheck(Worker& w) {
  w.idle_check.expires_after(kIdleCheckPeriod);
  w.idle_check.async_wait([this, &w](beast::error_code ec) {
    if (ec || stopping()) return;
    auto now = Clock::now();
    std::vector<Session*> sessions(w.sessions.begin(), w.sessions.end());
    for (Session* s : sessions) s->CloseIfIdle(now);  // may erase from w.sessions
    ArmIdleCheck(w);
  });
}

void HttpServer::Impl::Stop() {
  if (stopping_.exchange(true)) return;
  net::post(workers_[0]->ioc, [this] {
    beast::error_code ec;
    acceptor_->close(ec);
    signals_->cancel();
  });
  for (auto& w : workers_) {
    net::post(w->ioc, [w = w.get()] { w->idle_check.cancel(); });
  }
  std::vector<std::shared_ptr<Session>> live;
  {
    std::lock_guard<std::mutex> lock(sessions_mu_);
    for (const auto& [ptr, weak] : sessions_) {
      if (auto s = weak.lock()) live.push_back(std::move(s));
    }
  }
  for (auto& s : live) s->Shutdown();
}

// Runs a worker's io_context until it is stopped. An exception thrown by a handler (a library
// refusing some input we did not foresee) ends only that handler: its session is released, the
// connection closes, and the worker goes on serving the others.
void HttpServer::Impl::RunWorker(Worker& w) {
  while (true) {
    try {
      w.ioc.run();
      return;
    } catch (const std::exception& e) {
      spdlog::error("event=handler_exception message=\"{}\"", e.what());
    }
  }
}

void HttpServer::Impl::Run() {
  signals_->async_wait([this](beast::error_code ec, int sig) {
    if (ec) return;
    spdlog::info("event=shutdown signal={}", sig);
    Stop();
  });
  DoAccept();
  for (auto& w : workers_) ArmIdleCheck(*w);
  // Every worker, the first included, runs on a Thread of its own so that requests are served
  // with a known stack (common/thread.h), whatever the main thread's stack limit is.
  std::vector<Thread> threads;
  for (size_t i = 0; i < workers_.size(); ++i) {
    threads.emplace_back("http-" + std::to_string(i), [w = workers_[i].get()] { RunWorker(*w); });
  }
  for (auto& t : threads) t.join();
}

HttpServer::HttpServer(ServerOptions options, const api::Services& services,
                       const tablestore::Services* tablestore, Metrics& metrics)
    : impl_(std::make_unique<Impl>(std::move(options), services, tablestore, metrics)) {}
HttpServer::~HttpServer() = default;
Status HttpServer::Listen() { return impl_->Listen(); }
uint16_t HttpServer::port() const { return impl_->acceptor_->local_endpoint().port(); }
bool HttpServer::tls() const { return impl_->tls_.has_value(); }
int HttpServer::threads() const { return static_cast<int>(impl_->workers_.size()); }
void HttpServer::Run() { impl_->Run(); }
void HttpServer::Stop() { impl_->Stop(); }

}  // namespace ttlstore::server
