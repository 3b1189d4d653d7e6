#include "tablestore/signing.h"
#include "common/ascii.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/md5.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <sstream>

namespace ttlstore::tablestore {
namespace {

std::string Base64(const unsigned char* data, size_t n) {
  std::string out(4 * ((n + 2) / 3), '\0');
  int len = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), data,
                            static_cast<int>(n));
  out.resize(static_cast<size_t>(len));
  return out;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// The x-ots-* headers but `except`, as sorted "name:value" pairs.
std::vector<std::pair<std::string, std::string>> OtsHeaders(const Headers& headers,
                                                            std::string_view except) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [name, value] : headers) {
    std::string lower = AsciiLower(name);
    if (!lower.starts_with("x-ots-") || lower == except) continue;
    out.emplace_back(std::move(lower), std::string(Trim(value)));
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The first header named `lower_name` in any case (no copy per header: a request may carry
// thousands).
const std::string* Find(const Headers& headers, std::string_view lower_name) {
  for (const auto& [name, value] : headers) {
    if (AsciiEqualsLower(name, lower_name)) return &value;
  }
  return nullptr;
}

OtsError AuthFailed(std::string message) { return {403, "OTSAuthFailed", std::move(message)}; }

// A V4 signing date, yyyyMMdd in UTC, within a day of the server's date (the SDKs derive a new
// key when their UTC date changes; a day's slack covers clocks on either side of midnight).
bool SignDateNear(std::string_view date, int64_t now_ms) {
  if (date.size() != 8) return false;
  for (char c : date) {
    if (c < '0' || c > '9') return false;
  }
  auto day_of = [](int64_t ms) {
    std::time_t secs = static_cast<std::time_t>(ms / 1000);
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char buf[16];
    std::snprintf(buf, sizeof buf, "%04d%02d%02d", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday);
    return std::string(buf);
  };
  constexpr int64_t kDayMs = 24 * 3600 * 1000;
  return date == day_of(now_ms) || date == day_of(now_ms - kDayMs) ||
         date == day_of(now_ms + kDayMs);
}

}  // namespace

std::string ContentMd5(std::string_view body) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(body.data(), body.size(), digest, &len, EVP_md5(), nullptr);
  return Base64(digest, len);
}

namespace {

// The raw HMAC-SHA256 of `message` under `key`.
std::string HmacSha256(std::string_view key, std::string_view message) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(message.data()), message.size(), mac, &len);
  return std::string(reinterpret_cast<const char*>(mac), len);
}

}  // namespace

std::string V4SigningKey(std::string_view secret, std::string_view sign_date,
                         std::string_view region) {
  std::string key = HmacSha256("aliyun_v4" + std::string(secret), sign_date);
  key = HmacSha256(key, region);
  key = HmacSha256(key, "ots");
  key = HmacSha256(key, "aliyun_v4_request");
  return Base64(reinterpret_cast<const unsigned char*>(key.data()), key.size());
}

std::string HmacSha1Base64(std::string_view key, std::string_view message) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha1(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(message.data()), message.size(), mac, &len);
  return Base64(mac, len);
}

std::string RequestStringToSign(std::string_view action, const Headers& headers,
                                std::string_view signature_header) {
  std::string s = "/";
  s += action;
  s += "\nPOST\n\n";
  for (const auto& [name, value] : OtsHeaders(headers, signature_header)) {
    s += name;
    s += ':';
    s += value;
    s += '\n';
  }
  return s;
}

std::string ResponseStringToSign(std::string_view action, const Headers& headers) {
  std::string s;
  for (const auto& [name, value] : OtsHeaders(headers, "")) {
    s += name;
    s += ':';
    s += value;
    s += '\n';
  }
  s += '/';
  s += action;
  return s;
}

std::string ResponseAuthorization(const std::string& access_key_id, const std::string& secret,
                                  const std::string& action, const Headers& headers) {
  return "OTS " + access_key_id + ":" +
         HmacSha1Base64(secret, ResponseStringToSign(action, headers));
}

