#include "engine.h"

#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>
#include <stdexcept>

namespace loadgen {

uint64_t NowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

void Stats::Merge(const Stats& o) {
  hist.Merge(o.hist);
  ops += o.ops;
  items += o.items;
  for (const auto& [k, v] : o.errors) errors[k] += v;
}

uint64_t Stats::ErrorCount() const {
  uint64_t n = 0;
  for (const auto& [k, v] : errors) n += v;
  return n;
}

struct Worker::Conn {
  enum class St { kDown, kConnecting, kIdle, kSending, kWaiting };
  int fd = -1;
  St st = St::kDown;
  uint32_t watched = 0;     // epoll mask currently registered (0: not registered)
  std::string out;
  size_t off = 0;
  ResponseParser in;
  Request req;
  uint64_t items_in_req = 0;
  uint64_t t0 = 0;          // when the request's first byte was written
  uint64_t retry_at = 0;    // back-off after an error, so a dead server is not hammered
  Rng rng;
};

Worker::Worker(const Endpoint& ep, SigV4Signer& signer, const Settings& settings, int connections,
               uint64_t seed, int timeout_ms)
    : ep_(ep), signer_(signer), settings_(settings), timeout_ms_(timeout_ms) {
  epfd_ = epoll_create1(EPOLL_CLOEXEC);
  if (epfd_ < 0) throw std::runtime_error("epoll_create1 failed");
  for (int i = 0; i < connections; ++i) {
    auto c = std::make_unique<Conn>();
    c->rng.s = seed * 1000003ull + uint64_t(i) * 7919ull + 1;
    conns_.push_back(std::move(c));
  }
}

Worker::~Worker() {
  for (auto& c : conns_) CloseConn(*c);
  if (epfd_ >= 0) close(epfd_);
}

void Worker::CloseConn(Conn& c) {
  if (c.fd >= 0) close(c.fd);  // closing also drops the epoll registration
  c.fd = -1;
  c.watched = 0;
  c.st = Conn::St::kDown;
  c.in.Reset();
}

void Worker::Watch(Conn& c, uint32_t events) {
  if (c.watched == events) return;
  epoll_event ev{};
  ev.events = events;
  ev.data.ptr = &c;
  epoll_ctl(epfd_, c.watched ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, c.fd, &ev);
  c.watched = events;
}

void Worker::AddError(const Phase& p, std::string_view type) {
  std::string key(type);
  if (p.kind == Phase::kPreload) key = "preload:" + key;
  else if (p.kind == Phase::kWarmup) key = "warmup:" + key;
  ++stats_.errors[key];
}

void Worker::Connect(Conn& c, uint64_t now, const Phase& p) {
  c.fd = OpenSocket(ep_, true);
  if (c.fd < 0) {
    AddError(p, "ConnectFailed");
    c.retry_at = now + 10'000'000ull;
    return;
  }
  c.st = Conn::St::kConnecting;
  c.t0 = now;
  Watch(c, EPOLLOUT);
}

void Worker::Fail(Conn& c, const char* type, const Phase& p) {
  AddError(p, type);
  if (c.st == Conn::St::kSending || c.st == Conn::St::kWaiting) --in_flight_;
  CloseConn(c);
  c.retry_at = NowNs() + 10'000'000ull;
}

void Worker::Issue(Conn& c, const Phase& p, uint64_t now) {
  if (!issuing_) return;
  if (p.kind == Phase::kPreload) {
    uint64_t first = p.next_item->fetch_add(25);
    if (first >= p.total_items) {
      issuing_ = false;  // nothing left for anyone
      return;
    }
    int n = int(std::min<uint64_t>(25, p.total_items - first));
    PreloadRequest(settings_, first, n, c.rng, c.req);
    c.items_in_req = uint64_t(n);
  } else {
    NextRequest(p.workload, settings_, c.rng, c.req);
    c.items_in_req = p.workload == Workload::kBatchPut ? 25 : (c.req.is_read ? 0 : 1);
  }
  BuildRequest(c.out, signer_, ep_, c.req.op, c.req.body, std::time(nullptr));
  c.off = 0;
  c.t0 = now;
  ++in_flight_;
  ssize_t n = send(c.fd, c.out.data(), c.out.size(), MSG_NOSIGNAL);
  if (n < 0 && errno != EAGAIN) {
    c.st = Conn::St::kSending;
    Fail(c, "ConnectionReset", p);
    return;
  }
  c.off = n > 0 ? size_t(n) : 0;
  if (c.off == c.out.size()) {
    c.st = Conn::St::kWaiting;
    Watch(c, EPOLLIN);
  } else {
    c.st = Conn::St::kSending;
    Watch(c, EPOLLIN | EPOLLOUT);
  }
}

void Worker::Complete(Conn& c, const Phase& p) {
  uint64_t now = NowNs();
  --in_flight_;
  int status = c.in.status();
  std::string_view err;
  std::string type;
  if (status != 200) {
    type = ErrorType(status, c.in.body());
    err = type;
  } else {
    err = CheckResponse(c.req, c.in.body());
  }
  if (!err.empty()) {
    AddError(p, err);
  } else if (p.kind != Phase::kWarmup && now <= p.deadline_ns) {
    if (p.kind == Phase::kMeasure) stats_.hist.Record((now - c.t0) / 1000);
    ++stats_.ops;
    stats_.items += c.items_in_req;
  }
  bool close_after = c.in.close();
  c.in.Consume();
  if (close_after) {
    CloseConn(c);  // server chose to close: reconnect without counting an error
    return;
  }
  c.st = Conn::St::kIdle;
  if (now >= p.deadline_ns && p.kind != Phase::kPreload) issuing_ = false;
  Issue(c, p, now);
}

void Worker::OnEvent(Conn& c, uint32_t events, const Phase& p) {
  if (c.st == Conn::St::kConnecting) {
    int err = 0;
    socklen_t len = sizeof err;
    getsockopt(c.fd, SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0 || (events & (EPOLLERR | EPOLLHUP))) {
      Fail(c, "ConnectFailed", p);
      return;
    }
    c.st = Conn::St::kIdle;
    Watch(c, EPOLLIN);
    Issue(c, p, NowNs());
    return;
  }
  if (c.st == Conn::St::kSending && (events & EPOLLOUT)) {
    ssize_t n = send(c.fd, c.out.data() + c.off, c.out.size() - c.off, MSG_NOSIGNAL);
    if (n < 0 && errno != EAGAIN) {
      Fail(c, "ConnectionReset", p);
      return;
    }
    if (n > 0) c.off += size_t(n);
    if (c.off == c.out.size()) {
      c.st = Conn::St::kWaiting;
      Watch(c, EPOLLIN);
    }
  }
  if (events & (EPOLLIN | EPOLLERR | EPOLLHUP)) {
    if (c.st == Conn::St::kIdle) {  // a keep-alive connection closed by the server while idle
      CloseConn(c);
      return;
    }
    // Level-triggered: one read per wake-up; a whole response usually arrives in one segment.
    ssize_t n = recv(c.fd, c.in.WritePtr(65536), 65536, 0);
    if (n == 0) {
      Fail(c, "ConnectionClosed", p);
      return;
    }
    if (n < 0) {
      if (errno != EAGAIN && errno != EINTR) Fail(c, "ConnectionReset", p);
      return;
    }
    c.in.Commit(size_t(n));
    switch (c.in.Parse()) {
      case ResponseParser::kNeedMore:
        return;
      case ResponseParser::kBad:
        Fail(c, "BadHttpResponse", p);
        return;
      case ResponseParser::kDone:
        if (c.st != Conn::St::kWaiting) {  // response before the request was fully sent
          Fail(c, "EarlyResponse", p);
          return;
        }
        Complete(c, p);
        return;
    }
  }
}

void Worker::Run(const Phase& p) {
  issuing_ = true;
  in_flight_ = 0;
  const uint64_t timeout_ns = uint64_t(timeout_ms_) * 1000000ull;
  uint64_t now = NowNs();
  for (auto& c : conns_) {
    c->retry_at = 0;
    if (c->st == Conn::St::kIdle) {
      // Servers drop idle keep-alive connections (Node's default is after 5 s); between phases a
      // connection may have sat idle, so reopen it now rather than count the server's close as an
      // error of the next request.
      char b;
      ssize_t n = recv(c->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
      if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) CloseConn(*c);
    }
    if (c->st == Conn::St::kDown) Connect(*c, now, p);
    else if (c->st == Conn::St::kIdle) Issue(*c, p, now);
  }
  epoll_event events[64];
  uint64_t last_sweep = now;
  for (;;) {
    now = NowNs();
    if (p.kind != Phase::kPreload && now >= p.deadline_ns) issuing_ = false;
    if (p.kind == Phase::kPreload && now >= p.deadline_ns && issuing_) {
      AddError(p, "PreloadTimeLimit");
      issuing_ = false;
    }
    if (!issuing_ && in_flight_ == 0) break;
    if (!issuing_ && now >= p.deadline_ns + timeout_ns) break;

    int wait_ms = 10;
    if (issuing_ && p.kind != Phase::kPreload && p.deadline_ns > now)
      wait_ms = int(std::min<uint64_t>(10, (p.deadline_ns - now) / 1000000 + 1));
    int n = epoll_wait(epfd_, events, 64, wait_ms);
    for (int i = 0; i < n; ++i) OnEvent(*static_cast<Conn*>(events[i].data.ptr), events[i].events, p);

    // Every 10 ms: time out stuck requests, bring back connections that failed.
    now = NowNs();
    if (now - last_sweep < 10'000'000ull) continue;
    last_sweep = now;
    for (auto& cp : conns_) {
      Conn& c = *cp;
      bool busy = c.st == Conn::St::kSending || c.st == Conn::St::kWaiting;
      if ((busy || c.st == Conn::St::kConnecting) && now - c.t0 > timeout_ns) {
        Fail(c, busy ? "Timeout" : "ConnectTimeout", p);
      } else if (c.st == Conn::St::kDown && issuing_ && now >= c.retry_at) {
        Connect(c, now, p);
      } else if (c.st == Conn::St::kIdle && issuing_) {
        Issue(c, p, now);
      }
    }
  }
  // Anything still in flight after the grace period is abandoned: drop those connections.
  for (auto& c : conns_) {
    if (c->st == Conn::St::kSending || c->st == Conn::St::kWaiting) Fail(*c, "Timeout", p);
    if (c->st == Conn::St::kConnecting) CloseConn(*c);
  }
}

}  // namespace loadgen
