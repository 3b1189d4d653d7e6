#include "server/service_headers.h"

#include <zlib.h>

#include <chrono>
#include <ctime>
#include <random>

namespace ttlstore::server {

// 12 base-36 digits from each 64-bit draw (36^12 < 2^64), so five draws instead of 52.
void AppendRequestId(std::string* out) {
  static constexpr char kChars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  static constexpr size_t kLength = 52;
  thread_local std::mt19937_64 rng{std::random_device{}()};
  // Written in place (one resize, not 52 push_backs): 12 characters from each 64-bit draw.
  size_t at = out->size();
  out->resize(at + kLength);
  char* p = out->data() + at;
  for (size_t left = kLength; left > 0;) {
    uint64_t r = rng();
    for (int i = 0; i < 12 && left > 0; ++i, --left) {
      *p++ = kChars[r % 36];
      r /= 36;
    }
  }
}

uint32_t Crc32(std::string_view s) {
  return static_cast<uint32_t>(::crc32(0L, reinterpret_cast<const Bytef*>(s.data()),
                                       static_cast<uInt>(s.size())));
}

std::string FormatHttpDate(int64_t epoch_seconds) {
  static constexpr const char* kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static constexpr const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                            "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  std::time_t t = static_cast<std::time_t>(epoch_seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[40];
  int n = std::snprintf(buf, sizeof buf, "%s, %02d %s %04d %02d:%02d:%02d GMT", kDays[tm.tm_wday],
                        tm.tm_mday, kMonths[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min,
                        tm.tm_sec);
  return std::string(buf, n > 0 ? static_cast<size_t>(n) : 0);
}

void AppendHttpDate(std::string* out) {
  thread_local int64_t cached_second = -1;
  thread_local std::string cached;
  int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                    std::chrono::system_clock::now().time_since_epoch())
                    .count();
  if (now != cached_second) {
    cached = FormatHttpDate(now);
    cached_second = now;
  }
  out->append(cached);
}

namespace {

// A request header's value echoed in a response header must not end the line early.
bool SafeToEcho(std::string_view value) {
  for (char c : value) {
    if (c == '\r' || c == '\n' || c == '\0') return false;
  }
  return true;
}

void AppendLine(std::string_view name, std::string_view value, std::string* out) {
  out->append(name);
  out->append(": ");
  out->append(value);
  out->append("\r\n");
}

}  // namespace

void AppendCorsHeaders(const CorsRequest& request, bool preflight, std::string* out) {
  if (request.origin.empty()) return;
  AppendLine("Access-Control-Allow-Origin", "*", out);
  if (preflight) {
    if (!request.request_headers.empty() && SafeToEcho(request.request_headers)) {
      AppendLine("Access-Control-Allow-Headers", request.request_headers, out);
    }
    if (!request.request_method.empty() && SafeToEcho(request.request_method)) {
      AppendLine("Access-Control-Allow-Methods", request.request_method, out);
    }
  }
  AppendLine("Access-Control-Expose-Headers", kCorsExposeHeaders, out);
  if (preflight) AppendLine("Access-Control-Max-Age", std::to_string(kCorsMaxAgeSeconds), out);
}

}  // namespace ttlstore::server
