#include "streams/stream_names.h"

#include <time.h>

#include <cstdio>

namespace ttlstore::streams {
namespace {

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

}  // namespace

std::string StreamLabel(int64_t ms) {
  time_t secs = static_cast<time_t>(ms / 1000);
  struct tm tm;
  gmtime_r(&secs, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03d", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(ms % 1000));
  return buf;
}

std::optional<int64_t> ParseStreamLabel(std::string_view label) {
  // YYYY-MM-DDTHH:MM:SS.mmm
  if (label.size() != 23) return std::nullopt;
  const char* pattern = "dddd-dd-ddTdd:dd:dd.ddd";
  for (size_t i = 0; i < label.size(); ++i) {
    if (pattern[i] == 'd' ? (label[i] < '0' || label[i] > '9') : label[i] != pattern[i]) {
      return std::nullopt;
    }
  }
  auto num = [&](size_t pos, size_t len) {
    int v = 0;
    for (size_t i = 0; i < len; ++i) v = v * 10 + (label[pos + i] - '0');
    return v;
  };
  struct tm tm = {};
  tm.tm_year = num(0, 4) - 1900;
  tm.tm_mon = num(5, 2) - 1;
  tm.tm_mday = num(8, 2);
  tm.tm_hour = num(11, 2);
  tm.tm_min = num(14, 2);
  tm.tm_sec = num(17, 2);
  int64_t ms = static_cast<int64_t>(timegm(&tm)) * 1000 + num(20, 3);
  if (StreamLabel(ms) != label) return std::nullopt;  // e.g. month 13
  return ms;
}

std::string SequenceNumberText(uint64_t seq) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%021llu", static_cast<unsigned long long>(seq));
  return buf;
}

std::optional<uint64_t> ParseSequenceNumber(std::string_view text) {
  if (text.size() > 40 || !AllDigits(text)) return std::nullopt;
  size_t i = 0;
  while (i + 1 < text.size() && text[i] == '0') ++i;
  text.remove_prefix(i);
  if (text.size() > 20) return std::nullopt;
  uint64_t v = 0;
  for (char c : text) {
    uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10) return std::nullopt;
    v = v * 10 + d;
  }
  return v;
}

std::string ShardIdText(int64_t stream_created_ms, uint32_t shard_no) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "shardId-%020lld-%08x", static_cast<long long>(stream_created_ms),
                shard_no);
  return buf;
}

std::optional<uint32_t> ParseShardId(std::string_view text, int64_t stream_created_ms) {
  std::string prefix = ShardIdText(stream_created_ms, 0);
  prefix.resize(prefix.size() - 8);
  if (text.size() != prefix.size() + 8 || text.substr(0, prefix.size()) != prefix) {
    return std::nullopt;
  }
  uint32_t v = 0;
  for (char c : text.substr(prefix.size())) {
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (d < 0) return std::nullopt;
    v = v << 4 | static_cast<uint32_t>(d);
  }
  return v;
}

}  // namespace ttlstore::streams
