// A Query (search/query.h) as bytes and back, for what a next_token must carry of its first
// page's request: the nested_filter of a nested sort (sort_keys.h). Tokens are opaque to
// clients but come back from them: decoding bounds the nesting (kMaxQueryDepth), the number of
// queries (kMaxQueryNodes) and every count by the bytes left. InnerHits are not carried (a
// filter has none).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "search/query.h"

namespace ttlstore::search {

std::string EncodeQuery(const Query& q);
// nullopt when malformed or past the bounds.
std::optional<Query> DecodeQuery(std::string_view bytes);

}  // namespace ttlstore::search
