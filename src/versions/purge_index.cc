#include "versions/purge_index.h"

#include <algorithm>

#include "common/coding.h"

namespace ttlstore::versions {
namespace {

// Layout (persisted; docs/formats.md): table id (4 bytes BE) . kind . sort field . the row
// key without its table id.
//   kind 'A' (age):   sort field = age bucket, 8 bytes BE with the sign bit flipped
//   kind 'C' (count): sort field = most versions any column keeps, 4 bytes BE
constexpr char kAge = 'A';
constexpr char kCount = 'C';
constexpr size_t kTableIdBytes = 4;

std::string Prefix(uint32_t table_id, char kind) {
  std::string out;
  PutFixed32BE(&out, table_id);
  out.push_back(kind);
  return out;
}

void PutBucket(std::string* out, int64_t bucket) {
  PutFixed64BE(out, static_cast<uint64_t>(bucket) ^ (uint64_t{1} << 63));
}

}  // namespace

int64_t AgeBucket(int64_t timestamp_ms) {
  int64_t q = timestamp_ms / kAgeBucketMs;
  return (timestamp_ms % kAgeBucketMs < 0) ? q - 1 : q;
}

std::vector<std::string> MarksOf(std::string_view row_key, const StoredRow& row) {
  std::vector<std::string> marks;
  if (row.columns.empty() || row_key.size() < kTableIdBytes) return marks;
  uint32_t table_id;
  std::string_view in = row_key;
  GetFixed32BE(&in, &table_id);
  int64_t oldest = INT64_MAX;
  size_t most = 0;
  for (const auto& c : row.columns) {
    // Newest first: the last version is the column's oldest.
    if (!c.versions.empty()) oldest = std::min(oldest, c.versions.back().timestamp_ms);
    most = std::max(most, c.versions.size());
  }
  if (oldest != INT64_MAX) {
    std::string age = Prefix(table_id, kAge);
    PutBucket(&age, AgeBucket(oldest));
    age.append(in);
    marks.push_back(std::move(age));
  }
  if (most > 1) {
    std::string count = Prefix(table_id, kCount);
    PutFixed32BE(&count, static_cast<uint32_t>(std::min<size_t>(most, UINT32_MAX)));
    count.append(in);
    marks.push_back(std::move(count));
  }
  std::sort(marks.begin(), marks.end());
  return marks;
}

std::string AgeMarksBegin(uint32_t table_id) { return Prefix(table_id, kAge); }

std::string AgeMarksEnd(uint32_t table_id, int64_t cutoff_ms) {
  // Bucket b ends at (b + 1) * width <= cutoff  <=>  b < floor(cutoff / width).
  std::string out = Prefix(table_id, kAge);
  PutBucket(&out, AgeBucket(cutoff_ms));
  return out;
}

std::string CountMarksBegin(uint32_t table_id, int32_t max_versions) {
  std::string out = Prefix(table_id, kCount);
  PutFixed32BE(&out, static_cast<uint32_t>(std::max(max_versions, 0)) + 1);
  return out;
}

std::string CountMarksEnd(uint32_t table_id) { return Prefix(table_id, kCount + 1); }

std::string TableMarksBegin(uint32_t table_id) {
  std::string out;
  PutFixed32BE(&out, table_id);
  return out;
}

std::string TableMarksEnd(uint32_t table_id) {
  std::string out;
  PutFixed32BE(&out, table_id + 1);
  return out;
}

bool RowKeyOfMark(std::string_view mark, std::string* row_key) {
  if (mark.size() < kTableIdBytes + 1) return false;
  size_t field;
  switch (mark[kTableIdBytes]) {
    case kAge: field = 8; break;
    case kCount: field = 4; break;
    default: return false;
  }
  if (mark.size() < kTableIdBytes + 1 + field) return false;
  row_key->assign(mark.substr(0, kTableIdBytes));
  row_key->append(mark.substr(kTableIdBytes + 1 + field));
  return true;
}

std::string IndexBuiltKey() {
  std::string out;
  PutFixed32BE(&out, 0);
  out.append("index-built");
  return out;
}

}  // namespace ttlstore::versions
