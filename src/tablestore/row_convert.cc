#include "tablestore/row_convert.h"

#include <cmath>

#include "tablestore/ots_error.h"

namespace ttlstore::tablestore {
namespace {

using model::CellType;

// Tablestore's limits on names and values (docs/limits.md).
constexpr size_t kMaxColumnNameBytes = 255;
constexpr size_t kMaxPkValueBytes = 1024;
constexpr size_t kMaxColumnValueBytes = 2u << 20;
constexpr size_t kMaxColumnsPerRow = 1024;

// A column name is 1-255 bytes of anything but a leading '#' (the Java SDK's
// ParameterLegalityTest: "#", "#abc", "# " refused; "公司", ".", "$", a space, "\n" accepted).
Status CheckName(const std::string& name) {
  if (name.empty() || name.size() > kMaxColumnNameBytes || name.front() == '#') {
    return Error::Validation("Invalid column name: '" + EchoForError(name) + "'.");
  }
  return Status::Ok();
}

Status CheckColumnCount(size_t count) {
  if (count > kMaxColumnsPerRow) {
    return Error::Validation("The number of attribute columns exceeds the limit, limit count: " +
                             std::to_string(kMaxColumnsPerRow) +
                             ", column count: " + std::to_string(count) + ".");
  }
  return Status::Ok();
}

size_t ValueSize(const model::CellValue& v) {
  switch (v.type) {
    case CellType::kInteger:
    case CellType::kDouble:
    case CellType::kAutoIncrement: return 8;  // the INTEGER it becomes
    case CellType::kBoolean: return 1;
    case CellType::kString:
    case CellType::kBlob: return v.bytes.size();
    default: return 0;
  }
}

bool IsInf(CellType t) { return t == CellType::kInfMin || t == CellType::kInfMax; }

// INF_MIN / INF_MAX in a row's key rather than a range bound: the service's text (the Java SDK's
// ParameterLegalityTest, testInfMinMaxInPK).
Error InfInKey(CellType t) {
  return Error::Validation(std::string(t == CellType::kInfMin ? "VT_INF_MIN" : "VT_INF_MAX") +
                           " is an invalid type for the primary key.");
}

// What a key is for: where the AUTO_INCREMENT placeholder may appear (docs/tablestore.md,
// "Auto-increment primary keys") and where INF_MIN / INF_MAX may.
enum class KeyUse { kRead, kBound, kWrite, kDelete };

Result<std::vector<versions::PkCell>> KeyOf(const PbRow& row, KeyUse use) {
  if (row.primary_key.empty()) return Error::Validation("Cell data broken, empty PK.");
  const bool bound = use == KeyUse::kBound;
  size_t placeholders = 0;
  std::vector<versions::PkCell> pk;
  pk.reserve(row.primary_key.size());
  for (const auto& c : row.primary_key) {
    RETURN_IF_ERROR(CheckName(c.name));
    // The service's messages (its error-code page), spacing included.
    if (c.op != CellOp::kNone) {
      return Error::Validation("OpType cannot be given for primary key name :" + c.name + ".");
    }
    if (c.timestamp) {
      return Error::Validation("Timestamp cannot be given for primary key name:" + c.name + ".");
    }
    if (!c.value) {
      return Error::Validation("No value is given for primary key name:" + c.name + ".");
    }
    CellType t = c.value->type;
    if (!bound && IsInf(t)) return InfInKey(t);
    bool ok = t == CellType::kInteger || t == CellType::kString || t == CellType::kBlob ||
              (bound && (t == CellType::kInfMin || t == CellType::kInfMax));
    if (t == CellType::kAutoIncrement) {
      // The service's messages (its error-code page).
      if (use == KeyUse::kRead || use == KeyUse::kBound) {
        return Error::Validation("PKAutoIncr can't be used for read operations.");
      }
      if (use == KeyUse::kDelete) {
        return Error::Validation("Invalid row to delete which with pk auto increment.");
      }
      ++placeholders;
      ok = true;
    }
    if (!ok) {
      return Error::Validation("Invalid type of primary key column: " + c.name + ".");
    }
    if (c.value->bytes.size() > kMaxPkValueBytes) {
      return Error::Validation("The length of primary key column: '" + c.name +
                               "' exceeds the MaxLength:1024 with CurrentLength:" +
                               std::to_string(c.value->bytes.size()) + ".");
    }
    pk.push_back({c.name, *c.value});
  }
  if (placeholders > 1) {
    return Error::Validation(std::to_string(placeholders) + " pk auto increment exist in row.");
  }
  return pk;
}

Status CheckAttributeValue(const PbCell& c) {
  CellType t = c.value->type;
  if (t != CellType::kInteger && t != CellType::kDouble && t != CellType::kBoolean &&
      t != CellType::kString && t != CellType::kBlob) {
    return Error::Validation("Invalid type of column: " + c.name + ".");
  }
  if (t == CellType::kDouble && std::isnan(c.value->dbl)) {
    return Error::Validation("NaN can't be set to double value.");
  }
  if (t == CellType::kDouble && std::isinf(c.value->dbl)) {
    return Error::Validation("Infinity can't be set to double value.");
  }
  if (c.value->bytes.size() > kMaxColumnValueBytes) {
    return Error::Validation("The length of attribute column: '" + c.name +
                             "' exceeds the MaxLength:2097152 with CurrentLength:" +
                             std::to_string(c.value->bytes.size()) + ".");
  }
  return Status::Ok();
}

Status CheckTimestamp(const PbCell& c) {
  if (c.timestamp && (*c.timestamp < 0 || *c.timestamp >= INT64_MAX / 1000)) {
    return Error::Validation("Timestamp must be in range [0, INT64_MAX/1000).");
  }
  return Status::Ok();
}

// The service's texts: a single read and GetRange say less than BatchGetRow (the Java SDK's
// ParameterLegalityTest.testNoVersionCondition).
std::string NoVersionMessage(bool batch) {
  return batch ? "No version condition is specified while querying row."
               : "No version condition is specified.";
}

}  // namespace

Result<std::vector<versions::PkCell>> PrimaryKeyOf(const PbRow& row) {
  return KeyOf(row, KeyUse::kRead);
}
Result<std::vector<versions::PkCell>> BoundOf(const PbRow& row) {
  return KeyOf(row, KeyUse::kBound);
}

Result<ops::RowChange> PutChangeOf(const PbRow& row) {
  ops::RowChange change;
  change.kind = ops::RowChange::Kind::kPut;
  ASSIGN_OR_RETURN(pk, KeyOf(row, KeyUse::kWrite));
  change.primary_key = std::move(pk);
  RETURN_IF_ERROR(CheckColumnCount(row.attributes.size()));
  for (const auto& c : row.attributes) {
    RETURN_IF_ERROR(CheckName(c.name));
    if (c.op != CellOp::kNone) {
      return Error::Validation("OpType cannot be given for column name:" + c.name + " in PutRow.");
    }
    if (!c.value) return Error::Validation("Column value must be given for column: " + c.name + ".");
    RETURN_IF_ERROR(CheckAttributeValue(c));
    RETURN_IF_ERROR(CheckTimestamp(c));
    change.cells.push_back({ops::CellChange::Kind::kPut, c.name, *c.value, c.timestamp});
  }
  return change;
}

Result<ops::RowChange> UpdateChangeOf(const PbRow& row) {
  ops::RowChange change;
  change.kind = ops::RowChange::Kind::kUpdate;
  ASSIGN_OR_RETURN(pk, KeyOf(row, KeyUse::kWrite));
  change.primary_key = std::move(pk);
  RETURN_IF_ERROR(CheckColumnCount(row.attributes.size()));
  for (const auto& c : row.attributes) {
    RETURN_IF_ERROR(CheckName(c.name));
    ops::CellChange cell;
    cell.column = c.name;
    switch (c.op) {
      case CellOp::kNone:
        if (!c.value) {
          return Error::Validation("Column value must be given for column: " + c.name + ".");
        }
        RETURN_IF_ERROR(CheckAttributeValue(c));
        RETURN_IF_ERROR(CheckTimestamp(c));
        cell.kind = ops::CellChange::Kind::kPut;
        cell.value = *c.value;
        cell.timestamp_ms = c.timestamp;
        break;
      case CellOp::kDeleteOneVersion:
        if (c.value) {
          return Error::Validation(
              "Column value cannot be given when type is DELETE_ONE_VERSION,DELETE_ALL_VERSION.");
        }
        if (!c.timestamp) {
          return Error::Validation("Timestamp must be given when type is DELETE_ONE_VERSION.");
        }
        RETURN_IF_ERROR(CheckTimestamp(c));
        cell.kind = ops::CellChange::Kind::kDeleteOneVersion;
        cell.timestamp_ms = c.timestamp;
        break;
      case CellOp::kDeleteAllVersions:
        if (c.value) {
          return Error::Validation(
              "Column value cannot be given when type is DELETE_ONE_VERSION,DELETE_ALL_VERSION.");
        }
        if (c.timestamp) {
          return Error::Validation("Timestamp cannot be given when type is DELETE_ALL_VERSION.");
        }
        cell.kind = ops::CellChange::Kind::kDeleteAllVersions;
        break;
      case CellOp::kIncrement:
        if (!c.value || c.value->type != CellType::kInteger) {
          return Error::Validation("Column value of INCREMENT must be an INTEGER. Column:" +
                                   c.name + ".");
        }
        if (c.timestamp) {
          return Error::Validation("Timestamp cannot be given when type is INCREMENT.");
        }
        cell.kind = ops::CellChange::Kind::kIncrement;
        cell.value = *c.value;
        break;
    }
    change.cells.push_back(std::move(cell));
  }
  return change;
}

Result<ops::RowChange> DeleteChangeOf(const PbRow& row) {
  ops::RowChange change;
  change.kind = ops::RowChange::Kind::kDelete;
  ASSIGN_OR_RETURN(pk, KeyOf(row, KeyUse::kDelete));
  change.primary_key = std::move(pk);
  if (!row.attributes.empty()) {
    return Error::Validation("Invalid delete row request: unexpected cells in request.");
  }
  return change;
}

Result<versions::ReadSpec> ReadSpecOf(std::optional<int32_t> max_versions,
                                      const std::optional<TimeRangeArg>& time_range,
                                      const std::vector<std::string>& columns_to_get,
                                      bool range_op, bool batch) {
  if (columns_to_get.size() > kMaxColumnsPerRow) {
    return Error::Validation(
        "The number of columns from the request exceeds the limit, limit count: 1024, column "
        "count: " + std::to_string(columns_to_get.size()) + ".");
  }
  versions::ReadSpec spec;
  spec.columns = columns_to_get;
  if (!max_versions && !time_range) return Error::Validation(NoVersionMessage(batch));
  // max_versions beside a [start, end) range is accepted (the Node SDK sends it with every time
  // range; the Go SDK's TestGetRange expects success); beside specific_time it is refused below.
  if (max_versions) {
    if (*max_versions <= 0) {
      return Error::Validation("Invalid max versions: " + std::to_string(*max_versions) +
                               ". Reason: Max versions must be positive.");
    }
    spec.max_versions = *max_versions;
  } else {
    spec.max_versions = 0;  // a time range alone returns every version in it
  }
  if (time_range) {
    const auto& tr = *time_range;
    if (tr.specific) {
      // The service's text, typo included (aliyun-tablestore-nodejs-sdk issue #58 quotes it for
      // GetRow; the Go SDK's TestGetRange expects the refusal for GetRange).
      if (max_versions) {
        return Error::Validation(
            "Specific tiemstamp and max versions cannot be given at the same time.");
      }
      if (*tr.specific < 0) return Error::Validation("Specific timestamp cannot be less than 0.");
      spec.start_ms = *tr.specific;
      spec.end_ms = *tr.specific == INT64_MAX ? INT64_MAX : *tr.specific + 1;
    } else if (tr.start || tr.end) {
      if (!tr.start || !tr.end) {
        return Error::Validation(range_op ? "Start and end time must be given at the same time."
                                          : "Start time and end time must be given at the same time.");
      }
      if (*tr.start < 0 || *tr.end <= *tr.start) {
        return Error::Validation("Invalid time range: [" + std::to_string(*tr.start) + ", " +
                                 std::to_string(*tr.end) + ").");
      }
      spec.start_ms = *tr.start;
      spec.end_ms = *tr.end;
    } else if (!max_versions) {
      return Error::Validation(NoVersionMessage(batch));
    }
  }
  return spec;
}

size_t RowDataSize(const PbRow& row) {
  size_t size = 0;
  for (const auto* cells : {&row.primary_key, &row.attributes}) {
    for (const auto& c : *cells) {
      size += c.name.size() + (c.value ? ValueSize(*c.value) : 0);
      // A timestamp the request gives counts 8 bytes (the Java SDK's RestrictedItemTest sums
      // 4,194,305 bytes for three rows only with it).
      if (c.timestamp) size += 8;
    }
  }
  return size;
}

Status CheckRowShape(const PbRow& row) {
  for (const auto* cells : {&row.primary_key, &row.attributes}) {
    for (const auto& c : *cells) RETURN_IF_ERROR(CheckName(c.name));
  }
  for (const auto& c : row.primary_key) {
    if (c.value && IsInf(c.value->type)) return InfInKey(c.value->type);
  }
  return Status::Ok();
}

Status CheckColumnNames(const std::vector<std::string>& names) {
  for (const auto& n : names) RETURN_IF_ERROR(CheckName(n));
  return Status::Ok();
}

Status CheckRequestDataSize(std::string_view operation, size_t data_size) {
  if (data_size > kMaxRequestDataBytes) {
    return Error::Validation("The total data size of " + std::string(operation) +
                             " request exceeds the limit, limit size: " +
                             std::to_string(kMaxRequestDataBytes) +
                             ", data size: " + std::to_string(data_size) + ".");
  }
  return Status::Ok();
}

PbRow ToPbKey(const std::vector<versions::PkCell>& pk) {
  PbRow row;
  row.primary_key.reserve(pk.size());
  for (const auto& c : pk) {
    PbCell cell;
    cell.name = c.name;
    cell.value = c.value;
    row.primary_key.push_back(std::move(cell));
  }
  return row;
}

PbRow ToPbRow(const ops::RowView& view) {
  PbRow row = ToPbKey(view.primary_key);
  for (const auto& col : view.columns) {
    for (const auto& v : col.versions) {
      PbCell cell;
      cell.name = col.name;
      cell.value = v.value;
      cell.timestamp = v.timestamp_ms;
      row.attributes.push_back(std::move(cell));
    }
  }
  return row;
}

}  // namespace ttlstore::tablestore
