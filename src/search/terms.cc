#include "search/terms.h"

#include <openssl/sha.h>

#include "common/coding.h"

namespace ttlstore::search {

std::string KeyTrieTerm(std::string_view key, uint64_t value, int level) {
  int shift = level * kTrieStep;
  uint64_t v = shift >= 64 ? 0 : (value >> shift);
  int bytes = (64 - shift + 7) / 8;
  std::string all = KeyBytes(v);
  return KeyPrefix('N', key) + static_cast<char>('a' + level) + all.substr(8 - bytes);
}

std::string UniqueTerm(std::string_view row_key) {
  if (row_key.size() <= kMaxRawIdBytes) return "Q" + std::string(row_key);
  // Long keys: their first bytes and a SHA-256 of the whole (Xapian's term length limit).
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(row_key.data()), row_key.size(), digest);
  return "Q" + std::string(row_key.substr(0, 150)) + "#" +
         std::string(reinterpret_cast<const char*>(digest), 24);
}

std::string MinuteTerm(int64_t timestamp_ms) {
  return "T" + KeyBytes(LongKey(MinuteOf(timestamp_ms)));
}

int ShardOf(std::string_view row_key) {
  uint32_t h = 2166136261u;
  for (unsigned char c : row_key) { h ^= c; h *= 16777619u; }
  return static_cast<int>(h % kShards);
}

std::string EncodeArraySlot(const std::vector<std::string>& forms) {
  std::string out;
  for (const auto& f : forms) PutLengthPrefixed(&out, f);
  return out;
}

bool DecodeArraySlot(std::string_view slot, std::vector<std::string_view>* forms) {
  forms->clear();
  while (!slot.empty()) {
    std::string_view f;
    if (!GetLengthPrefixed(&slot, &f)) return false;
    forms->push_back(f);
  }
  return true;
}

}  // namespace ttlstore::search
