// KeyLocks: striped mutexes serializing read-modify-write per item key. Writers to one item
// queue up; writers to different items almost always take different stripes and run in
// parallel. Multi-item operations (transactions, batch writes) lock their stripes in ascending
// order, so two of them can never deadlock.
#pragma once

#include <algorithm>
#include <array>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace ttlstore {

class KeyLocks {
 public:
  // Enough stripes that two hot keys rarely share one.
  static constexpr size_t kStripes = 1024;

  size_t StripeOf(const std::string& encoded_key) const {
    return std::hash<std::string>{}(encoded_key) % kStripes;
  }
  std::mutex& For(const std::string& encoded_key) { return stripes_[StripeOf(encoded_key)]; }

  // Holds the stripes of several keys until destroyed.
  class Guard {
   public:
    Guard(KeyLocks& locks, const std::vector<std::string>& keys) : locks_(locks) {
      for (const auto& k : keys) held_.push_back(locks.StripeOf(k));
      std::sort(held_.begin(), held_.end());
      held_.erase(std::unique(held_.begin(), held_.end()), held_.end());
      for (size_t i : held_) locks_.stripes_[i].lock();
    }
    ~Guard() {
      for (auto it = held_.rbegin(); it != held_.rend(); ++it) locks_.stripes_[*it].unlock();
    }
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;

   private:
    KeyLocks& locks_;
    std::vector<size_t> held_;
  };

 private:
  std::array<std::mutex, kStripes> stripes_;
};

}  // namespace ttlstore
