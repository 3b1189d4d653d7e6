// InnerHits of NestedQuery (issue 32): for each hit of a page, the sub-documents that made each
// NestedQuery with InnerHits match, as the service returns them (SearchHit.search_inner_hits: per
// query its path and, per sub-document, its offset in the JSON array, its score and the inner
// hits of NestedQuery with InnerHits inside it).
//
// The NestedQuery counted are those with InnerHits anywhere in the query but under a must_not
// (which match no sub-document of a hit). Each gives one group per hit, empty when none of the
// hit's sub-documents matches (a should clause that did not). Within a group the sub-documents
// are ordered by the InnerHits sort (default: their order in the array), then offset and limit
// apply (default 0 and 3, the service's).
#pragma once

#include <vector>

#include <xapian.h>

#include "model/search_index.h"
#include "search/query.h"

namespace ttlstore::search {

// Whether a NestedQuery of `q` asks for InnerHits.
bool WantsInnerHits(const Query& q);

// The inner hits of `q` for the hit whose Xapian document is `doc`. REQUIRES: ValidateQuery
// accepted `q`.
std::vector<InnerHitGroup> CollectInnerHits(const model::SearchIndexMeta& index, const Query& q,
                                            const Xapian::Document& doc);

}  // namespace ttlstore::search
