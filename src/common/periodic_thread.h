// PeriodicThread: a background thread that runs one pass now and then one every interval until
// stopped — the loop of the jobs that keep nothing between passes (the stream and PITR
// trimmers: docs/background-jobs.md). Stop wakes the thread from its wait and joins it; a pass
// in progress finishes first.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <utility>

#include "common/thread.h"

namespace ttlstore {

class PeriodicThread {
 public:
  PeriodicThread() = default;
  PeriodicThread(const PeriodicThread&) = delete;
  PeriodicThread& operator=(const PeriodicThread&) = delete;
  ~PeriodicThread() { Stop(); }

  // Starts the thread `name`: `pass` at once, then again `interval_ms` after each one ended.
  // REQUIRES: not started already.
  void Start(std::string name, int64_t interval_ms, std::function<void()> pass) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = false;
    }
    thread_ = Thread(std::move(name), [this, interval_ms, pass = std::move(pass)] {
      std::unique_lock<std::mutex> lock(mu_);
      while (!stop_) {
        lock.unlock();
        pass();
        lock.lock();
        wake_.wait_for(lock, std::chrono::milliseconds(interval_ms), [this] { return stop_; });
      }
    });
  }

  // Returns once the thread has ended (at once if it never started).
  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

 private:
  Thread thread_;
  std::mutex mu_;
  std::condition_variable wake_;
  bool stop_ = false;  // GUARDED_BY(mu_)
};

}  // namespace ttlstore
