#include "http.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace loadgen {

namespace {

bool IEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = char(x + 32);
    if (y >= 'A' && y <= 'Z') y = char(y + 32);
    if (x != y) return false;
  }
  return true;
}

bool IContains(std::string_view hay, std::string_view needle) {
  for (size_t i = 0; i + needle.size() <= hay.size(); ++i)
    if (IEquals(hay.substr(i, needle.size()), needle)) return true;
  return false;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

constexpr size_t kMaxHeaderBytes = 64 * 1024;

}  // namespace

Endpoint ParseEndpoint(const std::string& url) {
  std::string_view u = url;
  if (u.substr(0, 7) != "http://") throw std::runtime_error("endpoint must be http://host:port");
  u.remove_prefix(7);
  if (auto slash = u.find('/'); slash != std::string_view::npos) u = u.substr(0, slash);
  auto colon = u.rfind(':');
  if (colon == std::string_view::npos) throw std::runtime_error("endpoint needs an explicit port");
  std::string host(u.substr(0, colon)), port(u.substr(colon + 1));
  if (host.size() > 2 && host.front() == '[') host = host.substr(1, host.size() - 2);
  addrinfo hints{}, *res = nullptr;
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  if (int rc = getaddrinfo(host.c_str(), port.c_str(), &hints, &res); rc != 0 || !res)
    throw std::runtime_error("cannot resolve " + host + ": " + gai_strerror(rc));
  Endpoint ep;
  std::memcpy(&ep.addr, res->ai_addr, res->ai_addrlen);
  ep.addr_len = res->ai_addrlen;
  freeaddrinfo(res);
  ep.host_header = std::string(u);
  return ep;
}

int OpenSocket(const Endpoint& ep, bool nonblocking) {
  int fd = socket(ep.addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC | (nonblocking ? SOCK_NONBLOCK : 0),
                  0);
  if (fd < 0) return -1;
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (connect(fd, reinterpret_cast<const sockaddr*>(&ep.addr), ep.addr_len) != 0 &&
      !(nonblocking && errno == EINPROGRESS)) {
    int saved = errno;
    close(fd);
    errno = saved;
    return -1;
  }
  return fd;
}

void BuildRequest(std::string& out, SigV4Signer& signer, const Endpoint& ep, std::string_view op,
                  std::string_view body, std::time_t now) {
  static constexpr std::string_view kType = "application/x-amz-json-1.0";
  char target[96];
  int n = std::snprintf(target, sizeof target, "DynamoDB_20120810.%.*s", int(op.size()), op.data());
  std::string_view tgt(target, size_t(n));
  out.clear();
  out += "POST / HTTP/1.1\r\nHost: ";
  out += ep.host_header;
  out += "\r\nContent-Type: ";
  out += kType;
  out += "\r\nX-Amz-Target: ";
  out += tgt;
  out += "\r\n";
  signer.AppendAuthHeaders(out, ep.host_header, tgt, kType, body, now);
  char cl[48];
  int m = std::snprintf(cl, sizeof cl, "Content-Length: %zu\r\n\r\n", body.size());
  out.append(cl, size_t(m));
  out += body;
}

char* ResponseParser::WritePtr(size_t want) {
  if (buf_.size() < len_ + want) buf_.resize(len_ + want);
  return buf_.data() + len_;
}

void ResponseParser::Reset() {
  len_ = 0;
  header_end_ = 0;
  status_ = 0;
  content_length_ = -1;
  chunked_ = close_ = false;
  total_ = 0;
  dechunked_.clear();
}

ResponseParser::Result ResponseParser::Parse() {
  std::string_view data(buf_.data(), len_);
  if (header_end_ == 0) {
    auto end = data.find("\r\n\r\n");
    if (end == std::string_view::npos) return len_ > kMaxHeaderBytes ? kBad : kNeedMore;
    header_end_ = end + 4;
    std::string_view head = data.substr(0, end);
    auto eol = head.find("\r\n");
    std::string_view status_line = head.substr(0, eol);
    if (status_line.size() < 12 || status_line.substr(0, 5) != "HTTP/") return kBad;
    status_ = std::atoi(std::string(status_line.substr(9, 3)).c_str());
    if (status_line.substr(0, 8) == "HTTP/1.0") close_ = true;
    while (eol != std::string_view::npos) {
      head.remove_prefix(eol + 2);
      eol = head.find("\r\n");
      std::string_view line = head.substr(0, eol);
      auto colon = line.find(':');
      if (colon == std::string_view::npos) continue;
      std::string_view name = Trim(line.substr(0, colon)), value = Trim(line.substr(colon + 1));
      if (IEquals(name, "content-length")) content_length_ = std::atoll(std::string(value).c_str());
      else if (IEquals(name, "transfer-encoding")) chunked_ = IContains(value, "chunked");
      else if (IEquals(name, "connection")) close_ = IContains(value, "close");
    }
    if (!chunked_ && content_length_ < 0) {
      if (status_ == 204 || status_ == 304) content_length_ = 0;
      else return kBad;  // close-delimited bodies: none of the servers under test send them
    }
  }
  if (chunked_) return ParseChunked();
  total_ = header_end_ + size_t(content_length_);
  return len_ >= total_ ? kDone : kNeedMore;
}

