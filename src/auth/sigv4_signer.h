// SigV4 signing of outgoing requests (the client side of auth/sigv4.h): the replicator and the
// other commands that call a DynamoDB-API endpoint sign with it. The canonical request is the
// verifier's (SigV4Verifier::CanonicalRequest), so what we sign is exactly what we verify.
//
// Signed headers: host, x-amz-date, x-amz-target (when present), content-type and
// x-amz-security-token (when a session token is given); the payload hash is SHA-256 of the body.
// Signing adds X-Amz-Date, X-Amz-Security-Token and Authorization to the request's headers.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ttlstore::auth {

struct SigningIdentity {
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;  // empty: none (long-term keys)
  std::string region = "us-east-1";
  std::string service = "dynamodb";
};

using OwnedHeaders = std::vector<std::pair<std::string, std::string>>;

// Signs a request: `headers` must already hold Host (and the others to be signed); appends
// X-Amz-Date, X-Amz-Security-Token (if any) and Authorization. `now_ms`: the signing time.
void SignRequest(const SigningIdentity& id, std::string_view method, std::string_view target,
                 OwnedHeaders& headers, std::string_view body, int64_t now_ms);

// The Authorization header value for a request whose headers already include X-Amz-Date (and
// the token): exposed for the AWS test vectors.
std::string AuthorizationHeader(const SigningIdentity& id, std::string_view method,
                                std::string_view target, const OwnedHeaders& headers,
                                std::string_view body, std::string_view amz_date);

}  // namespace ttlstore::auth
