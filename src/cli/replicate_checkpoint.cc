#include "cli/replicate_checkpoint.h"

#include <fcntl.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "client/json.h"

namespace ttlstore::cli {
namespace {

namespace json = boost::json;

// A checkpoint names a few thousand shards at most; anything far larger is not ours.
constexpr uintmax_t kMaxCheckpointBytes = 64 << 20;

Error Corrupt(const std::string& why) {
  return Error(ErrorCode::kSerialization, "checkpoint is not one replicate wrote: " + why);
}

Status WriteAll(int fd, const std::string& data) {
  size_t off = 0;
  while (off < data.size()) {
    ssize_t n = ::write(fd, data.data() + off, data.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error(ErrorCode::kInternal, std::strerror(errno));
    off += static_cast<size_t>(n);
  }
  return Status::Ok();
}

}  // namespace

std::string ReplicateCheckpoint::Encode() const {
  json::object o;
  o["version"] = kVersion;
  o["source_url"] = source_url;
  o["source_table"] = source_table;
  o["target_url"] = target_url;
  o["target_table"] = target_table;
  o["stream_arn"] = stream_arn;
  o["copy_done"] = copy_done;
  o["items_copied"] = items_copied;
  o["records_applied"] = records_applied;
  json::array segs;
  for (const auto& s : segments) {
    json::object so;
    so["done"] = s.done;
    so["last_key"] = s.last_key;
    so["items"] = s.items;
    segs.push_back(std::move(so));
  }
  o["segments"] = std::move(segs);
  json::object shard_obj;
  for (const auto& [id, st] : shards) {
    json::object so;
    so["after"] = st.after;
    so["finished"] = st.finished;
    shard_obj[id] = std::move(so);
  }
  o["shards"] = std::move(shard_obj);
  return json::serialize(o) + "\n";
}

Result<ReplicateCheckpoint> ReplicateCheckpoint::Decode(std::string_view text) {
  auto doc = client::ParseJson(text);
  if (!doc) return Corrupt(doc.error().message());
  const json::object* o = doc->if_object();
  if (!o) return Corrupt("not a JSON object");
  auto str = [&](const json::object& obj, const char* key, std::string* out) {
    const json::value* v = obj.if_contains(key);
    if (!v || !v->is_string()) return false;
    *out = std::string(v->as_string());
    return true;
  };
  auto num = [&](const json::object& obj, const char* key, int64_t* out) {
    const json::value* v = obj.if_contains(key);
    if (!v || !v->is_int64()) return false;
    *out = v->as_int64();
    return true;
  };
  auto flag = [&](const json::object& obj, const char* key, bool* out) {
    const json::value* v = obj.if_contains(key);
    if (!v || !v->is_bool()) return false;
    *out = v->as_bool();
    return true;
  };
  int64_t version = 0;
  if (!num(*o, "version", &version) || version != kVersion) return Corrupt("unknown version");
  ReplicateCheckpoint c;
  if (!str(*o, "source_url", &c.source_url) || !str(*o, "source_table", &c.source_table) ||
      !str(*o, "target_url", &c.target_url) || !str(*o, "target_table", &c.target_table) ||
      !str(*o, "stream_arn", &c.stream_arn) || !flag(*o, "copy_done", &c.copy_done) ||
      !num(*o, "items_copied", &c.items_copied) ||
      !num(*o, "records_applied", &c.records_applied)) {
    return Corrupt("a field is missing or of the wrong type");
  }
  const json::value* segs = o->if_contains("segments");
  if (!segs || !segs->is_array()) return Corrupt("no segments");
  for (const json::value& sv : segs->as_array()) {
    const json::object* so = sv.if_object();
    SegmentState s;
    if (!so || !flag(*so, "done", &s.done) || !num(*so, "items", &s.items)) {
      return Corrupt("a segment is malformed");
    }
    const json::value* key = so->if_contains("last_key");
    if (!key || !(key->is_null() || key->is_object())) return Corrupt("a segment's key is malformed");
    s.last_key = *key;
    c.segments.push_back(std::move(s));
  }
  const json::value* shards = o->if_contains("shards");
  if (!shards || !shards->is_object()) return Corrupt("no shards");
  for (const auto& kv : shards->as_object()) {
    const json::object* so = kv.value().if_object();
    ShardState st;
    if (!so || !str(*so, "after", &st.after) || !flag(*so, "finished", &st.finished)) {
      return Corrupt("a shard is malformed");
    }
    c.shards.emplace(std::string(kv.key()), std::move(st));
  }
  return c;
}

Status ReplicateCheckpoint::Save(const std::string& path) const {
  std::string tmp = path + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    return Error(ErrorCode::kInternal, "cannot write checkpoint " + tmp + ": " + std::strerror(errno));
  }
  Status s = WriteAll(fd, Encode());
  if (s && ::fsync(fd) != 0) s = Error(ErrorCode::kInternal, std::strerror(errno));
  ::close(fd);
  if (!s) return Error(ErrorCode::kInternal, "cannot write checkpoint " + tmp + ": " + s.error().message());
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    return Error(ErrorCode::kInternal, "cannot rename " + tmp + ": " + std::strerror(errno));
  }
  // The rename is durable once the folder's entry is.
  std::string dir = std::filesystem::path(path).parent_path().string();
  int dfd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    (void)::fsync(dfd);
    ::close(dfd);
  }
  return Status::Ok();
}

Result<std::optional<ReplicateCheckpoint>> ReplicateCheckpoint::Load(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::optional<ReplicateCheckpoint>();
  uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec || size > kMaxCheckpointBytes) {
    return Error(ErrorCode::kInternal, "cannot read checkpoint " + path);
  }
  std::ifstream in(path, std::ios::binary);
  std::stringstream buf;
  buf << in.rdbuf();
  if (!in && !in.eof()) return Error(ErrorCode::kInternal, "cannot read checkpoint " + path);
  auto c = Decode(buf.str());
  if (!c) return Error(c.error().code(), path + ": " + c.error().message());
  return std::optional<ReplicateCheckpoint>(std::move(*c));
}

}  // namespace ttlstore::cli
