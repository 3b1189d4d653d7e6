#include "auth/sigv4.h"
#include "common/ascii.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <cctype>
#include <ctime>
#include <map>
#include <set>

namespace ttlstore::auth {
namespace {

constexpr std::string_view kAlgorithm = "AWS4-HMAC-SHA256";
constexpr std::string_view kUnsignedPayload = "UNSIGNED-PAYLOAD";
constexpr int64_t kMaxSkewMs = 15 * 60 * 1000;

Error Unrecognized() {
  return {ErrorCode::kUnrecognizedClient, "The security token included in the request is invalid."};
}
Error BadSignature() {
  return {ErrorCode::kInvalidSignature,
          "The request signature we calculated does not match the signature you provided. Check "
          "your AWS Secret Access Key and signing method. Consult the service documentation for "
          "details."};
}
Error Incomplete(std::string m) { return {ErrorCode::kIncompleteSignature, std::move(m)}; }

// Trims and collapses runs of whitespace to one space (SigV4's Trimall).
std::string TrimAll(std::string_view v) {
  std::string out;
  bool space = false;
  for (char c : v) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = !out.empty();
      continue;
    }
    if (space) out.push_back(' ');
    space = false;
    out.push_back(c);
  }
  return out;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string UriDecode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && HexValue(s[i + 1]) >= 0 && HexValue(s[i + 2]) >= 0) {
      out.push_back(static_cast<char>(HexValue(s[i + 1]) * 16 + HexValue(s[i + 2])));
      i += 2;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

// Percent-encodes all but unreserved characters (and '/' when `keep_slash`), uppercase hex.
std::string UriEncode(std::string_view s, bool keep_slash) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || (keep_slash && c == '/')) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

using Params = std::vector<std::pair<std::string, std::string>>;  // decoded

Params ParseQuery(std::string_view query) {
  Params out;
  while (!query.empty()) {
    size_t amp = query.find('&');
    std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (pair.empty()) continue;
    size_t eq = pair.find('=');
    out.emplace_back(UriDecode(pair.substr(0, eq)),
                     eq == std::string_view::npos ? "" : UriDecode(pair.substr(eq + 1)));
  }
  return out;
}

const std::string* FindParam(const Params& params, std::string_view name) {
  for (const auto& [k, v] : params) {
    if (k == name) return &v;
  }
  return nullptr;
}

std::string HeaderValue(const HeaderPairs& headers, std::string_view lower_name) {
  std::string joined;
  bool found = false;
  for (const auto& [name, value] : headers) {
    if (!AsciiEqualsLower(name, lower_name)) continue;
    if (found) joined += ',';
    joined += TrimAll(value);
    found = true;
  }
  return joined;
}

// Every header by lower-case name, the values of a repeated header joined as HeaderValue joins
// them: built once per request, so looking up each signed header costs a map lookup rather than
// a pass over all headers (a request may carry thousands of both).
std::map<std::string, std::string, std::less<>> ValuesByName(const HeaderPairs& headers) {
  std::map<std::string, std::string, std::less<>> out;
  for (const auto& [name, value] : headers) {
    auto [it, fresh] = out.try_emplace(AsciiLower(name));
    if (!fresh) it->second += ',';
    it->second += TrimAll(value);
  }
  return out;
}

// Epoch ms of "YYYYMMDDTHHMMSSZ", or -1.
int64_t ParseAmzDate(std::string_view d) {
  if (d.size() != 16 || d[8] != 'T' || d[15] != 'Z') return -1;
  for (size_t i = 0; i < 15; ++i) {
    if (i != 8 && !std::isdigit(static_cast<unsigned char>(d[i]))) return -1;
  }
  auto num = [&](size_t pos, size_t n) { return std::stoi(std::string(d.substr(pos, n))); };
  std::tm tm{};
  tm.tm_year = num(0, 4) - 1900;
  tm.tm_mon = num(4, 2) - 1;
  tm.tm_mday = num(6, 2);
  tm.tm_hour = num(9, 2);
  tm.tm_min = num(11, 2);
  tm.tm_sec = num(13, 2);
  if (tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 || tm.tm_min > 59 ||
      tm.tm_sec > 60) {
    return -1;
  }
  return int64_t{timegm(&tm)} * 1000;
}

}  // namespace

