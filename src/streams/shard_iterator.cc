#include "streams/shard_iterator.h"

#include "common/coding.h"

namespace ttlstore::streams {
namespace {

constexpr char kHex[] = "0123456789abcdef";
constexpr size_t kPayloadBytes = 4 + 8 + 8 + 8;

}  // namespace

uint64_t Fnv64(std::string_view a, std::string_view b) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (std::string_view part : {a, b}) {
    for (char c : part) {
      h ^= static_cast<uint8_t>(c);
      h *= 0x100000001b3ull;
    }
  }
  return h;
}

std::string EncodeShardIterator(const ShardIterator& it) {
  std::string payload;
  PutFixed32BE(&payload, it.shard_no);
  PutFixed64BE(&payload, it.position);
  PutFixed64BE(&payload, static_cast<uint64_t>(it.issued_ms));
  PutFixed64BE(&payload, Fnv64(it.stream_arn, payload));
  std::string out = it.stream_arn + "|1|";
  for (unsigned char c : payload) {
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 15]);
  }
  return out;
}

std::optional<ShardIterator> DecodeShardIterator(const std::string& text) {
  size_t bar = text.rfind('|');
  if (bar == std::string::npos || bar < 2 || text.compare(bar - 2, 2, "|1") != 0 ||
      text.size() - bar - 1 != 2 * kPayloadBytes) {
    return std::nullopt;
  }
  std::string payload;
  for (size_t i = bar + 1; i < text.size(); i += 2) {
    auto digit = [](char c) {
      return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    };
    int hi = digit(text[i]), lo = digit(text[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    payload.push_back(static_cast<char>(hi << 4 | lo));
  }
  ShardIterator it;
  it.stream_arn = text.substr(0, bar - 2);
  std::string_view in = payload;
  std::string_view fields = in.substr(0, kPayloadBytes - 8);
  uint64_t issued = 0, check = 0;
  GetFixed32BE(&in, &it.shard_no);
  GetFixed64BE(&in, &it.position);
  GetFixed64BE(&in, &issued);
  GetFixed64BE(&in, &check);
  if (check != Fnv64(it.stream_arn, fields)) return std::nullopt;
  it.issued_ms = static_cast<int64_t>(issued);
  return it;
}

}  // namespace ttlstore::streams
