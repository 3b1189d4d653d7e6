#include "storage/pg_point_reads.h"

#include <algorithm>
#include <unordered_map>
#include <utility>

namespace ttlstore::storage {

PgPointReads::PgPointReads(size_t spaces, Fetch fetch)
    : fetch_(std::move(fetch)), queues_(spaces) {}

Result<std::optional<std::string>> PgPointReads::Get(size_t space, std::string key) {
  Waiter self;
  self.key = std::move(key);
  std::unique_lock lock(mu_);
  Queue& q = queues_.at(space);
  q.waiting.push_back(&self);
  while (!self.done) {
    if (q.in_flight >= kMaxInFlight || q.waiting.empty()) {
      q.changed.wait(lock);
      continue;
    }
    // Lead a statement: everything waiting (up to kMaxKeys), this read among them unless more
    // than that came first (then it waits for the next one).
    const size_t n = std::min(q.waiting.size(), kMaxKeys);
    std::vector<Waiter*> batch(q.waiting.begin(), q.waiting.begin() + static_cast<long>(n));
    q.waiting.erase(q.waiting.begin(), q.waiting.begin() + static_cast<long>(n));
    ++q.in_flight;
    lock.unlock();
    std::vector<std::string> keys;
    std::unordered_map<std::string_view, size_t> slot;
    for (Waiter* w : batch) {
      if (slot.emplace(w->key, keys.size()).second) keys.push_back(w->key);
    }
    auto values = fetch_(space, keys);
    lock.lock();
    for (Waiter* w : batch) {
      if (!values) {
        w->status = values.error();
      } else {
        w->value = (*values)[slot.at(w->key)];
      }
      w->done = true;
    }
    --q.in_flight;
    q.changed.notify_all();
  }
  if (!self.status) return std::move(self.status).error();
  return std::move(self.value);
}

}  // namespace ttlstore::storage
