// ComputeSplitPointsBySize: where to cut a table into ranges of about `split_size` units of
// `split_size_unit_in_byte` bytes (100 MB when absent), for readers that scan it in parallel.
// Each split point is a PlainBuffer row holding the first primary-key column only (the SDKs pad
// the other columns with INF_MIN); one location hint covers every range.
#include <limits>

#include "ops/split_points.h"
#include "tablestore/handlers.h"
#include "tablestore/row_request.h"
#include "tablestore/tablestore.pb.h"

namespace ttlstore::tablestore {
namespace {

namespace pb = ::ttlstore::otspb;

constexpr int64_t kDefaultSplitUnitBytes = 100LL * 1024 * 1024;
constexpr int64_t kMinSplitUnitBytes = 1024 * 1024;
// Where every range lives: one server, so one location, 32 hex digits long as the service's are
// (the Java SDK's function test checks the length of each split's location).
constexpr const char* kLocation = "00000000000000000000000000000001";

}  // namespace

Result<std::string> ComputeSplitPointsBySize(const Services& s, std::string_view body) {
  pb::ComputeSplitPointsBySizeRequest req;
  RETURN_IF_ERROR(ParseMessage(body, &req));
  ASSIGN_OR_RETURN(table, FindTable(s, req.table_name()));
  // The service's texts and its smallest unit, 1 MiB (the Java SDK's function test
  // TestComputeSplitPointsBySize.testInvalidParam asserts them; docs/tablestore.md).
  if (!req.has_split_size() || req.split_size() <= 0) {
    return Error::Validation("The split_size should be greater than 0.");
  }
  int64_t unit = kDefaultSplitUnitBytes;
  if (req.has_split_size_unit_in_byte()) {
    if (req.split_size_unit_in_byte() < kMinSplitUnitBytes) {
      return Error::Validation("The split_size_unit_in_byte should be greater equal than: " +
                               std::to_string(kMinSplitUnitBytes));
    }
    unit = req.split_size_unit_in_byte();
  }
  size_t max_points = ops::kMaxSplitPoints;
  if (req.has_split_point_limit()) {
    if (req.split_point_limit() <= 0) {
      return Error::Validation("Invalid split point limit: " +
                               std::to_string(req.split_point_limit()) +
                               ", it must be greater than 0.");
    }
    max_points = static_cast<size_t>(req.split_point_limit());
  }
  // Saturates instead of overflowing: a size past what any table holds means "one range".
  uint64_t split_bytes = static_cast<uint64_t>(req.split_size());
  if (split_bytes > std::numeric_limits<uint64_t>::max() / static_cast<uint64_t>(unit)) {
    split_bytes = std::numeric_limits<uint64_t>::max();
  } else {
    split_bytes *= static_cast<uint64_t>(unit);
  }
  ASSIGN_OR_RETURN(points, s.rows.SplitPoints(*table, split_bytes, max_points));

  pb::ComputeSplitPointsBySizeResponse resp;
  // Ours: the service does not publish what the call costs; it reads no row data for the
  // caller, so it reports the smallest read.
  FillConsumed(1, 0, resp.mutable_consumed());
  for (const auto& pk : table->tablestore->primary_key) {
    auto* col = resp.add_schema();
    col->set_name(pk.name);
    col->set_type(static_cast<pb::PrimaryKeyType>(pk.type));
    if (pk.auto_increment) col->set_option(pb::AUTO_INCREMENT);
  }
  for (auto& point : points) {
    PbRow row;
    PbCell cell;
    cell.name = std::move(point.name);
    cell.value = std::move(point.value);
    row.primary_key.push_back(std::move(cell));
    resp.add_split_points(EncodeRow(row));
  }
  auto* location = resp.add_locations();
  location->set_location(kLocation);
  location->set_repeat(static_cast<int64_t>(points.size()) + 1);
  return Serialize(resp);
}

}  // namespace ttlstore::tablestore