ResponseParser::Result ResponseParser::ParseChunked() {
  // Bodies are small, so re-scan from the start of the body on each call rather than keep state.
  dechunked_.clear();
  size_t pos = header_end_;
  std::string_view data(buf_.data(), len_);
  for (;;) {
    auto eol = data.find("\r\n", pos);
    if (eol == std::string_view::npos) return kNeedMore;
    size_t size = std::strtoull(std::string(data.substr(pos, eol - pos)).c_str(), nullptr, 16);
    pos = eol + 2;
    if (size == 0) {
      // Trailers (normally none) end with an empty line.
      for (;;) {
        auto e = data.find("\r\n", pos);
        if (e == std::string_view::npos) return kNeedMore;
        bool empty = e == pos;
        pos = e + 2;
        if (empty) break;
      }
      total_ = pos;
      return kDone;
    }
    if (len_ < pos + size + 2) return kNeedMore;
    dechunked_.append(data.data() + pos, size);
    pos += size + 2;
  }
}

std::string_view ResponseParser::body() const {
  if (chunked_) return dechunked_;
  return std::string_view(buf_.data() + header_end_, size_t(content_length_));
}

void ResponseParser::Consume() {
  size_t rest = len_ > total_ ? len_ - total_ : 0;
  if (rest) std::memmove(buf_.data(), buf_.data() + total_, rest);
  Reset();
  len_ = rest;
}

std::string ErrorType(int status, std::string_view body) {
  auto k = body.find("\"__type\"");
  if (k != std::string_view::npos) {
    auto q1 = body.find('"', body.find(':', k + 8) + 1);
    auto q2 = q1 == std::string_view::npos ? q1 : body.find('"', q1 + 1);
    if (q2 != std::string_view::npos) {
      std::string_view t = body.substr(q1 + 1, q2 - q1 - 1);
      if (auto h = t.rfind('#'); h != std::string_view::npos) t.remove_prefix(h + 1);
      if (!t.empty()) return std::string(t);
    }
  }
  return "HTTP_" + std::to_string(status);
}

int64_t JsonIntField(std::string_view body, std::string_view key) {
  std::string pat;
  pat.reserve(key.size() + 2);
  pat += '"';
  pat += key;
  pat += '"';
  auto k = body.find(pat);
  if (k == std::string_view::npos) return -1;
  size_t i = k + pat.size();
  while (i < body.size() && (body[i] == ' ' || body[i] == ':' || body[i] == '\n')) ++i;
  if (i >= body.size() || body[i] < '0' || body[i] > '9') return -1;
  int64_t v = 0;
  while (i < body.size() && body[i] >= '0' && body[i] <= '9') v = v * 10 + (body[i++] - '0');
  return v;
}

BlockingClient::BlockingClient(const Endpoint& ep, SigV4Signer& signer, int timeout_ms)
    : ep_(ep), signer_(signer), timeout_ms_(timeout_ms) {}

BlockingClient::~BlockingClient() { Close(); }

void BlockingClient::Close() {
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
  parser_.Reset();
}

bool BlockingClient::Ensure() {
  if (fd_ >= 0) return true;
  fd_ = OpenSocket(ep_, false);
  if (fd_ < 0) return false;
  timeval tv{timeout_ms_ / 1000, (timeout_ms_ % 1000) * 1000};
  setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  return true;
}

int BlockingClient::Call(std::string_view op, std::string_view body, std::string& out) {
  // One retry on a fresh connection covers a keep-alive connection the server closed while idle.
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (!Ensure()) {
      out = std::string("connect: ") + std::strerror(errno);
      return 0;
    }
    BuildRequest(req_, signer_, ep_, op, body, std::time(nullptr));
    size_t off = 0;
    bool failed = false;
    while (off < req_.size()) {
      ssize_t n = send(fd_, req_.data() + off, req_.size() - off, MSG_NOSIGNAL);
      if (n <= 0) { failed = true; break; }
      off += size_t(n);
    }
    while (!failed) {
      ResponseParser::Result r = parser_.Parse();
      if (r == ResponseParser::kDone) {
        int status = parser_.status();
        out.assign(parser_.body());
        bool close_after = parser_.close();
        parser_.Consume();
        if (close_after) Close();
        return status;
      }
      if (r == ResponseParser::kBad) { failed = true; break; }
      ssize_t n = recv(fd_, parser_.WritePtr(16384), 16384, 0);
      if (n <= 0) { failed = true; break; }
      parser_.Commit(size_t(n));
    }
    out = std::string("connection failed: ") + std::strerror(errno);
    Close();
  }
  return 0;
}

}  // namespace loadgen
