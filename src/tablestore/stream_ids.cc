#include "tablestore/stream_ids.h"

#include <charconv>

namespace ttlstore::tablestore {

std::string StreamIdText(std::string_view table_name, int64_t created_ms) {
  return std::string(table_name) + "_" + std::to_string(created_ms);
}

std::optional<StreamIdParts> ParseStreamId(std::string_view id) {
  size_t cut = id.rfind('_');
  if (cut == std::string_view::npos || cut == 0 || cut + 1 >= id.size()) return std::nullopt;
  std::string_view digits = id.substr(cut + 1);
  if (digits.size() > 19 || (digits.size() > 1 && digits[0] == '0')) return std::nullopt;
  int64_t ms = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), ms);
  if (ec != std::errc() || end != digits.data() + digits.size() || ms < 0) return std::nullopt;
  return StreamIdParts{std::string(id.substr(0, cut)), ms};
}

}  // namespace ttlstore::tablestore
