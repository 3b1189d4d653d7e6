// Thread: a joinable thread with a known stack size and a name.
//
// std::thread takes its stack size from the process's defaults (RLIMIT_STACK at exec, or 2 MiB
// when that is unlimited), so how deep a request may recurse would depend on how the server was
// started. Every thread that serves requests or runs background work is a Thread instead: the
// stack is kThreadStackBytes everywhere, and the depth limits on untrusted input
// (api/json_parse.h, the expression and PartiQL parsers, the Tablestore decoders) are tested
// against that size.
#pragma once

#include <pthread.h>
#include <sched.h>

#include <cerrno>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <system_error>
#include <thread>
#include <utility>

namespace ttlstore {

// The stack of every thread the server starts: 8 MiB, Linux's usual default. The deepest input
// recursion allowed anywhere needs well under 1 MiB of it, even under AddressSanitizer.
inline constexpr size_t kThreadStackBytes = size_t{8} << 20;

// The CPUs this process may run on: its affinity mask (taskset, a cgroup cpuset, a container's
// --cpuset-cpus), not the machine's count that std::thread::hardware_concurrency gives. Thread
// pools are sized by it, so a server pinned to one core does not run two serving threads that
// only take turns on it.
inline unsigned UsableCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0) {
    return static_cast<unsigned>(CPU_COUNT(&set));
  }
  unsigned n = std::thread::hardware_concurrency();
  return n > 0 ? n : 1;
}

class Thread {
 public:
  Thread() = default;
  // Starts `fn` on a new thread named `name` (at most 15 characters are kept; shown by top -H
  // and perf). Throws std::system_error if the thread cannot be created, as std::thread does.
  Thread(std::string name, std::function<void()> fn, size_t stack_bytes = kThreadStackBytes) {
    auto start = std::make_unique<Start>(Start{std::move(name), std::move(fn)});
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, stack_bytes);
    int rc = pthread_create(&id_, &attr, &Thread::Run, start.get());
    pthread_attr_destroy(&attr);
    if (rc != 0) throw std::system_error(rc, std::generic_category(), "pthread_create");
    start.release();  // owned by the new thread now
    joinable_ = true;
  }
  Thread(Thread&& other) noexcept
      : id_(other.id_), joinable_(std::exchange(other.joinable_, false)) {}
  Thread& operator=(Thread&& other) noexcept {
    if (this != &other) {
      if (joinable_) join();
      id_ = other.id_;
      joinable_ = std::exchange(other.joinable_, false);
    }
    return *this;
  }
  Thread(const Thread&) = delete;
  Thread& operator=(const Thread&) = delete;
  // Joins a thread still running, so a Thread member can never outlive its work.
  ~Thread() {
    if (joinable_) join();
  }

  bool joinable() const { return joinable_; }
  void join() {
    if (!joinable_) return;
    pthread_join(id_, nullptr);
    joinable_ = false;
  }

  // The stack size the calling thread was created with (0 if it cannot be told).
  static size_t CurrentStackBytes() {
    pthread_attr_t attr;
    size_t size = 0;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
      pthread_attr_getstacksize(&attr, &size);
      pthread_attr_destroy(&attr);
    }
    return size;
  }

 private:
  struct Start {
    std::string name;
    std::function<void()> fn;
  };
  static void* Run(void* arg) {
    std::unique_ptr<Start> start(static_cast<Start*>(arg));
    if (!start->name.empty()) {
      pthread_setname_np(pthread_self(), start->name.substr(0, 15).c_str());
    }
    start->fn();
    return nullptr;
  }

  pthread_t id_{};
  bool joinable_ = false;
};

}  // namespace ttlstore
