#include "ops/split_points.h"

#include <algorithm>

namespace ttlstore::ops {

bool SplitPointPicker::Add(std::string_view first, uint64_t row_bytes) {
  bool starts = false;
  if (in_range_ >= split_bytes_ && points_ < max_points_ && last_first_ && *last_first_ != first) {
    starts = true;
    ++points_;
    in_range_ = 0;
  }
  in_range_ += row_bytes;
  if (!last_first_ || *last_first_ != first) last_first_ = std::string(first);
  return starts;
}

namespace {

// A comparable form of a primary-key value: type byte, then the payload.
std::string FirstKey(const model::CellValue& v) {
  std::string out(1, static_cast<char>(v.type));
  if (v.type == model::CellType::kInteger) {
    out.append(reinterpret_cast<const char*>(&v.integer), sizeof v.integer);
  } else {
    out += v.bytes;
  }
  return out;
}

}  // namespace

Result<std::vector<versions::PkCell>> ComputeSplitPoints(const storage::Store& store,
                                                         const model::TableDescriptor& table,
                                                         uint64_t split_bytes,
                                                         size_t max_points) {
  const auto& schema = table.tablestore->primary_key;
  max_points = std::min(max_points, kMaxSplitPoints);
  const std::string begin = versions::TableRowsBegin(table.id);
  const std::string end = versions::TableRowsEnd(table.id);
  // Few points asked for: widen the ranges so that the points spread over the whole table
  // instead of stopping early (one extra pass for the total).
  uint64_t total = 0;
  {
    auto it = store.ScanFamily(storage::Family::kRows, begin, end, false, nullptr);
    for (; it->Valid(); it->Next()) total += it->key().size() + it->value().size();
    if (!it->status()) return it->status().error();
  }
  if (max_points == 0 || total <= split_bytes) return std::vector<versions::PkCell>{};
  split_bytes = std::max<uint64_t>(split_bytes, total / (max_points + 1) + 1);
  SplitPointPicker picker(split_bytes, max_points);
  std::vector<versions::PkCell> points;
  auto it = store.ScanFamily(storage::Family::kRows, begin, end, false, nullptr);
  for (; it->Valid(); it->Next()) {
    std::vector<versions::PkCell> pk;
    if (!versions::DecodeRowKey(it->key(), schema, &pk) || pk.empty()) {
      return Error::Internal("corrupt row key in the rows family");
    }
    if (picker.Add(FirstKey(pk[0].value), it->key().size() + it->value().size())) {
      points.push_back(std::move(pk[0]));
    }
  }
  if (!it->status()) return it->status().error();
  return points;
}

}  // namespace ttlstore::ops