std::string FormatAmzDate(int64_t ms) {
  std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[20];
  std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm);
  return buf;
}

namespace {

std::vector<std::string> Split(std::string_view s, char sep) {
  std::vector<std::string> out;
  while (true) {
    size_t p = s.find(sep);
    out.emplace_back(s.substr(0, p));
    if (p == std::string_view::npos) return out;
    s.remove_prefix(p + 1);
  }
}

// What the header or query form carries.
struct Authorization {
  std::string credential;  // AKID/date/region/service/aws4_request
  std::vector<std::string> signed_headers;
  std::string signature;
  std::string amz_date;
  int64_t expires_s = -1;  // presigned only
  bool presigned = false;
};

Result<Authorization> FromHeader(std::string_view header, const HeaderPairs& headers) {
  Authorization a;
  std::string_view rest = header;
  if (!rest.starts_with(kAlgorithm) ||
      (rest.size() > kAlgorithm.size() && rest[kAlgorithm.size()] != ' ')) {
    size_t sp = rest.find(' ');
    return Incomplete("Unsupported AWS 'algorithm': '" + std::string(rest.substr(0, sp)) + "'");
  }
  rest.remove_prefix(kAlgorithm.size());
  bool have_credential = false, have_signed = false, have_signature = false;
  for (std::string part : Split(rest, ',')) {
    std::string p = TrimAll(part);
    if (p.starts_with("Credential=")) {
      a.credential = p.substr(11);
      have_credential = true;
    } else if (p.starts_with("SignedHeaders=")) {
      a.signed_headers = Split(p.substr(14), ';');
      have_signed = true;
    } else if (p.starts_with("Signature=")) {
      a.signature = p.substr(10);
      have_signature = true;
    }
  }
  std::string missing;
  if (!have_credential) missing += "Authorization header requires 'Credential' parameter. ";
  if (!have_signature) missing += "Authorization header requires 'Signature' parameter. ";
  if (!have_signed) missing += "Authorization header requires 'SignedHeaders' parameter. ";
  if (!missing.empty()) return Incomplete(missing + "Authorization=" + std::string(header));
  a.amz_date = HeaderValue(headers, "x-amz-date");
  if (a.amz_date.empty()) {
    return Incomplete(
        "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. "
        "Authorization=" + std::string(header));
  }
  return a;
}

Result<Authorization> FromQuery(const Params& params) {
  Authorization a;
  a.presigned = true;
  const std::string* alg = FindParam(params, "X-Amz-Algorithm");
  if (*alg != kAlgorithm) return Incomplete("Unsupported AWS 'algorithm': '" + *alg + "'");
  static constexpr const char* kRequired[] = {"X-Amz-Credential", "X-Amz-Date",
                                              "X-Amz-SignedHeaders", "X-Amz-Signature"};
  for (const char* name : kRequired) {
    if (!FindParam(params, name)) {
      return Incomplete(std::string("AWS query-string parameters must include '") + name +
                        "'. Re-examine the query-string parameters.");
    }
  }
  a.credential = *FindParam(params, "X-Amz-Credential");
  a.amz_date = *FindParam(params, "X-Amz-Date");
  a.signed_headers = Split(*FindParam(params, "X-Amz-SignedHeaders"), ';');
  a.signature = *FindParam(params, "X-Amz-Signature");
  if (const std::string* e = FindParam(params, "X-Amz-Expires")) {
    char* end = nullptr;
    long long v = std::strtoll(e->c_str(), &end, 10);
    if (e->empty() || *end != '\0' || v < 0) {
      return Incomplete("X-Amz-Expires must be non-negative");
    }
    // The service's bound; it also keeps expires * 1000 from overflowing (found by fuzzing).
    if (v > 604800) {
      return Incomplete("X-Amz-Expires must be less than a week (in seconds) that is 604800");
    }
    a.expires_s = v;
  }
  return a;
}

}  // namespace

