// The protocol's function-score queries (FUNCTION_SCORE_QUERY, FUNCTIONS_SCORE_QUERY) turned
// into the engine's kFunctionScore node (search/query.h, search/function_score.h). Pure, like
// search_query_decode.h, which calls these for the two query types: the nested queries (the
// scored query and each function's filter) are decoded by `sub`, the caller's decoder, so the
// bounds on depth and on the number of queries hold across them.
#pragma once

#include <functional>
#include <string_view>

#include "common/result.h"
#include "search/query.h"
#include "tablestore/search.pb.h"

namespace ttlstore::tablestore {

using SubQueryDecoder = std::function<Result<search::Query>(const otssearchpb::Query&)>;

// FunctionScoreQuery (the deprecated form): the query's score times a field's value.
Result<search::Query> DecodeFunctionScoreQuery(std::string_view body, const SubQueryDecoder& sub);

// FunctionsScoreQuery: functions with filters and weights, score and combine modes, min_score
// and max_score. Date origins given as strings are refused (ttlstore parses no date strings).
Result<search::Query> DecodeFunctionsScoreQuery(std::string_view body,
                                                const SubQueryDecoder& sub);

}  // namespace ttlstore::tablestore
