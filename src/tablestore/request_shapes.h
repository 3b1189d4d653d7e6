// The shapes (tablestore/wire_check.h) of the request messages the front end parses: which of
// their fields are submessages and which repeated fields the service limits. They mirror
// tablestore.proto; a field missing here is skipped by the check like an unknown field (its
// entries still parse, uncounted), which request_shapes_test.cc guards against for every
// repeated and message field of every request.
#pragma once

#include "tablestore/tablestore.pb.h"
#include "tablestore/wire_check.h"

namespace ttlstore::tablestore {

const WireShape& WireShapeOf(const otspb::CreateTableRequest&);
const WireShape& WireShapeOf(const otspb::UpdateTableRequest&);
const WireShape& WireShapeOf(const otspb::DescribeTableRequest&);
const WireShape& WireShapeOf(const otspb::ListTableRequest&);
const WireShape& WireShapeOf(const otspb::DeleteTableRequest&);
const WireShape& WireShapeOf(const otspb::CreateIndexRequest&);
const WireShape& WireShapeOf(const otspb::DropIndexRequest&);
const WireShape& WireShapeOf(const otspb::AddDefinedColumnRequest&);
const WireShape& WireShapeOf(const otspb::DeleteDefinedColumnRequest&);
const WireShape& WireShapeOf(const otspb::GetRowRequest&);
const WireShape& WireShapeOf(const otspb::PutRowRequest&);
const WireShape& WireShapeOf(const otspb::UpdateRowRequest&);
const WireShape& WireShapeOf(const otspb::DeleteRowRequest&);
const WireShape& WireShapeOf(const otspb::GetRangeRequest&);
const WireShape& WireShapeOf(const otspb::BatchGetRowRequest&);
const WireShape& WireShapeOf(const otspb::BatchWriteRowRequest&);
const WireShape& WireShapeOf(const otspb::ComputeSplitPointsBySizeRequest&);
const WireShape& WireShapeOf(const otspb::ListStreamRequest&);
const WireShape& WireShapeOf(const otspb::DescribeStreamRequest&);
const WireShape& WireShapeOf(const otspb::GetShardIteratorRequest&);
const WireShape& WireShapeOf(const otspb::GetStreamRecordRequest&);
const WireShape& WireShapeOf(const otspb::StartLocalTransactionRequest&);
const WireShape& WireShapeOf(const otspb::CommitTransactionRequest&);
const WireShape& WireShapeOf(const otspb::AbortTransactionRequest&);

}  // namespace ttlstore::tablestore
