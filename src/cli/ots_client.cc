#include "cli/ots_client.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "common/clock.h"
#include "tablestore/signing.h"
#include "tablestore/tablestore.pb.h"

namespace ttlstore::cli {

namespace beast = boost::beast;
namespace http = beast::http;
using tcp = boost::asio::ip::tcp;

bool OtsEndpoint::SetUrl(const std::string& url) {
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

OtsCallResult CallOts(const OtsEndpoint& endpoint, const std::string& action,
                      const std::string& body) {
  OtsCallResult result;
  tablestore::Headers headers = {
      {"x-ots-date", tablestore::FormatOtsDate(SystemClock().NowMs())},
      {"x-ots-apiversion", "2015-12-31"},
      {"x-ots-accesskeyid", endpoint.access_key_id},
      {"x-ots-instancename", endpoint.instance},
      {"x-ots-contentmd5", tablestore::ContentMd5(body)},
  };
  headers.push_back({"x-ots-signature",
                     tablestore::HmacSha1Base64(endpoint.access_key_secret,
                                                tablestore::RequestStringToSign(action, headers))});
  try {
    boost::asio::io_context io;
    tcp::resolver resolver(io);
    beast::tcp_stream stream(io);
    stream.expires_after(std::chrono::seconds(30));
    stream.connect(resolver.resolve(endpoint.host, endpoint.port));
    http::request<http::string_body> req{http::verb::post, "/" + action, 11};
    req.set(http::field::host, endpoint.host);
    for (const auto& [name, value] : headers) req.set(name, value);
    req.body() = body;
    req.prepare_payload();
    http::write(stream, req);
    beast::flat_buffer buffer;
    http::response<http::string_body> res;
    http::read(stream, buffer, res);
    beast::error_code ec;
    stream.socket().shutdown(tcp::socket::shutdown_both, ec);
    if (res.result_int() < 300) {
      result.ok = true;
      result.body = std::move(res.body());
      return result;
    }
    otspb::Error err;
    result.error.http_status = static_cast<int>(res.result_int());
    if (err.ParsePartialFromString(res.body())) {
      result.error.code = err.code();
      result.error.message = err.message();
    } else {
      result.error.code = "HTTP " + std::to_string(res.result_int());
      result.error.message = res.body();
    }
  } catch (const boost::system::system_error& e) {
    result.error = {0, "ConnectionError",
                    "cannot reach " + endpoint.host + ":" + endpoint.port + ": " +
                        e.code().message()};
  } catch (const std::exception& e) {
    result.error = {0, "ConnectionError",
                    "cannot reach " + endpoint.host + ":" + endpoint.port + ": " + e.what()};
  }
  return result;
}

}  // namespace ttlstore::cli
