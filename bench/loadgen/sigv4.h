// AWS Signature Version 4 for DynamoDB JSON requests (POST /, no query string).
//
// The load generator signs every request for real so that it measures what an SDK client costs a
// server that verifies signatures. The derived signing key depends only on (date, region,
// service), so it is computed once per UTC day and cached; per request we pay two SHA-256 digests
// (body, canonical request) and one HMAC.
#pragma once

#include <ctime>
#include <string>
#include <string_view>

struct evp_md_st;
struct evp_md_ctx_st;

namespace loadgen {

struct Credentials {
  std::string access_key = "bench";
  std::string secret_key = "bench";
  std::string region = "us-east-1";
  std::string service = "dynamodb";
};

class SigV4Signer {
 public:
  explicit SigV4Signer(Credentials creds);
  ~SigV4Signer();
  SigV4Signer(const SigV4Signer&) = delete;
  SigV4Signer& operator=(const SigV4Signer&) = delete;

  // Appends the header lines "X-Amz-Date: ...\r\n" and "Authorization: ...\r\n" for a POST / with
  // the given host header value, X-Amz-Target value, content type and body. `now` is UTC epoch
  // seconds (passed in so tests can use the AWS documentation's fixed dates).
  void AppendAuthHeaders(std::string& out, std::string_view host, std::string_view target,
                         std::string_view content_type, std::string_view body, std::time_t now);

  // Lower-case hex of the derived signing key for `yyyymmdd`; exposed for the self-test.
  std::string SigningKeyHex(std::string_view yyyymmdd);

 private:
  void RefreshClock(std::time_t now);
  void DigestHex(std::string_view data, std::string& out);
  void SignWithCachedKey(std::string_view data, unsigned char out[32]);

  Credentials creds_;
  evp_md_st* sha256_ = nullptr;  // fetched once: implicit fetches cost a lock per digest in 3.x
  std::time_t cached_second_ = -1;
  char amz_date_[64] = {};  // yyyymmddThhmmssZ (sized for the compiler's worst case)
  std::string day_;         // yyyymmdd of the cached key
  unsigned char key_[32] = {};
  // HMAC with a fixed key is SHA-256 over (key^ipad | msg) then (key^opad | inner): the two
  // digests' states after absorbing the padded key are kept, so a signature costs two context
  // copies instead of OpenSSL's per-call HMAC set-up (a MAC fetch and allocations in 3.x).
  evp_md_ctx_st* inner_ = nullptr;
  evp_md_ctx_st* outer_ = nullptr;
  evp_md_ctx_st* work_ = nullptr;
  std::string scope_;       // yyyymmdd/region/service/aws4_request
  std::string canonical_;   // reused buffers
  std::string to_sign_;
};

std::string HexLower(const unsigned char* p, size_t n);

}  // namespace loadgen
