// The next_token of a Search page and of a ParallelScan page (docs/formats.md, "Search
// tokens"): opaque bytes to the client, checked on the way back in so that a malformed or
// altered token is a validation error, never a crash or a wrong page.
//
//   token = 'S' . kind (1) . index id (4 BE) . sort fingerprint (8 BE) . payload . check (8)
//   kind 'K': payload = varint length . the sort (search/sort_keys.h EncodeSort) . the sort key
//             of the last hit (Search by fields / primary key: the next page is every match
//             whose key is greater)
//   kind 'O': payload = varint length . the sort . the offset of the next page (8 BE; Search
//             sorted by score)
//   kind 'P': payload = parallel id (4 BE) . max parallel (4 BE) . last docid (4 BE) . expiry
//             (ms, 8 BE: the page's time + alive_time) . session id (ParallelScan; fingerprint 0)
//   check = the first 8 bytes of SHA-256("ttlstore search token" . everything before)
// Kinds 'k', 'o' and 'p' (before issue 31: no sort inside, no expiry) are no longer accepted.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ttlstore::search {

inline constexpr size_t kMaxTokenBytes = 64 * 1024;
inline constexpr char kTokenErrorText[] = "invalid next_token";

struct Token {
  char kind = 'K';
  uint32_t index_id = 0;
  uint64_t fingerprint = 0;
  std::string payload;
};

std::string EncodeToken(const Token& t);
// nullopt when the bytes are not a token this code wrote (or were altered).
std::optional<Token> DecodeToken(std::string_view bytes);

}  // namespace ttlstore::search
