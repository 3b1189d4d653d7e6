// SELECT ... FROM "table"."index": which secondary index an ExecuteStatement reads, and what it
// may ask of it, with the service's answers (docs/compatibility.md, "PartiQL over indexes").
#pragma once

#include "api/partiql/ast.h"
#include "common/result.h"
#include "expr/condition.h"
#include "model/table.h"

namespace ttlstore::api::partiql {

// The index `st` names (null when it names none). Refused, in this order:
//   a name that is no index of the table (its own name included; vector indexes are read with
//     SearchVectors only): "The table does not have the specified index", naming nothing;
//   an index with a multi-attribute key: PartiQL runs on no such index;
//   any index in a BatchExecuteStatement (`batch`): the batch SELECT's key rule;
//   ConsistentRead on a global index;
//   a global index still being backfilled.
Result<const model::SecondaryIndex*> ResolveReadIndex(const Statement& st,
                                                      const model::TableDescriptor& table,
                                                      bool batch, bool consistent);

// What the SELECT may ask of `ix` beyond its projection. A global index holds only its
// projection: naming more in the SELECT list is refused. A local index fetches each item from
// the table instead (returns true). A `keyed` read (a condition on the index's partition key)
// whose filter names an attribute the index does not project is refused, on either kind; an
// unkeyed read scans the index and evaluates the filter over what the index holds.
Result<bool> CheckIndexAttributes(const Statement& st, const model::TableDescriptor& table,
                                  const model::SecondaryIndex& ix, const expr::Condition* filter,
                                  bool keyed);

}  // namespace ttlstore::api::partiql
