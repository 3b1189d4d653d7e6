// ASCII case folding for names the protocols compare case-insensitively (IAM action names and
// condition keys, header names). Bytes outside A-Z are kept as they are.
#pragma once

#include <string>
#include <string_view>

namespace ttlstore {

inline std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

}  // namespace ttlstore
