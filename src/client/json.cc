#include "client/json.h"

// Boost.JSON as a header-only library: its implementation is compiled into this one file.
#include <boost/json/src.hpp>

namespace ttlstore::client {

Result<boost::json::value> ParseJson(std::string_view text) {
  if (text.size() > kMaxJsonBytes) {
    return Error(ErrorCode::kSerialization, "response of " + std::to_string(text.size()) +
                                                " bytes is larger than the client accepts");
  }
  boost::json::parse_options options;
  options.max_depth = kMaxJsonDepth;
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(text, ec, {}, options);
  if (ec) return Error(ErrorCode::kSerialization, "response is not valid JSON: " + ec.message());
  return v;
}

const boost::json::value* Member(const boost::json::value& v, std::string_view key) {
  const auto* obj = v.if_object();
  if (!obj) return nullptr;
  return obj->if_contains(key);
}

std::string StringMember(const boost::json::value& v, std::string_view key) {
  const auto* m = Member(v, key);
  if (!m || !m->is_string()) return "";
  return std::string(m->as_string());
}

}  // namespace ttlstore::client
