#include "tablestore/request_shapes.h"

namespace ttlstore::tablestore {
namespace {

// Field numbers as in tablestore.proto. Singular scalar, string and bytes fields need no entry
// (the check skips them as the parser stores them: one value, no per-entry allocation); every
// submessage field is listed, even of a message with nothing to count, so that nesting and
// malformed bytes inside it are seen as the parser sees them.
// A message with no field the check needs to know.
constexpr WireShape kLeaf{};

constexpr WireField kIndexMeta[] = {
    {2, true, nullptr, CountRule::kNone},  // primary_key
    {3, true, nullptr, CountRule::kNone},  // defined_column
};
constexpr WireShape kIndexMetaShape{kIndexMeta};

constexpr WireField kTableMeta[] = {
    {2, true, &kLeaf, CountRule::kPrimaryKeySchema},  // primary_key
    {3, true, &kLeaf, CountRule::kDefinedColumns},    // defined_column
    {4, true, &kIndexMetaShape, CountRule::kNone},    // index_meta
};
constexpr WireShape kTableMetaShape{kTableMeta};

constexpr WireField kReservedThroughput[] = {{1, false, &kLeaf, CountRule::kNone}};
constexpr WireShape kReservedThroughputShape{kReservedThroughput};

// columns_to_get: the stream's origin columns, held to the 1024 columns of a request.
constexpr WireField kStreamSpecification[] = {{3, true, nullptr, CountRule::kColumns}};
constexpr WireShape kStreamSpecificationShape{kStreamSpecification};

constexpr WireField kReturnContent[] = {{2, true, nullptr, CountRule::kColumns}};
constexpr WireShape kReturnContentShape{kReturnContent};

constexpr WireField kCreateTable[] = {
    {1, false, &kTableMetaShape, CountRule::kNone},
    {2, false, &kReservedThroughputShape, CountRule::kNone},
    {3, false, &kLeaf, CountRule::kNone},  // table_options
    {4, true, &kLeaf, CountRule::kNone},   // partitions
    {5, false, &kStreamSpecificationShape, CountRule::kNone},
    {7, true, &kIndexMetaShape, CountRule::kNone},  // index_metas
};
constexpr WireShape kCreateTableShape{kCreateTable};

constexpr WireField kUpdateTable[] = {
    {2, false, &kReservedThroughputShape, CountRule::kNone},
    {3, false, &kLeaf, CountRule::kNone},
    {4, false, &kStreamSpecificationShape, CountRule::kNone},
};
constexpr WireShape kUpdateTableShape{kUpdateTable};

constexpr WireField kCreateIndex[] = {{2, false, &kIndexMetaShape, CountRule::kNone}};
constexpr WireShape kCreateIndexShape{kCreateIndex};

constexpr WireField kAddDefinedColumn[] = {{2, true, &kLeaf, CountRule::kDefinedColumns}};
constexpr WireShape kAddDefinedColumnShape{kAddDefinedColumn};
constexpr WireField kDeleteDefinedColumn[] = {{2, true, nullptr, CountRule::kDefinedColumns}};
constexpr WireShape kDeleteDefinedColumnShape{kDeleteDefinedColumn};

constexpr WireField kGetRow[] = {
    {3, true, nullptr, CountRule::kColumns},  // columns_to_get
    {4, false, &kLeaf, CountRule::kNone},     // time_range
};
constexpr WireShape kGetRowShape{kGetRow};

// PutRow, UpdateRow, DeleteRow: condition and return_content.
constexpr WireField kWriteRow[] = {
    {3, false, &kLeaf, CountRule::kNone},
    {4, false, &kReturnContentShape, CountRule::kNone},
};
constexpr WireShape kWriteRowShape{kWriteRow};

constexpr WireField kGetRange[] = {
    {3, true, nullptr, CountRule::kColumns},
    {4, false, &kLeaf, CountRule::kNone},
};
constexpr WireShape kGetRangeShape{kGetRange};

constexpr WireField kTableInBatchGetRow[] = {
    {2, true, nullptr, CountRule::kBatchGetRows},  // primary_key
    {3, true, nullptr, CountRule::kNone},          // token
    {4, true, nullptr, CountRule::kColumns},       // columns_to_get
    {5, false, &kLeaf, CountRule::kNone},          // time_range
};
constexpr WireShape kTableInBatchGetRowShape{kTableInBatchGetRow};
constexpr WireField kBatchGetRow[] = {{1, true, &kTableInBatchGetRowShape, CountRule::kNone}};
constexpr WireShape kBatchGetRowShape{kBatchGetRow};

constexpr WireField kRowInBatchWriteRow[] = {
    {3, false, &kLeaf, CountRule::kNone},
    {4, false, &kReturnContentShape, CountRule::kNone},
};
constexpr WireShape kRowInBatchWriteRowShape{kRowInBatchWriteRow};
constexpr WireField kTableInBatchWriteRow[] = {
    {2, true, &kRowInBatchWriteRowShape, CountRule::kBatchWriteRows},
};
constexpr WireShape kTableInBatchWriteRowShape{kTableInBatchWriteRow};
constexpr WireField kBatchWriteRow[] = {{1, true, &kTableInBatchWriteRowShape, CountRule::kNone}};
constexpr WireShape kBatchWriteRowShape{kBatchWriteRow};

}  // namespace

const WireShape& WireShapeOf(const otspb::CreateTableRequest&) { return kCreateTableShape; }
const WireShape& WireShapeOf(const otspb::UpdateTableRequest&) { return kUpdateTableShape; }
const WireShape& WireShapeOf(const otspb::DescribeTableRequest&) { return kLeaf; }
const WireShape& WireShapeOf(const otspb::ListTableRequest&) { return kLeaf; }
const WireShape& WireShapeOf(const otspb::DeleteTableRequest&) { return kLeaf; }
const WireShape& WireShapeOf(const otspb::CreateIndexRequest&) { return kCreateIndexShape; }
const WireShape& WireShapeOf(const otspb::DropIndexRequest&) { return kLeaf; }
const WireShape& WireShapeOf(const otspb::AddDefinedColumnRequest&) {
  return kAddDefinedColumnShape;
}
const WireShape& WireShapeOf(const otspb::DeleteDefinedColumnRequest&) {
  return kDeleteDefinedColumnShape;
}
const WireShape& WireShapeOf(const otspb::GetRowRequest&) { return kGetRowShape; }
const WireShape& WireShapeOf(const otspb::PutRowRequest&) { return kWriteRowShape; }
const WireShape& WireShapeOf(const otspb::UpdateRowRequest&) { return kWriteRowShape; }
const WireShape& WireShapeOf(const otspb::DeleteRowRequest&) { return kWriteRowShape; }
const WireShape& WireShapeOf(const otspb::GetRangeRequest&) { return kGetRangeShape; }
const WireShape& WireShapeOf(const otspb::BatchGetRowRequest&) { return kBatchGetRowShape; }
const WireShape& WireShapeOf(const otspb::BatchWriteRowRequest&) { return kBatchWriteRowShape; }
const WireShape& WireShapeOf(const otspb::ComputeSplitPointsBySizeRequest&) { return kLeaf; }
// The stream requests have only scalar fields.
const WireShape& WireShapeOf(const otspb::ListStreamRequest&) { return kLeaf; }
const WireShape& WireShapeOf(const otspb::DescribeStreamRequest&) { return kLeaf; }
const WireShape& WireShapeOf(const otspb::GetShardIteratorRequest&) { return kLeaf; }
const WireShape& WireShapeOf(const otspb::GetStreamRecordRequest&) { return kLeaf; }
const WireShape& WireShapeOf(const otspb::StartLocalTransactionRequest&) { return kLeaf; }
const WireShape& WireShapeOf(const otspb::CommitTransactionRequest&) { return kLeaf; }
const WireShape& WireShapeOf(const otspb::AbortTransactionRequest&) { return kLeaf; }

}  // namespace ttlstore::tablestore
