// SigV4Verifier: AWS Signature Version 4 verification of DynamoDB API requests, in both forms
// the SDKs use: the Authorization header ("AWS4-HMAC-SHA256 Credential=..., SignedHeaders=...,
// Signature=...") and the presigned query string (X-Amz-Algorithm, X-Amz-Credential, X-Amz-Date,
// X-Amz-Expires, X-Amz-SignedHeaders, X-Amz-Signature). The payload hash is the
// x-amz-content-sha256 header when present, else SHA-256 of the body (UNSIGNED-PAYLOAD is
// accepted for presigned requests). The request time must be within 15 minutes of the server's.
//
// Errors carry the service's types and messages (UnrecognizedClientException,
// InvalidSignatureException, MissingAuthenticationTokenException, IncompleteSignatureException).
// Derived signing keys (secret, date, region, service) are cached: computing one is four HMACs.
//
// Thread-safety: Verify may be called from any thread at once.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "auth/credentials.h"
#include "common/result.h"

namespace ttlstore::auth {

using HeaderPairs = std::vector<std::pair<std::string_view, std::string_view>>;

struct SignedRequest {
  std::string_view method;   // "POST"
  std::string_view target;   // path and query, as on the request line
  const HeaderPairs& headers;
  std::string_view body;
};

class SigV4Verifier {
 public:
  explicit SigV4Verifier(const Credentials& credentials) : credentials_(credentials) {}

  // Ok, or the error the service answers. `now_ms`: the server's wall clock. On success
  // `*access_key_id` (if given) names the key that signed.
  Status Verify(const SignedRequest& request, int64_t now_ms,
                std::string* access_key_id = nullptr) const;

  // Exposed for tests: the canonical request and the hex signature over it.
  static std::string CanonicalRequest(const SignedRequest& request,
                                      const std::vector<std::string>& signed_headers,
                                      std::string_view payload_hash, bool presigned);
  std::string SigningKey(const std::string& secret, std::string_view date,
                         std::string_view region, std::string_view service) const;

 private:
  const Credentials& credentials_;
  mutable std::mutex cache_mu_;
  mutable std::unordered_map<std::string, std::string> key_cache_;  // GUARDED_BY(cache_mu_)
};

// Hex SHA-256 and hex HMAC-SHA256, as SigV4 spells them.
std::string Sha256Hex(std::string_view data);
std::string HmacSha256(std::string_view key, std::string_view data);
std::string Hex(std::string_view bytes);
// The SigV4 signing key: HMAC chain over "AWS4"+secret, date (YYYYMMDD), region, service,
// "aws4_request". Shared by the verifier and the signer (auth/sigv4_signer.h).
std::string DeriveSigningKey(std::string_view secret, std::string_view date,
                             std::string_view region, std::string_view service);
// "YYYYMMDDTHHMMSSZ" of an epoch time in ms (the X-Amz-Date form).
std::string FormatAmzDate(int64_t ms);

}  // namespace ttlstore::auth
