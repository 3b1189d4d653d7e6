// ProgressBar: "\r<verb> [########......]  40%  4000/10000 items" on stderr, redrawn at most
// ten times a second, and a closing line with the count and the rate. Used by `ttlstore
// backup`/`restore`, `export`/`import` and the copy phase of `ttlstore replicate`.
//
// Thread-safety: none; one thread draws.
#pragma once

#include <chrono>
#include <cstdint>

namespace ttlstore::cli {

class ProgressBar {
 public:
  // `total`: the expected count (may be an estimate: a larger `done` stretches it).
  ProgressBar(const char* verb, int64_t total) : verb_(verb), total_(total) {}

  void set_total(int64_t total) { total_ = total; }
  void Update(int64_t done);
  void Done(int64_t done);

 private:
  const char* verb_;
  int64_t total_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace ttlstore::cli
