#include "tablestore/row_request.h"

namespace ttlstore::tablestore {

Status ApplyCondition(const otspb::Condition* condition, ops::RowChange* change) {
  change->condition = ops::RowExistence::kIgnore;
  change->column_condition.reset();
  if (!condition) return Status::Ok();
  switch (condition->row_existence()) {
    case otspb::IGNORE: change->condition = ops::RowExistence::kIgnore; break;
    case otspb::EXPECT_EXIST: change->condition = ops::RowExistence::kExpectExist; break;
    case otspb::EXPECT_NOT_EXIST: change->condition = ops::RowExistence::kExpectNotExist; break;
    default: return Error::Validation("Invalid row existence expectation.");
  }
  if (condition->has_column_condition() && !condition->column_condition().empty()) {
    ASSIGN_OR_RETURN(filter, DecodeFilter(condition->column_condition(), FilterUse::kCondition));
    change->column_condition = std::move(filter);
  }
  return Status::Ok();
}

namespace {

std::string_view ExpectName(ops::RowExistence e) {
  switch (e) {
    case ops::RowExistence::kIgnore: return "IGNORE";
    case ops::RowExistence::kExpectExist: return "EXPECT_EXIST";
    case ops::RowExistence::kExpectNotExist: return "EXPECT_NOT_EXIST";
  }
  return "IGNORE";
}

}  // namespace

Status CheckAutoIncrement(const model::TablestoreSchema& schema, const ops::RowChange& change) {
  bool placeholder = false;
  for (const auto& c : change.primary_key) {
    if (c.value.type == model::CellType::kAutoIncrement) placeholder = true;
  }
  // The service's texts (its error-code page; the spacing after "expect:" differs between the
  // two, as there).
  if (placeholder) {
    if (change.condition != ops::RowExistence::kIgnore) {
      return Error::Validation("Invalid expect:" + std::string(ExpectName(change.condition)) +
                               " when modify row with pk auto increment.");
    }
    if (change.column_condition) {
      return Error::Validation("Can't set condition when modify row with pk auto increment.");
    }
    return Status::Ok();
  }
  if (schema.AutoIncrementColumn() >= 0 && change.kind != ops::RowChange::Kind::kDelete &&
      change.condition == ops::RowExistence::kExpectNotExist) {
    return Error::Validation("Invalid expect: EXPECT_NOT_EXIST when modify a specific row for "
                             "table with pk auto increment.");
  }
  return Status::Ok();
}

std::optional<PbRow> ReturnedRow(const otspb::ReturnContent& rc,
                                 const std::vector<versions::PkCell>& primary_key,
                                 const versions::StoredRow& after,
                                 const model::VersionOptions& options, int64_t now_ms) {
  if (rc.return_type() == otspb::RT_NONE) return std::nullopt;
  PbRow row = ToPbKey(primary_key);
  if (rc.return_type() != otspb::RT_AFTER_MODIFY) return row;
  for (const auto& name : rc.return_column_names()) {
    const versions::Column* c = after.Find(name);
    if (!c) continue;
    if (const versions::Version* v = versions::LatestVisible(*c, options, now_ms)) {
      PbCell cell;
      cell.name = name;
      cell.value = v->value;
      cell.timestamp = v->timestamp_ms;
      row.attributes.push_back(std::move(cell));
    }
  }
  return row;
}

void FillConsumed(int32_t read, int32_t write, otspb::ConsumedCapacity* out) {
  out->mutable_capacity_unit()->set_read(read);
  out->mutable_capacity_unit()->set_write(write);
}

}  // namespace ttlstore::tablestore
