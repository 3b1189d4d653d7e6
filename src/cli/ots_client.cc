#include "cli/ots_client.h"

#include "client/http_connection.h"
#include "common/clock.h"
#include "tablestore/signing.h"
#include "tablestore/tablestore.pb.h"

namespace ttlstore::cli {

bool OtsEndpoint::SetUrl(const std::string& url) {
  auto parsed = client::ParseEndpoint(url);
  if (!parsed) return false;
  https = parsed->https;
  host = parsed->host;
  port = parsed->port;
  return true;
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
  client::HttpConnection connection(client::Endpoint{endpoint.https, endpoint.host, endpoint.port});
  auto res = connection.Post("/" + action, headers, body, std::chrono::seconds(30));
  if (!res) {
    result.error = {0, "ConnectionError", res.error().message()};
    return result;
  }
  if (res->status < 300) {
    result.ok = true;
    result.body = std::move(res->body);
    return result;
  }
  otspb::Error err;
  result.error.http_status = res->status;
  if (err.ParsePartialFromString(res->body)) {
    result.error.code = err.code();
    result.error.message = err.message();
  } else {
    result.error.code = "HTTP " + std::to_string(res->status);
    result.error.message = res->body;
  }
  return result;
}

}  // namespace ttlstore::cli
