#include "cli/http_post.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

namespace ttlstore::cli {

namespace beast = boost::beast;
namespace http = beast::http;
using tcp = boost::asio::ip::tcp;

bool HttpEndpoint::SetUrl(const std::string& url) {
  const std::string scheme = "http://";
  if (url.rfind(scheme, 0) != 0) return false;
  std::string rest = url.substr(scheme.size());
  if (!rest.empty() && rest.back() == '/') rest.pop_back();
  if (rest.empty() || rest.find('/') != std::string::npos) return false;
  size_t colon = rest.rfind(':');
  if (colon == std::string::npos) {
    host = rest;
    port = "80";
  } else {
    host = rest.substr(0, colon);
    port = rest.substr(colon + 1);
    if (port.empty()) return false;
  }
  return !host.empty();
}

HttpReply HttpPost(const HttpEndpoint& endpoint, const std::string& target,
                   const std::vector<std::pair<std::string, std::string>>& headers,
                   const std::string& body) {
  HttpReply reply;
  try {
    boost::asio::io_context io;
    tcp::resolver resolver(io);
    beast::tcp_stream stream(io);
    stream.expires_after(std::chrono::seconds(30));
    stream.connect(resolver.resolve(endpoint.host, endpoint.port));
    http::request<http::string_body> req{http::verb::post, target, 11};
    // RFC 9110: the port is part of Host unless it is the scheme's default (SigV4 signs it).
    req.set(http::field::host,
            endpoint.port == "80" ? endpoint.host : endpoint.host + ":" + endpoint.port);
    for (const auto& [name, value] : headers) req.set(name, value);
    req.body() = body;
    req.prepare_payload();
    http::write(stream, req);
    beast::flat_buffer buffer;
    http::response_parser<http::string_body> parser;
    parser.body_limit(64 << 20);  // a DescribeExport is a few KB; never take unbounded bytes
    http::read(stream, buffer, parser);
    beast::error_code ec;
    stream.socket().shutdown(tcp::socket::shutdown_both, ec);
    reply.status = static_cast<int>(parser.get().result_int());
    reply.body = std::move(parser.get().body());
  } catch (const boost::system::system_error& e) {
    reply.transport_error =
        "cannot reach " + endpoint.host + ":" + endpoint.port + ": " + e.code().message();
  } catch (const std::exception& e) {
    reply.transport_error = "cannot reach " + endpoint.host + ":" + endpoint.port + ": " + e.what();
  }
  return reply;
}

}  // namespace ttlstore::cli
