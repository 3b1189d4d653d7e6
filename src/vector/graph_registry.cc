// GraphRegistry: a locked map of shared graphs (graph_registry.h).
#include "vector/graph_registry.h"

namespace ttlstore::vector {

std::shared_ptr<VectorIndex> GraphRegistry::Find(std::string_view id) const {
  std::lock_guard lock(mu_);
  auto it = graphs_.find(id);
  return it == graphs_.end() ? nullptr : it->second;
}

void GraphRegistry::Publish(const std::string& id, std::shared_ptr<VectorIndex> graph) {
  std::lock_guard lock(mu_);
  graphs_[id] = std::move(graph);
}

void GraphRegistry::Drop(std::string_view id) {
  std::lock_guard lock(mu_);
  auto it = graphs_.find(id);
  if (it != graphs_.end()) graphs_.erase(it);
}

void GraphRegistry::DropPrefix(std::string_view prefix) {
  std::lock_guard lock(mu_);
  for (auto it = graphs_.lower_bound(prefix); it != graphs_.end();) {
    if (std::string_view(it->first).substr(0, prefix.size()) != prefix) break;
    it = graphs_.erase(it);
  }
}

std::vector<std::string> GraphRegistry::Ids() const {
  std::lock_guard lock(mu_);
  std::vector<std::string> out;
  for (const auto& [id, g] : graphs_) out.push_back(id);
  return out;
}

}  // namespace ttlstore::vector
