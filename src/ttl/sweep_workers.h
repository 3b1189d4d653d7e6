// SweepWorkers: the threads that delete the TTL sweeper's batches while it reads the next ones.
//
// With a database on the other end of a connection, one batch is mostly waiting: for the rows'
// locks, for the deletes, for the commit. The sweeper reads due entries in order on its own
// thread and hands each batch to one of these threads, so up to `threads` batches (each on its
// own pooled connection) are in the database at once. Batches never share an item (each is a
// different stretch of the expiry index), so they never wait for each other's locks.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <vector>

#include "common/thread.h"

namespace ttlstore::ttl {

class SweepWorkers {
 public:
  explicit SweepWorkers(size_t threads);
  ~SweepWorkers();  // finishes the jobs already submitted, then joins

  SweepWorkers(const SweepWorkers&) = delete;
  SweepWorkers& operator=(const SweepWorkers&) = delete;

  // Queues `job`, first waiting while `threads` jobs are queued or running: the sweeper never
  // reads further ahead than its workers can follow.
  void Submit(std::function<void()> job);
  // Waits until every submitted job has finished.
  void Drain();

 private:
  void Run();

  const size_t threads_;
  std::mutex mu_;
  std::condition_variable changed_;
  std::deque<std::function<void()>> queue_;  // GUARDED_BY(mu_)
  size_t pending_ = 0;                       // queued + running; GUARDED_BY(mu_)
  bool stop_ = false;                        // GUARDED_BY(mu_)
  std::vector<Thread> workers_;
};

}  // namespace ttlstore::ttl
