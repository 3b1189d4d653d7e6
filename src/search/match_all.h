// The match-all query, made fresh for each use.
//
// Xapian::Query::MatchAll is one static object whose internal is shared by every copy, with a
// reference count that is not atomic (Xapian objects are not meant to be shared between
// threads). Copying it on two search threads at once corrupts the count: the CI's sanitizer run
// caught a SEGV in Enquire::set_query under two concurrent Search requests (bench/search.mjs, 1
// run in 6). MatchAll() builds a new query of the empty term, which Xapian defines as
// matching every document (Query::MatchAll is that same query), with a reference count of its own.
#pragma once

#include <string>

#include <xapian.h>

namespace ttlstore::search {

inline Xapian::Query MatchAll() { return Xapian::Query(std::string()); }

}  // namespace ttlstore::search
