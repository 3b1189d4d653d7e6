// Runs a Search's aggregations and group-bys (search/agg_types.h) over every match of its query
// on one Xapian reader: the matches are collected once (a MatchSpy on an unsorted pass, so the
// cost is the query's matching plus the values each aggregation reads, not the page), then each
// aggregation and group-by is evaluated exactly (search/agg_eval.h). The service's Search
// aggregates the whole match set whatever the page too; its offset, limit and next_token do not
// change the answer (docs/tablestore.md, "Aggregations and group-bys").
#pragma once

#include <xapian.h>

#include "common/result.h"
#include "model/search_index.h"
#include "search/agg_columns.h"
#include "search/agg_types.h"

namespace ttlstore::search {

// REQUIRES: ValidateAggregations(index, req) is ok; `query` is the Search's query as built for
// `db` (its TTL filter included). `row_values` reads array elements from the table for
// documents without the array slot (may be empty: such arrays then count their
// first element only). Xapian errors propagate as exceptions.
Result<AggOutput> RunAggregations(const model::SearchIndexMeta& index, const Xapian::Database& db,
                                  const Xapian::Query& query, const AggRequest& req,
                                  RowValues row_values);

}  // namespace ttlstore::search
