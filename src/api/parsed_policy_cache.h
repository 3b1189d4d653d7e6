// Parsed resource-based policies, kept so that authorizing a request to a table with a policy
// does not parse the policy's JSON again (api/authorize.cc). Keyed by the document's text: a
// PutResourcePolicy that changes the text makes a new entry, so no invalidation is needed, and
// the number of entries is bounded (the oldest goes first).
#pragma once

#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "auth/resource_policy.h"

namespace ttlstore::api {

class ParsedPolicyCache {
 public:
  using Statements = std::vector<auth::ResourceStatement>;

  explicit ParsedPolicyCache(size_t capacity = 256) : capacity_(capacity) {}

  // The statements of `document` (validated when it was attached); one that no longer parses
  // gives no statements.
  std::shared_ptr<const Statements> Get(const std::string& document);

  size_t size() const {
    std::lock_guard lock(mu_);
    return entries_.size();
  }

 private:
  const size_t capacity_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<const Statements>> entries_;
  std::deque<std::string> order_;  // insertion order, for eviction
};

}  // namespace ttlstore::api
