// KeyLocks: striped mutexes serializing read-modify-write per key inside one process, the
// RocksDB backend's Store::ReadModifyWrite (one process owns a RocksDB folder, so that is all the
// serialization it needs). Writers to one key queue up; writers to different keys almost always
// take different stripes and run in parallel. A multi-key operation locks its stripes in
// ascending order, so two of them can never deadlock. Included by storage/ only.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string_view>
#include <vector>

namespace ttlstore::storage {

class KeyLocks {
 public:
  // Enough stripes that two hot keys rarely share one.
  static constexpr size_t kStripes = 1024;

  // The stripe of `key` in key space `space`.
  static size_t StripeOf(uint8_t space, std::string_view key) {
    return (std::hash<std::string_view>{}(key) + space * 0x9e3779b97f4a7c15ull) % kStripes;
  }

  // Holds a set of stripes until destroyed.
  class Guard {
   public:
    // `stripes` may repeat and come in any order.
    Guard(KeyLocks& locks, std::vector<size_t> stripes) : locks_(locks), held_(std::move(stripes)) {
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

}  // namespace ttlstore::storage
