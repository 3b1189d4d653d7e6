#include "cli/dynamodb_call.h"

#include <ctime>

#include "auth/sigv4.h"
#include "common/clock.h"

namespace ttlstore::cli {
namespace {

// "20261126T051500Z" and "20261126".
std::pair<std::string, std::string> AmzDate(int64_t now_ms) {
  std::time_t s = static_cast<std::time_t>(now_ms / 1000);
  std::tm tm{};
  gmtime_r(&s, &tm);
  char full[20], day[10];
  std::strftime(full, sizeof full, "%Y%m%dT%H%M%SZ", &tm);
  std::strftime(day, sizeof day, "%Y%m%d", &tm);
  return {full, day};
}

}  // namespace

DynamoDbReply CallDynamoDb(const DynamoDbEndpoint& endpoint, const std::string& operation,
                           const std::string& json_body) {
  auto [amz_date, day] = AmzDate(SystemClock().NowMs());
  const std::string host = endpoint.port == "80" ? endpoint.host
                                                 : endpoint.host + ":" + endpoint.port;
  const std::string target = "DynamoDB_20120810." + operation;
  const std::string payload_hash = auth::Sha256Hex(json_body);
  // SigV4 (AWS General Reference, "Signature Version 4 signing process"): canonical request
  // over the signed headers, string to sign, key derived from the secret, date, region and
  // service.
  auth::HeaderPairs signed_pairs = {{"content-type", "application/x-amz-json-1.0"},
                                    {"host", host},
                                    {"x-amz-date", amz_date},
                                    {"x-amz-target", target}};
  const std::vector<std::string> signed_headers = {"content-type", "host", "x-amz-date",
                                                   "x-amz-target"};
  auth::SignedRequest request{"POST", "/", signed_pairs, json_body};
  const std::string canonical =
      auth::SigV4Verifier::CanonicalRequest(request, signed_headers, payload_hash, false);
  const std::string scope = day + "/" + endpoint.region + "/dynamodb/aws4_request";
  const std::string to_sign =
      "AWS4-HMAC-SHA256\n" + amz_date + "\n" + scope + "\n" + auth::Sha256Hex(canonical);
  std::string key = auth::HmacSha256("AWS4" + endpoint.secret_access_key, day);
  key = auth::HmacSha256(key, endpoint.region);
  key = auth::HmacSha256(key, "dynamodb");
  key = auth::HmacSha256(key, "aws4_request");
  const std::string signature = auth::Hex(auth::HmacSha256(key, to_sign));
  std::vector<std::pair<std::string, std::string>> headers = {
      {"Content-Type", "application/x-amz-json-1.0"},
      {"X-Amz-Date", amz_date},
      {"X-Amz-Target", target},
      {"Authorization", "AWS4-HMAC-SHA256 Credential=" + endpoint.access_key_id + "/" + scope +
                            ", SignedHeaders=content-type;host;x-amz-date;x-amz-target, "
                            "Signature=" + signature}};
  HttpEndpoint http = endpoint;
  HttpReply reply = HttpPost(http, "/", headers, json_body);
  DynamoDbReply out;
  if (reply.status == 0) {
    out.error_type = "ConnectionError";
    out.message = reply.transport_error;
    return out;
  }
  if (reply.status == 200) {
    out.ok = true;
    out.body = std::move(reply.body);
    return out;
  }
  std::string type = JsonMemberText(reply.body, "__type").value_or("HTTP " + std::to_string(reply.status));
  out.error_type = type.substr(type.rfind('#') == std::string::npos ? 0 : type.rfind('#') + 1);
  out.message = JsonMemberText(reply.body, "message")
                    .value_or(JsonMemberText(reply.body, "Message").value_or(reply.body));
  return out;
}

std::optional<std::string> JsonMemberText(const std::string& json, const std::string& name) {
  const std::string quoted = "\"" + name + "\"";
  size_t pos = 0;
  while ((pos = json.find(quoted, pos)) != std::string::npos) {
    size_t i = pos + quoted.size();
    pos = i;
    while (i < json.size() && (json[i] == ' ' || json[i] == '\n' || json[i] == '\t' || json[i] == '\r')) ++i;
    if (i >= json.size() || json[i] != ':') continue;  // a string value that reads like the name
    ++i;
    while (i < json.size() && (json[i] == ' ' || json[i] == '\n' || json[i] == '\t' || json[i] == '\r')) ++i;
    if (i >= json.size()) return std::nullopt;
    std::string out;
    if (json[i] == '"') {
      for (++i; i < json.size() && json[i] != '"'; ++i) {
        if (json[i] == '\\' && i + 1 < json.size()) {
          char e = json[++i];
          out += e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e == 'u' ? '\\' : e;
          if (e == 'u') out += 'u';
        } else {
          out += json[i];
        }
      }
      return out;
    }
    while (i < json.size() && json[i] != ',' && json[i] != '}' && json[i] != ']' &&
           json[i] != ' ' && json[i] != '\n') {
      out += json[i++];
    }
    return out;
  }
  return std::nullopt;
}

std::string JsonQuote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20) {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\u00";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    } else {
      out += c;
    }
  }
  return out + "\"";
}

}  // namespace ttlstore::cli
