// Strict base64 (RFC 4648, with padding), the wire form of DynamoDB B / BS values.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ttlstore {

std::string Base64Encode(std::string_view bytes);
// nullopt for anything that is not canonical padded base64.
std::optional<std::string> Base64Decode(std::string_view text);

}  // namespace ttlstore