std::string Hex(std::string_view bytes) {
  static const char* kHex = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 15]);
  }
  return out;
}

std::string Sha256Hex(std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), digest, &len, EVP_sha256(), nullptr);
  return Hex(std::string_view(reinterpret_cast<char*>(digest), len));
}

std::string HmacSha256(std::string_view key, std::string_view data) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), mac, &len);
  return std::string(reinterpret_cast<char*>(mac), len);
}

std::string DeriveSigningKey(std::string_view secret, std::string_view date,
                             std::string_view region, std::string_view service) {
  std::string k = HmacSha256("AWS4" + std::string(secret), date);
  k = HmacSha256(k, region);
  k = HmacSha256(k, service);
  return HmacSha256(k, "aws4_request");
}

std::string SigV4Verifier::CanonicalRequest(const SignedRequest& r,
                                            const std::vector<std::string>& signed_headers,
                                            std::string_view payload_hash, bool presigned) {
  std::string_view target = r.target;
  size_t q = target.find('?');
  std::string_view path = target.substr(0, q);
  std::string_view query = q == std::string_view::npos ? "" : target.substr(q + 1);
  std::string out(r.method);
  out += '\n';
  out += path.empty() ? "/" : UriEncode(UriDecode(path), true);
  out += '\n';
  std::vector<std::pair<std::string, std::string>> encoded;
  for (const auto& [k, v] : ParseQuery(query)) {
    if (presigned && k == "X-Amz-Signature") continue;
    encoded.emplace_back(UriEncode(k, false), UriEncode(v, false));
  }
  std::sort(encoded.begin(), encoded.end());
  for (size_t i = 0; i < encoded.size(); ++i) {
    if (i) out += '&';
    out += encoded[i].first;
    out += '=';
    out += encoded[i].second;
  }
  out += '\n';
  auto values = ValuesByName(r.headers);
  for (const auto& name : signed_headers) {
    out += name;
    out += ':';
    if (auto it = values.find(name); it != values.end()) out += it->second;
    out += '\n';
  }
  out += '\n';
  for (size_t i = 0; i < signed_headers.size(); ++i) {
    if (i) out += ';';
    out += signed_headers[i];
  }
  out += '\n';
  out += payload_hash;
  return out;
}

std::string SigV4Verifier::SigningKey(const std::string& secret, std::string_view date,
                                      std::string_view region, std::string_view service) const {
  std::string cache_key = secret;
  cache_key += '\0';
  cache_key += date;
  cache_key += '\0';
  cache_key += region;
  cache_key += '\0';
  cache_key += service;
  {
    std::lock_guard lock(cache_mu_);
    auto it = key_cache_.find(cache_key);
    if (it != key_cache_.end()) return it->second;
  }
  std::string k = DeriveSigningKey(secret, date, region, service);
  std::lock_guard lock(cache_mu_);
  // A few keys per access key and day; start afresh rather than grow without bound.
  if (key_cache_.size() > 4096) key_cache_.clear();
  key_cache_.emplace(std::move(cache_key), k);
  return k;
}

