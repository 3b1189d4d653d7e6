// GraphRegistry: the vector graphs (vector_index.h) a process serves, each under an opaque id
// its owner chooses ("ts/<search index id>/<slot>" for a Tablestore Vector field; a DynamoDB
// vector index would use e.g. "ddb/<table id>/<index name>"). Only graphs that are ready (built
// or loaded and caught up with their documents) are published; a reader that finds none ranks
// exactly from the documents, which stay the truth (docs/vector-engine.md, "Graphs are a
// cache").
//
// Thread-safety: every method may be called from any thread. A graph found stays usable by the
// caller (shared ownership) even if it is dropped or replaced meanwhile.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "vector/vector_index.h"

namespace ttlstore::vector {

class GraphRegistry {
 public:
  // The published graph under `id`, or nullptr.
  std::shared_ptr<VectorIndex> Find(std::string_view id) const;
  // Publishes `graph` under `id`, replacing any earlier one.
  void Publish(const std::string& id, std::shared_ptr<VectorIndex> graph);
  // Forgets the graph under `id` / every graph whose id starts with `prefix`.
  void Drop(std::string_view id);
  void DropPrefix(std::string_view prefix);
  // The published ids, sorted.
  std::vector<std::string> Ids() const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<VectorIndex>, std::less<>> graphs_;  // GUARDED_BY(mu_)
};

}  // namespace ttlstore::vector
