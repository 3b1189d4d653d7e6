// The Tablestore protocol's authentication (tablestore-protocol.md sections 1.2-1.4): the V2
// request signature (HMAC-SHA1 over the sorted x-ots-* headers), the body's MD5, the date, and
// the response signature the Python and Java SDKs verify. Also the operator's credentials file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "auth/credentials.h"
#include "common/result.h"
#include "tablestore/ots_error.h"

namespace ttlstore::tablestore {

using auth::Credentials;

using Headers = std::vector<std::pair<std::string, std::string>>;

// base64(MD5(body)); the empty body gives "1B2M2Y8AsgTpgAmY7PhCfg==".
std::string ContentMd5(std::string_view body);
std::string HmacSha1Base64(std::string_view key, std::string_view message);

// "/Action\nPOST\n\n" then each x-ots-* header but the signature's own (`signature_header`:
// x-ots-signature for V2, x-ots-signaturev4 for V4), lowercased name, trimmed value, sorted by
// name, as "name:value\n".
std::string RequestStringToSign(std::string_view action, const Headers& headers,
                                std::string_view signature_header = "x-ots-signature");
// The V4 signing key (tablestore-protocol.md 1.3; the Java SDK's CalculateV4SigningKeyUtil):
// base64 of HMAC-SHA256 chained over the date (yyyyMMdd), the region, "ots" and
// "aliyun_v4_request", starting from the key "aliyun_v4" + secret.
std::string V4SigningKey(std::string_view secret, std::string_view sign_date,
                         std::string_view region);
// Each x-ots-* response header sorted by name as "name:value\n", then "/Action".
std::string ResponseStringToSign(std::string_view action, const Headers& headers);
// "OTS <id>:<base64(HMAC-SHA1(secret, ResponseStringToSign))>".
std::string ResponseAuthorization(const std::string& access_key_id, const std::string& secret,
                                  const std::string& action, const Headers& headers);

// Epoch ms of an x-ots-date; lenient: "YYYY-MM-DDTHH:MM:SS" then any fraction digits, then "Z".
Result<int64_t> ParseOtsDate(std::string_view date);
// "2020-09-09T08:37:11.680000Z" (microseconds, as the service sends).
std::string FormatOtsDate(int64_t ms);

// How far x-ots-date may be from the server's clock.
inline constexpr int64_t kMaxClockSkewMs = 15 * 60 * 1000;

// Checks a request as the service does: required headers, date format and skew, content MD5,
// access key and signature (V2, or V4 when x-ots-signaturev4 is sent). `credentials` null: any
// key and signature pass. On success `*secret` is what signs the response: the caller's secret,
// or for V4 the derived signing key (empty when unchecked); on an error other than an unknown
// key it is set too, so the error response can be signed.
std::optional<OtsError> VerifyRequest(const Credentials* credentials, std::string_view action,
                                      const Headers& headers, std::string_view body,
                                      int64_t now_ms, std::string* secret);

}  // namespace ttlstore::tablestore
