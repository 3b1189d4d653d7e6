// NestedQuery (issue 32; docs/search-engine.md, "Nested fields"): its checks and its Xapian
// form. A row matches when one sub-document at the query's path matches the inner query. The
// Xapian query is the AND of
//   - candidates: the inner query over the terms of all sub-documents merged (each leaf's terms
//     under the sub-field's key, must/filter as AND, should as at-least-m, must_not dropped), a
//     superset of the answer that the index finds without reading a value, and
//   - a slot test (slot_source.h) of each candidate's sub-documents by the inner query's matcher
//     (nested_eval.h), which also gives the row's score (score_mode over the matches).
// So the conditions of a NestedQuery hold within one sub-document, never across two.
#pragma once

#include <functional>

#include <xapian.h>

#include "common/result.h"
#include "model/search_index.h"
#include "search/field_ref.h"
#include "search/query.h"
#include "search/query_builder.h"

namespace ttlstore::search {

// The checks of NestedQuery `q` standing in `scope` (its path a Nested field at or below the
// scope, its InnerHits' bounds and sort) before its inner query is checked by `check_inner` in
// the scope of its path.
Status CheckNestedQuery(
    const model::SearchIndexMeta& index, const Query& q, const QueryScope& scope,
    const std::function<Status(const Query&, const QueryScope&)>& check_inner);

// A leaf's field against where the leaf stands: a sub-field only inside a NestedQuery of its
// Nested field's path (the service: "Nested fields cannot be directly queried"), a top-level
// field only outside; a Nested field itself only by ExistsQuery.
Status CheckFieldScope(const FieldRef& ref, const Query& q, const QueryScope& scope);

// The Xapian query of a top-level NestedQuery. REQUIRES: ValidateQuery accepted it.
Result<Xapian::Query> BuildNestedQuery(const model::SearchIndexMeta& index,
                                       const Xapian::Database& db, const Query& q);

}  // namespace ttlstore::search
