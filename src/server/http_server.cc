#include "server/http_server.h"

#include <spdlog/spdlog.h>

#include <atomic>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/crc.hpp>
#include <chrono>
#include <mutex>
#include <random>
#include <unordered_map>
#include <thread>
#include <vector>

namespace ttlstore::server {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;

// Headers are small in this protocol; 64 KB leaves room for long SigV4 headers.
constexpr size_t kMaxHeaderBytes = 64 * 1024;

std::string NewRequestId() {
  static constexpr char kChars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  thread_local std::mt19937_64 rng{std::random_device{}()};
  std::string id(52, 'A');
  for (auto& c : id) c = kChars[rng() % 36];
  return id;
}

uint32_t Crc32(const std::string& s) {
  boost::crc_32_type crc;
  crc.process_bytes(s.data(), s.size());
  return crc.checksum();
}

}  // namespace

class Session;

class HttpServer::Impl {
 public:
  Impl(ServerOptions options, const api::Services& services, Metrics& metrics)
      : options_(std::move(options)),
        services_(services),
        metrics_(metrics),
        ioc_(options_.threads),
        acceptor_(net::make_strand(ioc_)),
        signals_(ioc_, SIGINT, SIGTERM) {}

  Status Listen();
  void Run();
  void Stop();
  void DoAccept();

  void Register(const std::shared_ptr<Session>& s);
  void Unregister(Session* s);
  bool stopping() const { return stopping_.load(); }

  ServerOptions options_;
  const api::Services& services_;
  Metrics& metrics_;
  net::io_context ioc_;
  tcp::acceptor acceptor_;
  net::signal_set signals_;
  std::atomic<bool> stopping_{false};
  std::mutex sessions_mu_;
  std::unordered_map<Session*, std::weak_ptr<Session>> sessions_;  // GUARDED_BY(sessions_mu_)
};

// One connection: read a request, handle it, write the response, repeat while keep-alive.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket&& socket, HttpServer::Impl& server)
      : stream_(std::move(socket)), server_(server) {}

  void Start() {
    server_.Register(shared_from_this());
    net::dispatch(stream_.get_executor(),
                  beast::bind_front_handler(&Session::DoRead, shared_from_this()));
  }

  // Called at shutdown: close now if idle, otherwise after the current response.
  void Shutdown() {
    net::post(stream_.get_executor(), [self = shared_from_this()] {
      if (!self->busy_) self->Close();
    });
  }

 private:
  void DoRead() {
    if (server_.stopping()) return Close();
    parser_.emplace();
    parser_->header_limit(kMaxHeaderBytes);
    parser_->body_limit(server_.options_.max_body_bytes);
    stream_.expires_after(std::chrono::seconds(server_.options_.idle_timeout_seconds));
    http::async_read(stream_, buffer_, *parser_,
                     beast::bind_front_handler(&Session::OnRead, shared_from_this()));
  }

  void OnRead(beast::error_code ec, size_t) {
    if (ec == http::error::body_limit) return WriteTooLarge();
    if (ec) return Close();  // end of stream, timeout, reset, shutdown
    busy_ = true;
    Handle(parser_->release());
  }

  void Handle(http::request<http::string_body> req) {
    auto start = std::chrono::steady_clock::now();
    auto res = std::make_shared<http::response<http::string_body>>();
    res->version(req.version());
    res->keep_alive(req.keep_alive());
    res->set(http::field::server, "ttlstore");
    std::string operation = "", outcome = "ok";
    bool api_call = false;
    // The service answers in the media type it was asked in, and knows only these two.
    std::string_view content_type = req[http::field::content_type];
    content_type = content_type.substr(0, content_type.find(';'));
    bool json_type = content_type.empty() || content_type == "application/x-amz-json-1.0" ||
                     content_type == "application/json";
    if (req.method() == http::verb::post && json_type) {
      api_call = true;
      std::string_view amz_target = req["X-Amz-Target"];
      api::ApiResponse r = api::Dispatch(server_.services_, amz_target, req.body());
      res->result(static_cast<http::status>(r.http_status));
      res->set(http::field::content_type, content_type == "application/json"
                                              ? "application/json"
                                              : "application/x-amz-json-1.0");
      res->set("x-amzn-RequestId", NewRequestId());
      res->set("x-amz-crc32", std::to_string(Crc32(r.body)));
      res->body() = std::move(r.body);
      operation = std::move(r.operation);
      if (!r.error_type.empty()) {
        outcome = r.error_type;
        spdlog::warn("event=request_error operation={} status={} type={} message=\"{}\"",
                     operation.empty() ? "unknown" : operation, r.http_status, r.error_type,
                     r.error_message);
      }
    } else if (req.method() == http::verb::get && req.target() == "/health") {
      res->result(http::status::ok);
      res->set(http::field::content_type, "application/json");
      res->body() = R"({"status":"ok"})";
    } else if (req.method() == http::verb::get && req.target() == "/metrics") {
      res->result(http::status::ok);
      res->set(http::field::content_type, "text/plain; version=0.0.4");
      res->body() = server_.metrics_.Render();
    } else if (req.method() == http::verb::get) {
      // What the service answers to a plain GET: a health line.
      res->result(http::status::ok);
      res->set(http::field::content_type, "text/plain");
      res->body() = "healthy: dynamodb." + server_.services_.region + ".amazonaws.com ";
    } else {
      res->result(http::status::not_found);
      res->set(http::field::content_type, "application/x-amz-json-1.0");
      res->body() = "<UnknownOperationException/>\n";
    }
    res->prepare_payload();
    if (api_call) {
      double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      server_.metrics_.RecordRequest(operation, outcome, seconds);
    }
    Write(std::move(res));
  }

  void WriteTooLarge() {
    busy_ = true;
    auto res = std::make_shared<http::response<http::string_body>>(
        http::status::payload_too_large, 11);
    res->set(http::field::content_type, "application/x-amz-json-1.0");
    res->body() =
        R"({"__type":"com.amazonaws.dynamodb.v20120810#RequestEntityTooLarge",)"
        R"("message":"Request must be smaller than 16777216 bytes for the operation"})";
    res->keep_alive(false);
    res->prepare_payload();
    server_.metrics_.RecordRequest("", "RequestEntityTooLarge", 0);
    Write(std::move(res));
  }

  void Write(std::shared_ptr<http::response<http::string_body>> res) {
    bool keep_alive = res->keep_alive();
    http::async_write(stream_, *res,
                      [self = shared_from_this(), res, keep_alive](beast::error_code ec, size_t) {
                        self->busy_ = false;
                        if (ec || !keep_alive) return self->Close();
                        self->DoRead();
                      });
  }

  void Close() {
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ec);
    stream_.close();
    server_.Unregister(this);
  }

  beast::tcp_stream stream_;
  HttpServer::Impl& server_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  bool busy_ = false;  // a request is being handled or its response written
};

