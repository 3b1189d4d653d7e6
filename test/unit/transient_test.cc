// RetryWhileUnavailable (common/transient.h): how a one-shot job rides out a storage outage.
#include "common/transient.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace ttlstore {
namespace {

Status Unavailable() { return Error(ErrorCode::kStorageUnavailable, "database unreachable"); }

TEST(RetryWhileUnavailable, StartsOverUntilTheStorageAnswers) {
  std::atomic<bool> cancel{false};
  int attempts = 0, logged = 0;
  Status s = RetryWhileUnavailable(
      cancel, [&]() -> Status { return ++attempts < 4 ? Unavailable() : Status::Ok(); },
      [&](const Status& failure) {
        EXPECT_EQ(failure.error().code(), ErrorCode::kStorageUnavailable);
        ++logged;
      },
      std::chrono::milliseconds(1));
  EXPECT_TRUE(s);
  EXPECT_EQ(attempts, 4);
  EXPECT_EQ(logged, 3);
}

TEST(RetryWhileUnavailable, AnyOtherFailureEndsItAtOnce) {
  std::atomic<bool> cancel{false};
  int attempts = 0;
  Status s = RetryWhileUnavailable(
      cancel,
      [&]() -> Status {
        ++attempts;
        return Error::Validation("a bad record");
      },
      [](const Status&) { ADD_FAILURE() << "not a failure to retry"; },
      std::chrono::milliseconds(1));
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code(), ErrorCode::kValidation);
  EXPECT_EQ(attempts, 1);
}

TEST(RetryWhileUnavailable, AShutdownCutsTheWaitShortAndReturnsTheFailure) {
  std::atomic<bool> cancel{false};
  int attempts = 0;
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    cancel = true;
  });
  auto start = std::chrono::steady_clock::now();
  Status s = RetryWhileUnavailable(
      cancel, [&]() -> Status { ++attempts; return Unavailable(); }, [](const Status&) {},
      std::chrono::seconds(30));
  auto took = std::chrono::steady_clock::now() - start;
  stopper.join();
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code(), ErrorCode::kStorageUnavailable);
  EXPECT_EQ(attempts, 1);
  EXPECT_LT(took, std::chrono::seconds(10));  // not the 30 s wait
}

}  // namespace
}  // namespace ttlstore
