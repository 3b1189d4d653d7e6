#include "tablestore/row_request.h"

namespace ttlstore::tablestore {

Result<ops::RowExistence> ConditionOf(const otspb::Condition* condition) {
  if (!condition) return ops::RowExistence::kIgnore;
  if (condition->has_column_condition() && !condition->column_condition().empty()) {
    return Error::Validation("Column conditions are not supported by ttlstore.");
  }
  switch (condition->row_existence()) {
    case otspb::IGNORE: return ops::RowExistence::kIgnore;
    case otspb::EXPECT_EXIST: return ops::RowExistence::kExpectExist;
    case otspb::EXPECT_NOT_EXIST: return ops::RowExistence::kExpectNotExist;
  }
  return Error::Validation("Invalid row existence expectation.");
}

void FillConsumed(int32_t read, int32_t write, otspb::ConsumedCapacity* out) {
  out->mutable_capacity_unit()->set_read(read);
  out->mutable_capacity_unit()->set_write(write);
}

}  // namespace ttlstore::tablestore
