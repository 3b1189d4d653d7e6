#include "cli/ots_client.h"

#include "common/clock.h"
#include "tablestore/signing.h"
#include "tablestore/tablestore.pb.h"

namespace ttlstore::cli {

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
  std::vector<std::pair<std::string, std::string>> pairs(headers.begin(), headers.end());
  HttpReply reply = HttpPost(endpoint, "/" + action, pairs, body);
  if (reply.status == 0) {
    result.error = {0, "ConnectionError", reply.transport_error};
    return result;
  }
  if (reply.status < 300) {
    result.ok = true;
    result.body = std::move(reply.body);
    return result;
  }
  otspb::Error err;
  result.error.http_status = reply.status;
  if (err.ParsePartialFromString(reply.body)) {
    result.error.code = err.code();
    result.error.message = err.message();
  } else {
    result.error.code = "HTTP " + std::to_string(reply.status);
    result.error.message = reply.body;
  }
  return result;
}

}  // namespace ttlstore::cli
