// ASCII case folding for names the protocols compare case-insensitively (IAM action names and
// condition keys, header names). Bytes outside A-Z are kept as they are.
#pragma once

#include <string>
#include <string_view>

namespace ttlstore {

inline char AsciiLowerChar(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

inline std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = AsciiLowerChar(c);
  return out;
}

// `s` equals `lower` (already lower case) but for the case of A-Z; no copy.
inline bool AsciiEqualsLower(std::string_view s, std::string_view lower) {
  if (s.size() != lower.size()) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (AsciiLowerChar(s[i]) != lower[i]) return false;
  }
  return true;
}

}  // namespace ttlstore
