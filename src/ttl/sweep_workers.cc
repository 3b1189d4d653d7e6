#include "ttl/sweep_workers.h"

#include <string>
#include <utility>

namespace ttlstore::ttl {

SweepWorkers::SweepWorkers(size_t threads) : threads_(threads > 0 ? threads : 1) {
  for (size_t i = 0; i < threads_; ++i) {
    workers_.emplace_back("ttl-sweep-" + std::to_string(i), [this] { Run(); });
  }
}

SweepWorkers::~SweepWorkers() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  changed_.notify_all();
  workers_.clear();  // joins each
}

void SweepWorkers::Submit(std::function<void()> job) {
  std::unique_lock<std::mutex> lock(mu_);
  changed_.wait(lock, [this] { return pending_ < threads_; });
  queue_.push_back(std::move(job));
  ++pending_;
  changed_.notify_all();
}

void SweepWorkers::Drain() {
  std::unique_lock<std::mutex> lock(mu_);
  changed_.wait(lock, [this] { return pending_ == 0; });
}

void SweepWorkers::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    changed_.wait(lock, [this] { return stop_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, nothing left
    std::function<void()> job = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    job();
    lock.lock();
    --pending_;
    changed_.notify_all();
  }
}

}  // namespace ttlstore::ttl
