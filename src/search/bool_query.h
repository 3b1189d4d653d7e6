// Queries run with Xapian::BoolWeight, shaped around a Xapian 1.4.22 fault.
//
// After every document holding a term was deleted and new ones holding it were added (a search
// index's TTL purge followed by new rows, or any wholesale rewrite), an Enquire on that term
// with a weighting scheme that reads no wdf (BoolWeight, CoordWeight, a zero scale) throws
// "DatabaseCorruptError: Unexpected end of posting list" once the term is in every live
// document and the match reads past the first page (a sort by key, or counting every match).
// The index is sound: BM25 and a plain posting-list walk read it whole, and so does the same
// match with the query under OP_FILTER of MatchAll, which is what BoolQuery gives. Every
// Enquire here that sets BoolWeight sets its query through BoolQuery
// (test/tablestore/search_purge.test.mjs reproduces the fault through the API).
#pragma once

#include <xapian.h>

#include "search/match_all.h"

namespace ttlstore::search {

// `q` for an Enquire with BoolWeight: the same matches, every weight 0.
inline Xapian::Query BoolQuery(const Xapian::Query& q) {
  if (q.get_type() == Xapian::Query::LEAF_MATCH_ALL) return q;
  return Xapian::Query(Xapian::Query::OP_FILTER, MatchAll(), q);
}

}  // namespace ttlstore::search
