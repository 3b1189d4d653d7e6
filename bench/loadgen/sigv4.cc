#include "sigv4.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <cstdio>
#include <stdexcept>

namespace loadgen {

std::string HexLower(const unsigned char* p, size_t n) {
  static const char* kDigits = "0123456789abcdef";
  std::string s(n * 2, '0');
  for (size_t i = 0; i < n; ++i) {
    s[2 * i] = kDigits[p[i] >> 4];
    s[2 * i + 1] = kDigits[p[i] & 15];
  }
  return s;
}

namespace {

void Hmac(const EVP_MD* md, const unsigned char* key, size_t key_len, std::string_view data,
          unsigned char out[32]) {
  unsigned int len = 32;
  if (!HMAC(md, key, static_cast<int>(key_len), reinterpret_cast<const unsigned char*>(data.data()),
            data.size(), out, &len))
    throw std::runtime_error("HMAC-SHA256 failed");
}

void Check(int ok) {
  if (!ok) throw std::runtime_error("OpenSSL SHA-256 failed");
}

}  // namespace

SigV4Signer::SigV4Signer(Credentials creds) : creds_(std::move(creds)) {
  sha256_ = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  inner_ = EVP_MD_CTX_new();
  outer_ = EVP_MD_CTX_new();
  work_ = EVP_MD_CTX_new();
  if (!sha256_ || !inner_ || !outer_ || !work_) throw std::runtime_error("OpenSSL has no SHA256");
  canonical_.reserve(1024);
  to_sign_.reserve(256);
}

SigV4Signer::~SigV4Signer() {
  EVP_MD_CTX_free(inner_);
  EVP_MD_CTX_free(outer_);
  EVP_MD_CTX_free(work_);
  EVP_MD_free(sha256_);
}

void SigV4Signer::DigestHex(std::string_view data, std::string& out) {
  unsigned char digest[32];
  unsigned int len = 32;
  Check(EVP_DigestInit_ex(work_, sha256_, nullptr));
  Check(EVP_DigestUpdate(work_, data.data(), data.size()));
  Check(EVP_DigestFinal_ex(work_, digest, &len));
  out += HexLower(digest, 32);
}

void SigV4Signer::SignWithCachedKey(std::string_view data, unsigned char out[32]) {
  unsigned char inner[32];
  unsigned int len = 32;
  Check(EVP_MD_CTX_copy_ex(work_, inner_));
  Check(EVP_DigestUpdate(work_, data.data(), data.size()));
  Check(EVP_DigestFinal_ex(work_, inner, &len));
  Check(EVP_MD_CTX_copy_ex(work_, outer_));
  Check(EVP_DigestUpdate(work_, inner, 32));
  Check(EVP_DigestFinal_ex(work_, out, &len));
}

std::string SigV4Signer::SigningKeyHex(std::string_view yyyymmdd) {
  std::string k = "AWS4" + creds_.secret_key;
  unsigned char a[32], b[32];
  Hmac(sha256_, reinterpret_cast<const unsigned char*>(k.data()), k.size(), yyyymmdd, a);
  Hmac(sha256_, a, 32, creds_.region, b);
  Hmac(sha256_, b, 32, creds_.service, a);
  Hmac(sha256_, a, 32, "aws4_request", b);
  return HexLower(b, 32);
}

void SigV4Signer::RefreshClock(std::time_t now) {
  if (now == cached_second_) return;
  cached_second_ = now;
  std::tm tm{};
  gmtime_r(&now, &tm);
  std::snprintf(amz_date_, sizeof amz_date_, "%04d%02d%02dT%02d%02d%02dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
  std::string_view day(amz_date_, 8);
  if (day == day_) return;
  // New UTC day: derive the key chain once and keep it until the date changes again.
  day_.assign(day);
  std::string k = "AWS4" + creds_.secret_key;
  unsigned char a[32];
  Hmac(sha256_, reinterpret_cast<const unsigned char*>(k.data()), k.size(), day_, a);
  Hmac(sha256_, a, 32, creds_.region, key_);
  Hmac(sha256_, key_, 32, creds_.service, a);
  Hmac(sha256_, a, 32, "aws4_request", key_);
  scope_ = day_ + "/" + creds_.region + "/" + creds_.service + "/aws4_request";
  unsigned char ipad[64], opad[64];
  for (int i = 0; i < 64; ++i) {
    unsigned char k = i < 32 ? key_[i] : 0;
    ipad[i] = k ^ 0x36;
    opad[i] = k ^ 0x5c;
  }
  Check(EVP_DigestInit_ex(inner_, sha256_, nullptr));
  Check(EVP_DigestUpdate(inner_, ipad, 64));
  Check(EVP_DigestInit_ex(outer_, sha256_, nullptr));
  Check(EVP_DigestUpdate(outer_, opad, 64));
}

void SigV4Signer::AppendAuthHeaders(std::string& out, std::string_view host,
                                    std::string_view target, std::string_view content_type,
                                    std::string_view body, std::time_t now) {
  RefreshClock(now);
  std::string_view amz_date(amz_date_, 16);
  // Canonical request: method, path, empty query, sorted lower-case headers, signed header list,
  // hex SHA-256 of the payload.
  canonical_.clear();
  canonical_ += "POST\n/\n\ncontent-type:";
  canonical_ += content_type;
  canonical_ += "\nhost:";
  canonical_ += host;
  canonical_ += "\nx-amz-date:";
  canonical_ += amz_date;
  canonical_ += "\nx-amz-target:";
  canonical_ += target;
  canonical_ += "\n\ncontent-type;host;x-amz-date;x-amz-target\n";
  DigestHex(body, canonical_);

  to_sign_.clear();
  to_sign_ += "AWS4-HMAC-SHA256\n";
  to_sign_ += amz_date;
  to_sign_ += '\n';
  to_sign_ += scope_;
  to_sign_ += '\n';
  DigestHex(canonical_, to_sign_);

  unsigned char sig[32];
  SignWithCachedKey(to_sign_, sig);

  out += "X-Amz-Date: ";
  out += amz_date;
  out += "\r\nAuthorization: AWS4-HMAC-SHA256 Credential=";
  out += creds_.access_key;
  out += '/';
  out += scope_;
  out += ", SignedHeaders=content-type;host;x-amz-date;x-amz-target, Signature=";
  out += HexLower(sig, 32);
  out += "\r\n";
}

}  // namespace loadgen
