// A stand-in for search::SearchEngine, linked only while src/search/search_engine.cc does not
// exist (CMakeLists.txt): the protocol side builds and its control plane works; every query is
// refused. Removed once the engine is merged.
#include "search/search_engine.h"

namespace ttlstore::search {

struct SearchEngine::Impl {};

SearchEngine::SearchEngine(storage::Store&, ops::TableCatalog&, std::string, const Clock&) {}
SearchEngine::~SearchEngine() = default;
Status SearchEngine::Start() { return Status::Ok(); }
void SearchEngine::Stop() {}
void SearchEngine::Wake() {}
Status SearchEngine::Validate(const model::SearchIndexMeta&, const Query&) { return Status::Ok(); }
Result<SearchResult> SearchEngine::Search(uint32_t, const model::TablestoreSchema&,
                                          const model::SearchIndexMeta&, const SearchRequest&) {
  return Error::Validation("Search indexes are not available on this server.");
}
Result<int32_t> SearchEngine::ComputeSplits(const model::SearchIndexMeta&, std::string*) {
  return Error::Validation("Search indexes are not available on this server.");
}
Result<ScanResult> SearchEngine::ParallelScan(uint32_t, const model::TablestoreSchema&,
                                              const model::SearchIndexMeta&, const ScanRequest&) {
  return Error::Validation("Search indexes are not available on this server.");
}
IndexStats SearchEngine::Stats(const model::SearchIndexMeta&) const { return {}; }
Status SearchEngine::Flush() { return Status::Ok(); }

}  // namespace ttlstore::search
