// Bounded JSON for the client side: responses of a remote endpoint are untrusted bytes, so
// parsing caps their size and nesting depth (Boost.JSON; RapidJSON stays api/'s). DynamoDB's
// own nesting limit is 32 levels of attribute values, each two JSON levels deep, inside a
// response envelope a few levels deep: kMaxJsonDepth leaves room for all of that.
#pragma once

#include <boost/json/value.hpp>
#include <string>
#include <string_view>

#include "common/result.h"

namespace ttlstore::client {

inline constexpr size_t kMaxJsonDepth = 100;
inline constexpr size_t kMaxJsonBytes = 64 << 20;

// The parsed document, or a kSerialization error naming what was wrong.
Result<boost::json::value> ParseJson(std::string_view text);

// Member `key` of `v` if `v` is an object holding it, else null.
const boost::json::value* Member(const boost::json::value& v, std::string_view key);
// Member `key` as a string, or "" when absent or not a string.
std::string StringMember(const boost::json::value& v, std::string_view key);

}  // namespace ttlstore::client
