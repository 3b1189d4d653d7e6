#include "auth/sigv4_signer.h"

#include <algorithm>
#include <set>

#include "auth/sigv4.h"
#include "common/ascii.h"

namespace ttlstore::auth {

std::string AuthorizationHeader(const SigningIdentity& id, std::string_view method,
                                std::string_view target, const OwnedHeaders& headers,
                                std::string_view body, std::string_view amz_date) {
  // Every header given is signed (the caller passes only what it sends), by lower-case name,
  // sorted and once each as the canonical form requires.
  std::set<std::string> names;
  HeaderPairs views;
  views.reserve(headers.size());
  for (const auto& [name, value] : headers) {
    names.insert(AsciiLower(name));
    views.emplace_back(name, value);
  }
  std::vector<std::string> signed_headers(names.begin(), names.end());
  std::string canonical = SigV4Verifier::CanonicalRequest({method, target, views, body},
                                                          signed_headers, Sha256Hex(body), false);
  std::string date(amz_date.substr(0, 8));
  std::string scope = date + "/" + id.region + "/" + id.service + "/aws4_request";
  std::string to_sign =
      "AWS4-HMAC-SHA256\n" + std::string(amz_date) + "\n" + scope + "\n" + Sha256Hex(canonical);
  std::string key = DeriveSigningKey(id.secret_access_key, date, id.region, id.service);
  std::string joined;
  for (size_t i = 0; i < signed_headers.size(); ++i) {
    if (i) joined += ';';
    joined += signed_headers[i];
  }
  return "AWS4-HMAC-SHA256 Credential=" + id.access_key_id + "/" + scope +
         ", SignedHeaders=" + joined + ", Signature=" + Hex(HmacSha256(key, to_sign));
}

void SignRequest(const SigningIdentity& id, std::string_view method, std::string_view target,
                 OwnedHeaders& headers, std::string_view body, int64_t now_ms) {
  std::string amz_date = FormatAmzDate(now_ms);
  headers.emplace_back("X-Amz-Date", amz_date);
  if (!id.session_token.empty()) headers.emplace_back("X-Amz-Security-Token", id.session_token);
  std::string authorization = AuthorizationHeader(id, method, target, headers, body, amz_date);
  headers.emplace_back("Authorization", std::move(authorization));
}

}  // namespace ttlstore::auth
