// Runs a function on a thread with a small stack and measures how much of that stack it used,
// so the hostile-input tests can show that the deepest expression a request can carry parses,
// checks, evaluates and is destroyed well inside a server thread's stack (8 MiB), also under
// ASan, whose frames are several times larger.
#pragma once

#include <pthread.h>

#include <cstddef>
#include <cstdint>
#include <functional>

namespace ttlstore::testing {

// The stack every hostile-input case runs on: an eighth of a server thread's (8 MiB). ASan
// frames carry red zones and are several times larger, so the sanitizer build (the one CI
// runs) gets half a server thread's stack instead.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr size_t kSmallStackBytes = 4 << 20;
#else
inline constexpr size_t kSmallStackBytes = 1 << 20;
#endif

namespace internal {

constexpr unsigned char kPaint = 0xA5;

struct SmallStackRun {
  std::function<void()> fn;
  size_t peak = 0;
};

// Fills the unused part of this thread's stack (below the caller's frame) with kPaint. Not
// instrumented: ASan would otherwise check these writes against its own stack poisoning.
__attribute__((no_sanitize("address"), noinline)) inline void Paint(unsigned char* low,
                                                                    unsigned char* high) {
  for (volatile unsigned char* p = low; p < high; ++p) *p = kPaint;
}

// The lowest address at or above `low` that no longer holds kPaint.
__attribute__((no_sanitize("address"), noinline)) inline unsigned char* FirstTouched(
    unsigned char* low, unsigned char* high) {
  volatile unsigned char* p = low;
  while (p < high && *p == kPaint) ++p;
  return const_cast<unsigned char*>(p);
}

inline void* RunOnThisStack(void* arg) {
  auto* run = static_cast<SmallStackRun*>(arg);
  pthread_attr_t attr;
  pthread_getattr_np(pthread_self(), &attr);
  void* base = nullptr;
  size_t size = 0;
  pthread_attr_getstack(&attr, &base, &size);
  pthread_attr_destroy(&attr);
  auto* low = static_cast<unsigned char*>(base) + 4096;  // past any guard page
  auto* top = static_cast<unsigned char*>(base) + size;
  // The machine frame, not a local's address (ASan may keep locals on a heap "fake stack").
  auto* here = static_cast<unsigned char*>(__builtin_frame_address(0)) - 512;
  const bool measurable = here > low && here < top;
  if (measurable) Paint(low, here);
  run->fn();
  // Unmeasurable: report the whole stack, which fails the "comfortably" assertions loudly.
  run->peak = measurable ? static_cast<size_t>(top - FirstTouched(low, here)) : size;
  return nullptr;
}

}  // namespace internal

// Runs `fn` on a new thread with a `stack_bytes` stack and returns the most of that stack it
// used, in bytes (an overflow crashes the test binary, which fails the test too).
inline size_t PeakStackOnSmallThread(std::function<void()> fn,
                                     size_t stack_bytes = kSmallStackBytes) {
  internal::SmallStackRun run{std::move(fn)};
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, stack_bytes);
  pthread_t thread;
  pthread_create(&thread, &attr, internal::RunOnThisStack, &run);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
  return run.peak;
}

}  // namespace ttlstore::testing
