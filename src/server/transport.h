// Transport: the byte stream under one HTTP connection, plain TCP or TLS (OpenSSL through
// Boost.Asio's ssl::stream), chosen per listener by --tls-cert/--tls-key. It models Asio's
// AsyncReadStream and AsyncWriteStream, so Beast's read and the gathered write in the session
// are the same code for both; only the handshake and the close differ.
//
// Included by http_server.cc only: the SSL templates stay out of every other translation unit.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl.hpp>
#include <optional>
#include <utility>

namespace ttlstore::server {

class Transport {
 public:
  using tcp = boost::asio::ip::tcp;
  using TlsStream = boost::asio::ssl::stream<tcp::socket>;
  using executor_type = tcp::socket::executor_type;

  explicit Transport(tcp::socket socket) : plain_(std::move(socket)) {}
  Transport(tcp::socket socket, boost::asio::ssl::context& tls) : tls_(std::in_place, std::move(socket), tls) {}

  bool is_tls() const { return tls_.has_value(); }
  executor_type get_executor() { return socket().get_executor(); }
  tcp::socket& socket() { return tls_ ? tls_->next_layer() : *plain_; }

  template <class MutableBuffers, class Handler>
  void async_read_some(const MutableBuffers& buffers, Handler&& handler) {
    if (tls_) {
      tls_->async_read_some(buffers, std::forward<Handler>(handler));
    } else {
      plain_->async_read_some(buffers, std::forward<Handler>(handler));
    }
  }

  template <class ConstBuffers, class Handler>
  void async_write_some(const ConstBuffers& buffers, Handler&& handler) {
    if (tls_) {
      tls_->async_write_some(buffers, std::forward<Handler>(handler));
    } else {
      plain_->async_write_some(buffers, std::forward<Handler>(handler));
    }
  }

  // The server side of the TLS handshake; on a plain connection, `handler` runs at once (posted,
  // never inline) with no error.
  template <class Handler>
  void async_accept_handshake(Handler&& handler) {
    if (tls_) {
      tls_->async_handshake(boost::asio::ssl::stream_base::server, std::forward<Handler>(handler));
    } else {
      boost::asio::post(plain_->get_executor(),
                        [h = std::forward<Handler>(handler)]() mutable { h(boost::system::error_code{}); });
    }
  }

  // Closes the socket without a TLS close_notify: the response has been written in full, and
  // HTTP framing (Content-Length) tells the client where it ends, so waiting for the peer's
  // close_notify would only hold the connection open.
  void Close() {
    boost::system::error_code ec;
    socket().shutdown(tcp::socket::shutdown_both, ec);
    socket().close(ec);
  }

 private:
  std::optional<tcp::socket> plain_;
  std::optional<TlsStream> tls_;
};

}  // namespace ttlstore::server
