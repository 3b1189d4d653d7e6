// What a read of a secondary index (Query, Scan, a PartiQL SELECT of "table"."index") may ask
// for beyond the index's projection, with the service's messages. Shared so that the surfaces
// agree on the rule and differ only where the service's own wordings differ.
#pragma once

#include <vector>

#include "common/result.h"
#include "expr/condition.h"
#include "expr/path.h"
#include "model/table.h"

namespace ttlstore::api {

// Attributes asked for by `paths` (their top-level names) that `ix` does not project: refused
// on a global index ("Global secondary index X does not project [a, b]"), which holds only its
// projection; on a local index the read fetches the table's items instead (returns true).
Result<bool> CheckIndexProjects(const model::TableDescriptor& table,
                                const model::SecondaryIndex& ix,
                                const std::vector<expr::Path>& paths);

// A filter naming attributes `ix` does not project: "Secondary index X does not project one or
// more filter attributes: [a]" (either kind of index).
Status CheckIndexFilter(const model::TableDescriptor& table, const model::SecondaryIndex& ix,
                        const expr::Condition& filter);

}  // namespace ttlstore::api