Status SigV4Verifier::Verify(const SignedRequest& r, int64_t now_ms,
                             std::string* access_key_id) const {
  std::string_view target = r.target;
  size_t q = target.find('?');
  Params params = ParseQuery(q == std::string_view::npos ? "" : target.substr(q + 1));
  std::string header = HeaderValue(r.headers, "authorization");
  Result<Authorization> parsed = Error::Internal("");
  if (!header.empty()) {
    parsed = FromHeader(header, r.headers);
  } else if (FindParam(params, "X-Amz-Algorithm")) {
    parsed = FromQuery(params);
  } else {
    return Error(ErrorCode::kMissingAuthenticationToken, "Request is missing Authentication Token");
  }
  if (!parsed) return parsed.error();
  const Authorization& a = *parsed;

  std::vector<std::string> scope = Split(a.credential, '/');
  if (scope.size() != 5 || scope[4] != "aws4_request") {
    return Incomplete("Credential should be scoped to a valid region. ");
  }
  const std::string* secret = credentials_.SecretFor(scope[0]);
  if (!secret) return Unrecognized();
  if (access_key_id) *access_key_id = scope[0];

  int64_t signed_ms = ParseAmzDate(a.amz_date);
  if (signed_ms < 0) {
    return Incomplete("Date must be in ISO-8601 'basic format'. Got '" + a.amz_date +
                      "'. See http://en.wikipedia.org/wiki/ISO_8601");
  }
  if (a.amz_date.substr(0, 8) != scope[1]) {
    return Error(ErrorCode::kInvalidSignature,
                 "Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date "
                 "from HTTP: '" + scope[1] + "' != '" + a.amz_date.substr(0, 8) +
                     "', from '" + a.amz_date + "'.");
  }
  if (a.presigned && a.expires_s >= 0 && now_ms > signed_ms + a.expires_s * 1000) {
    return Error(ErrorCode::kInvalidSignature,
                 "Signature expired: " + a.amz_date + " is now earlier than " +
                     FormatAmzDate(now_ms - a.expires_s * 1000) + " (" + FormatAmzDate(now_ms) +
                     " - " + std::to_string(a.expires_s) + " sec.)");
  }
  if (!a.presigned && signed_ms < now_ms - kMaxSkewMs) {
    return Error(ErrorCode::kInvalidSignature,
                 "Signature expired: " + a.amz_date + " is now earlier than " +
                     FormatAmzDate(now_ms - kMaxSkewMs) + " (" + FormatAmzDate(now_ms) +
                     " - 15 min.)");
  }
  if (signed_ms > now_ms + kMaxSkewMs) {
    return Error(ErrorCode::kInvalidSignature,
                 "Signature not yet current: " + a.amz_date + " is still later than " +
                     FormatAmzDate(now_ms + kMaxSkewMs) + " (" + FormatAmzDate(now_ms) +
                     " + 15 min.)");
  }

  // Each signed header must be present, and named once: a name listed twice would put its
  // value into the canonical request twice, and a list of thousands of repeats of a long header
  // would make that string hundreds of megabytes (no client signs so; the signature cannot
  // match).
  std::vector<std::string> signed_headers;
  auto present = ValuesByName(r.headers);
  std::set<std::string_view> seen;
  for (const auto& h : a.signed_headers) {
    std::string name = AsciiLower(h);
    if (!present.contains(name)) return BadSignature();
    signed_headers.push_back(std::move(name));
  }
  for (const auto& name : signed_headers) {
    if (!seen.insert(name).second) return BadSignature();
  }
  std::string key = SigningKey(*secret, scope[1], scope[2], scope[3]);
  std::string scope_str = scope[1] + "/" + scope[2] + "/" + scope[3] + "/aws4_request";
  auto matches = [&](std::string_view payload_hash) {
    std::string canonical = CanonicalRequest(r, signed_headers, payload_hash, a.presigned);
    std::string to_sign = std::string(kAlgorithm) + "\n" + a.amz_date + "\n" + scope_str + "\n" +
                          Sha256Hex(canonical);
    std::string expected = Hex(HmacSha256(key, to_sign));
    // Constant-time comparison: the signature is a secret-derived value.
    return expected.size() == a.signature.size() &&
           CRYPTO_memcmp(expected.data(), a.signature.data(), expected.size()) == 0;
  };
  std::string declared = HeaderValue(r.headers, "x-amz-content-sha256");
  if (declared == kUnsignedPayload) return matches(kUnsignedPayload) ? Status::Ok() : BadSignature();
  if (matches(Sha256Hex(r.body))) return Status::Ok();
  if (a.presigned && matches(kUnsignedPayload)) return Status::Ok();
  return BadSignature();
}

}  // namespace ttlstore::auth
