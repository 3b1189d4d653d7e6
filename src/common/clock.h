// Clock: the one source of "now". Everything time-dependent takes a Clock& so tests can move
// time instead of sleeping (RocksDB's SpecialTimeEnv idea). Take one reading per request.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace ttlstore {

class Clock {
 public:
  virtual ~Clock() = default;
  // Milliseconds since the Unix epoch.
  virtual int64_t NowMs() const = 0;
};

class SystemClock : public Clock {
 public:
  int64_t NowMs() const override {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
};

// A clock that moves only when told to. Thread-safe.
class FakeClock : public Clock {
 public:
  explicit FakeClock(int64_t now_ms) : now_ms_(now_ms) {}
  int64_t NowMs() const override { return now_ms_.load(); }
  void Advance(int64_t ms) { now_ms_ += ms; }
  void Set(int64_t ms) { now_ms_ = ms; }

 private:
  std::atomic<int64_t> now_ms_;
};

}  // namespace ttlstore

namespace ttlstore {

// The system clock shifted so that it read `start_ms` when constructed, and advancing in real
// time from there (`serve --clock-start-ms`, for tests that need a given date).
class OffsetClock : public Clock {
 public:
  explicit OffsetClock(int64_t start_ms) : offset_ms_(start_ms - SystemClock().NowMs()) {}
  int64_t NowMs() const override { return SystemClock().NowMs() + offset_ms_; }

 private:
  int64_t offset_ms_;
};

}  // namespace ttlstore
