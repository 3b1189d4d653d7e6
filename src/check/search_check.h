// The invariants of search indexes (search/), for `ttlstore check` (check/consistency.h), on a
// stopped server's data dir. For each search index of each Tablestore table that is built:
//   - its Xapian database exists under <data-dir>/search/<id>;
//   - every row of the table that no queue entry names (storage/search_queue.h: a named row's
//     document may lag; the applier will rebuild it) has exactly the document its current
//     state implies (search/document.h): same terms, same values, or none when the row is
//     invisible; a document whose row is past the index's TTL is allowed to linger (the purge
//     removes it, reads already hide it);
//   - no document names a row that does not exist (unless a queue entry names it).
// An index still building is only counted. Folders of indexes no table names are reported.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "common/result.h"
#include "model/table.h"
#include "storage/store.h"

namespace ttlstore::check {

Status CheckSearchIndexes(const storage::Store& store,
                          const std::map<uint32_t, model::TableDescriptor>& tables,
                          const std::string& search_dir, int64_t now_ms,
                          uint64_t* documents, uint64_t* queued,
                          const std::function<void(std::string)>& problem);

}  // namespace ttlstore::check