void HttpServer::Impl::Register(const std::shared_ptr<Session>& s) {
  std::lock_guard<std::mutex> lock(sessions_mu_);
  sessions_.emplace(s.get(), s);
}

void HttpServer::Impl::Unregister(Session* s) {
  std::lock_guard<std::mutex> lock(sessions_mu_);
  sessions_.erase(s);
}

Status HttpServer::Impl::Listen() {
  beast::error_code ec;
  auto address = net::ip::make_address(options_.host, ec);
  if (ec) return Error::Validation("invalid --host '" + options_.host + "': " + ec.message());
  tcp::endpoint endpoint(address, options_.port);
  acceptor_.open(endpoint.protocol(), ec);
  if (!ec) acceptor_.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) acceptor_.bind(endpoint, ec);
  if (!ec) acceptor_.listen(net::socket_base::max_listen_connections, ec);
  if (ec) {
    return Error::Internal("cannot listen on " + options_.host + ":" +
                           std::to_string(options_.port) + ": " + ec.message());
  }
  return Status::Ok();
}

void HttpServer::Impl::DoAccept() {
  acceptor_.async_accept(net::make_strand(ioc_), [this](beast::error_code ec, tcp::socket socket) {
    if (ec) {
      if (stopping()) return;
      spdlog::warn("event=accept_error message=\"{}\"", ec.message());
    } else {
      socket.set_option(tcp::no_delay(true), ec);
      std::make_shared<Session>(std::move(socket), *this)->Start();
    }
    DoAccept();
  });
}

void HttpServer::Impl::Stop() {
  if (stopping_.exchange(true)) return;
  net::post(acceptor_.get_executor(), [this] {
    beast::error_code ec;
    acceptor_.close(ec);
  });
  signals_.cancel();
  std::vector<std::shared_ptr<Session>> live;
  {
    std::lock_guard<std::mutex> lock(sessions_mu_);
    for (const auto& [ptr, weak] : sessions_) {
      if (auto s = weak.lock()) live.push_back(std::move(s));
    }
  }
  for (auto& s : live) s->Shutdown();
}

void HttpServer::Impl::Run() {
  signals_.async_wait([this](beast::error_code ec, int sig) {
    if (ec) return;
    spdlog::info("event=shutdown signal={}", sig);
    Stop();
  });
  DoAccept();
  int n = options_.threads > 0 ? options_.threads
                               : std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> threads;
  for (int i = 1; i < n; ++i) threads.emplace_back([this] { ioc_.run(); });
  ioc_.run();
  for (auto& t : threads) t.join();
}

HttpServer::HttpServer(ServerOptions options, const api::Services& services, Metrics& metrics)
    : impl_(std::make_unique<Impl>(std::move(options), services, metrics)) {}
HttpServer::~HttpServer() = default;
Status HttpServer::Listen() { return impl_->Listen(); }
uint16_t HttpServer::port() const { return impl_->acceptor_.local_endpoint().port(); }
void HttpServer::Run() { impl_->Run(); }
void HttpServer::Stop() { impl_->Stop(); }

}  // namespace ttlstore::server
