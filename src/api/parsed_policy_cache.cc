#include "api/parsed_policy_cache.h"

#include "api/resource_policy_doc.h"

namespace ttlstore::api {

std::shared_ptr<const ParsedPolicyCache::Statements> ParsedPolicyCache::Get(
    const std::string& document) {
  {
    std::lock_guard lock(mu_);
    if (auto it = entries_.find(document); it != entries_.end()) return it->second;
  }
  // Parsed outside the lock: two threads may parse the same new document once each.
  auto parsed = ParseResourcePolicy(document);
  auto statements = std::make_shared<const Statements>(parsed ? std::move(*parsed) : Statements{});
  std::lock_guard lock(mu_);
  auto [it, inserted] = entries_.emplace(document, statements);
  if (!inserted) return it->second;
  order_.push_back(document);
  while (order_.size() > capacity_) {
    entries_.erase(order_.front());
    order_.pop_front();
  }
  return statements;
}

}  // namespace ttlstore::api
