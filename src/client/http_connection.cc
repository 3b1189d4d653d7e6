#include "client/http_connection.h"

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <optional>

namespace ttlstore::client {

namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = boost::asio::ssl;
using tcp = boost::asio::ip::tcp;

struct HttpConnection::Impl {
  boost::asio::io_context io;
  std::optional<ssl::context> tls_ctx;
  std::optional<beast::tcp_stream> plain;
  std::optional<beast::ssl_stream<beast::tcp_stream>> tls;
  beast::flat_buffer buffer;

  bool connected() const { return plain.has_value() || tls.has_value(); }
  beast::tcp_stream& lowest() { return plain ? *plain : beast::get_lowest_layer(*tls); }

  void Close() {
    beast::error_code ec;
    if (plain) plain->socket().close(ec);
    if (tls) beast::get_lowest_layer(*tls).socket().close(ec);
    plain.reset();
    tls.reset();
    buffer.clear();
  }

  void Connect(const Endpoint& e, std::chrono::milliseconds timeout) {
    tcp::resolver resolver(io);
    auto addresses = resolver.resolve(e.host, e.port);
    if (!e.https) {
      plain.emplace(io);
      plain->expires_after(timeout);
      plain->connect(addresses);
      plain->socket().set_option(tcp::no_delay(true));
      return;
    }
    if (!tls_ctx) {
      tls_ctx.emplace(ssl::context::tls_client);
      tls_ctx->set_default_verify_paths();
      tls_ctx->set_verify_mode(ssl::verify_peer);
      tls_ctx->set_options(ssl::context::no_sslv2 | ssl::context::no_sslv3 |
                           ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
    }
    tls.emplace(io, *tls_ctx);
    // SNI and the certificate's name must both be the host we asked for (SNI carries names
    // only, RFC 6066 section 3: not for an IP address).
    boost::system::error_code not_ip;
    boost::asio::ip::make_address(e.host, not_ip);
    if (not_ip && !SSL_set_tlsext_host_name(tls->native_handle(), e.host.c_str())) {
      throw beast::system_error(beast::error_code(static_cast<int>(::ERR_get_error()),
                                                  boost::asio::error::get_ssl_category()));
    }
    tls->set_verify_callback(ssl::host_name_verification(e.host));
    auto& low = beast::get_lowest_layer(*tls);
    low.expires_after(timeout);
    low.connect(addresses);
    low.socket().set_option(tcp::no_delay(true));
    tls->handshake(ssl::stream_base::client);
  }

  template <class Stream>
  HttpResponse Exchange(Stream& stream, http::request<http::string_body>& req) {
    http::write(stream, req);
    http::response_parser<http::string_body> parser;
    parser.body_limit(kMaxResponseBytes);
    parser.header_limit(64 * 1024);
    http::read(stream, buffer, parser);
    HttpResponse out;
    out.status = static_cast<int>(parser.get().result_int());
    bool keep = parser.get().keep_alive();
    out.body = std::move(parser.get().body());
    if (!keep) Close();
    return out;
  }
};

HttpConnection::HttpConnection(Endpoint endpoint)
    : endpoint_(std::move(endpoint)), impl_(std::make_unique<Impl>()) {}

HttpConnection::~HttpConnection() { impl_->Close(); }

Result<HttpResponse> HttpConnection::Post(
    const std::string& target, const std::vector<std::pair<std::string, std::string>>& headers,
    const std::string& body, std::chrono::milliseconds timeout) {
  http::request<http::string_body> req{http::verb::post, target, 11};
  req.set(http::field::host, endpoint_.HostHeader());
  for (const auto& [name, value] : headers) req.set(name, value);
  req.keep_alive(true);
  req.body() = body;
  req.prepare_payload();
  std::string last_error;
  // A reused connection may have been closed by the server since the last request (idle
  // timeout): one fresh attempt then. A fresh connection that fails is the answer.
  for (int attempt = 0; attempt < 2; ++attempt) {
    bool reused = impl_->connected();
    try {
      if (!reused) impl_->Connect(endpoint_, timeout);
      impl_->lowest().expires_after(timeout);
      if (impl_->plain) return impl_->Exchange(*impl_->plain, req);
      return impl_->Exchange(*impl_->tls, req);
    } catch (const boost::system::system_error& e) {
      last_error = e.code().message();
      if (e.code().category() == boost::asio::error::get_ssl_category()) {
        last_error = "TLS: " + e.code().message();
      }
    } catch (const std::exception& e) {
      last_error = e.what();
    }
    impl_->Close();
    if (!reused) break;
  }
  // A certificate the system does not trust will not become trusted by trying again.
  ErrorCode code = last_error.rfind("TLS: ", 0) == 0 ? ErrorCode::kAccessDenied : ErrorCode::kInternal;
  return Error(code, "cannot reach " + endpoint_.Url() + ": " + last_error);
}

}  // namespace ttlstore::client