Result<int64_t> ParseOtsDate(std::string_view date) {
  // Digits only, read by hand: no copy of a header that may be kilobytes long, and none of
  // sscanf's leniency (signs, spaces) about what a field may hold.
  auto invalid = [&] {
    return Error::Validation("Invalid date format: " + EchoForError(date) + ".");
  };
  auto number = [&](size_t pos, size_t len, int* out) {
    if (pos + len > date.size()) return false;
    int v = 0;
    for (size_t i = pos; i < pos + len; ++i) {
      if (date[i] < '0' || date[i] > '9') return false;
      v = v * 10 + (date[i] - '0');
    }
    *out = v;
    return true;
  };
  int y, mo, d, h, mi, s;
  if (date.size() < 20 || !number(0, 4, &y) || date[4] != '-' || !number(5, 2, &mo) ||
      date[7] != '-' || !number(8, 2, &d) || date[10] != 'T' || !number(11, 2, &h) ||
      date[13] != ':' || !number(14, 2, &mi) || date[16] != ':' || !number(17, 2, &s)) {
    return invalid();
  }
  std::string_view rest = date.substr(19);
  if (rest.front() == '.') {
    rest.remove_prefix(1);
    while (!rest.empty() && rest.front() >= '0' && rest.front() <= '9') rest.remove_prefix(1);
  }
  static constexpr int kDaysInMonth[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (rest != "Z" || mo < 1 || mo > 12 || d < 1 || d > kDaysInMonth[mo - 1] || h > 23 ||
      mi > 59 || s > 60) {
    return invalid();
  }
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = s;
  return int64_t{timegm(&tm)} * 1000;
}

std::string FormatOtsDate(int64_t ms) {
  std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[40];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(ms % 1000) * 1000);
  return buf;
}

std::optional<OtsError> VerifyRequest(const Credentials* credentials, std::string_view action,
                                      const Headers& headers, std::string_view body,
                                      int64_t now_ms, std::string* secret) {
  secret->clear();
  static constexpr const char* kRequired[] = {"x-ots-date", "x-ots-apiversion",
                                              "x-ots-accesskeyid", "x-ots-contentmd5"};
  for (const char* name : kRequired) {
    if (!Find(headers, name)) return OtsError{400, "OTSParameterInvalid",
                                              std::string("Missing header: ") + name + "."};
  }
  // The V4 signature (the Java and Python SDKs with a region credential) is sent instead of
  // the V2 one, with the date and region its key is derived from.
  const std::string* signature_v4 = Find(headers, "x-ots-signaturev4");
  const std::string* sign_date = Find(headers, "x-ots-signdate");
  const std::string* sign_region = Find(headers, "x-ots-signregion");
  const std::string* signature = Find(headers, "x-ots-signature");
  if (signature_v4) {
    if (!sign_date) return OtsError{400, "OTSParameterInvalid", "Missing header: x-ots-signdate."};
    if (!sign_region) {
      return OtsError{400, "OTSParameterInvalid", "Missing header: x-ots-signregion."};
    }
  } else if (credentials && !signature) {
    return OtsError{400, "OTSParameterInvalid", "Missing header: x-ots-signature."};
  }
  const std::string& key_id = *Find(headers, "x-ots-accesskeyid");
  if (credentials) {
    const std::string* known = credentials->SecretFor(Trim(key_id));
    if (!known) return AuthFailed("The AccessKeyID does not exist.");
    *secret = *known;
  }
  std::string_view date_header = Trim(*Find(headers, "x-ots-date"));
  auto date = ParseOtsDate(date_header);
  if (!date) return OtsError{400, "OTSParameterInvalid", date.error().message()};
  if (*date > now_ms + kMaxClockSkewMs || *date < now_ms - kMaxClockSkewMs) {
    // The service's message names the date (its error-code page).
    return AuthFailed("Mismatch between system time and x-ots-date: " +
                      EchoForError(date_header) + ".");
  }
  if (signature_v4 && !SignDateNear(Trim(*sign_date), now_ms)) {
    return OtsError{400, "OTSParameterInvalid",
                    "Invalid x-ots-signdate: " + EchoForError(Trim(*sign_date)) + "."};
  }
  if (Trim(*Find(headers, "x-ots-contentmd5")) != ContentMd5(body)) {
    return AuthFailed("Mismatch between MD5 value of request body and x-ots-contentmd5 in header.");
  }
  if (!credentials) return std::nullopt;
  if (signature_v4) {
    // The derived key signs the request with HMAC-SHA256 (salted "ots") and, in place of the
    // secret, the response (the Java SDK's V4SignatureMaker, V4Credentials).
    *secret = V4SigningKey(*secret, Trim(*sign_date), Trim(*sign_region));
    std::string mac = HmacSha256(*secret, RequestStringToSign(action, headers, "x-ots-signaturev4") +
                                              "ots");
    std::string expected =
        Base64(reinterpret_cast<const unsigned char*>(mac.data()), mac.size());
    if (expected != Trim(*signature_v4)) return AuthFailed("Signature mismatch.");
    return std::nullopt;
  }
  if (HmacSha1Base64(*secret, RequestStringToSign(action, headers, "x-ots-signature")) !=
      Trim(*signature)) {
    return AuthFailed("Signature mismatch.");
  }
  return std::nullopt;
}

}  // namespace ttlstore::tablestore
