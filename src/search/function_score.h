// Function scores (issue 32): FunctionScoreQuery and FunctionsScoreQuery, a query whose rows are
// scored anew from their field values, as the service documents them after Elasticsearch's
// function_score (docs/tablestore.md, "Function score queries", gives every rule and source).
//
// Xapian adds the weights of a query's terms; it cannot multiply a sub-query's score by a value
// of each row. So a function-score node is evaluated when the query is built: its query runs on
// its own (BM25, as the whole query would weigh it), each match gets its final score from the
// functions, and the node becomes a posting source listing those rows with those scores. It
// then composes like any other sub-query: a Bool adds it to its siblings' scores, a filter
// ignores the scores, and min_score has already removed the rows it excludes.
//
// The arithmetic (FunctionValue, CombineFunctionScore) is pure, so the unit tests compute the
// expected scores independently of Xapian.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include <xapian.h>

#include "common/result.h"
#include "model/search_index.h"
#include "search/query.h"

namespace ttlstore::search {

// The service's bound: "up to three ScoreFunctions can be used simultaneously" (the Java SDK's
// ScoreFunction documentation).
inline constexpr size_t kMaxScoreFunctions = 3;
// Chosen: the rows one function-score node may score (each costs 16 bytes while the query is
// built); past it the query is refused and should be narrowed with a filter.
inline constexpr size_t kMaxFunctionScoreMatches = 2'000'000;

// Ok, or kValidation with the message, for the functions of a kFunctionScore node (fields,
// types, parameters). The node's query and the functions' filters are checked by the caller.
Status ValidateFunctionScore(const model::SearchIndexMeta& index, const Query& q);

// One function's value for a row, weight included, or nullopt when it does not apply to the
// row: its filter does not match (`filter_matches` false), or it is a field value factor of a
// field the row lacks, without `missing`. `field_value` is the row's value of the function's
// field (nullopt: absent); `random` a number in [0, 1) for a random function.
std::optional<double> FunctionValue(const ScoreFunction& f, bool filter_matches,
                                    std::optional<double> field_value, double random);

// The row's final score: the applying functions' values (values[i] of functions[i], from
// FunctionValue) combined by the score mode, capped at max_score, then combined with the
// query's score `base` by the combine mode. Never negative (a negative or NaN result is 0).
// Whether it passes min_score is the caller's test.
double CombineFunctionScore(const Query::FunctionScoreOptions& opts,
                            const std::vector<ScoreFunction>& functions, double base,
                            const std::vector<std::optional<double>>& values);

// The Xapian query of kFunctionScore node `q` over `db`: `inner` is the built query of
// q.must[0], `filters[i]` the built filter of q.functions[i] (MatchAll when it has none). Runs
// `inner` once to score its matches. kValidation past kMaxFunctionScoreMatches.
Result<Xapian::Query> BuildFunctionScore(const model::SearchIndexMeta& index,
                                         const Xapian::Database& db, const Query& q,
                                         const Xapian::Query& inner,
                                         const std::vector<Xapian::Query>& filters);

}  // namespace ttlstore::search
