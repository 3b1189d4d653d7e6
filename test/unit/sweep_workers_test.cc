// SweepWorkers: at most `threads` batches in flight, every one run, Drain waits for all.
#include "ttl/sweep_workers.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace ttlstore::ttl {
namespace {

TEST(SweepWorkersTest, RunsEveryJobWithAtMostItsThreadCountAtOnce) {
  SweepWorkers workers(3);
  std::atomic<int> running{0}, most{0}, done{0};
  for (int i = 0; i < 60; ++i) {
    workers.Submit([&] {
      int now = ++running;
      int seen = most.load();
      while (now > seen && !most.compare_exchange_weak(seen, now)) {
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      --running;
      ++done;
    });
  }
  workers.Drain();
  EXPECT_EQ(done.load(), 60);
  EXPECT_LE(most.load(), 3);
  EXPECT_GE(most.load(), 2);  // they did overlap
}

TEST(SweepWorkersTest, SubmitWaitsWhileEveryWorkerIsBusy) {
  SweepWorkers workers(2);
  std::atomic<bool> release{false};
  std::atomic<int> started{0};
  for (int i = 0; i < 2; ++i) {
    workers.Submit([&] {
      ++started;
      while (!release.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    });
  }
  std::atomic<bool> third_submitted{false};
  std::thread submitter([&] {
    workers.Submit([] {});
    third_submitted = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(third_submitted.load());  // two in flight: the reader waits
  release = true;
  submitter.join();
  EXPECT_TRUE(third_submitted.load());
  workers.Drain();
  EXPECT_EQ(started.load(), 2);
}

TEST(SweepWorkersTest, DestroyingFinishesWhatWasSubmitted) {
  std::atomic<int> done{0};
  {
    SweepWorkers workers(2);
    for (int i = 0; i < 10; ++i) workers.Submit([&] { ++done; });
  }
  EXPECT_EQ(done.load(), 10);
}

}  // namespace
}  // namespace ttlstore::ttl
