#include "api/partiql/index_read.h"

#include "api/index_projection.h"
#include "index/index_key.h"

namespace ttlstore::api::partiql {

// Sources: tests captured against the service (eu-west-2, us-east-1; 2026) in public
// DynamoDB-compatible implementations' suites; docs/compatibility.md lists them.
Result<const model::SecondaryIndex*> ResolveReadIndex(const Statement& st,
                                                      const model::TableDescriptor& table,
                                                      bool batch, bool consistent) {
  if (!st.index) return static_cast<const model::SecondaryIndex*>(nullptr);
  const model::SecondaryIndex* ix = index::FindIndex(table, *st.index);
  // Unlike Query, the PartiQL surface does not name the index in this message.
  if (!ix || ix->IsVector()) {
    return Error::Validation("The table does not have the specified index");
  }
  if (!ix->key.more_hash.empty() || !ix->key.more_range.empty()) {
    return Error::Validation(
        "PartiQL statements cannot be executed on tables with multi-attribute HASH keys or "
        "multi-attribute RANGE keys.");
  }
  if (batch) {
    return Error::Validation(
        "Select statements within BatchExecuteStatement must specify the primary key in the "
        "where clause.");
  }
  // Query words this one "Consistent reads are not supported on global secondary indexes".
  if (ix->global && consistent) {
    return Error::Validation("Strongly consistent read is not supported on Global Secondary Indexes");
  }
  if (ix->status == model::IndexStatus::kCreating) {
    return Error::Validation("Cannot read from backfilling global secondary index: " + ix->name);
  }
  return ix;
}

Result<bool> CheckIndexAttributes(const Statement& st, const model::TableDescriptor& table,
                                  const model::SecondaryIndex& ix, const expr::Condition* filter,
                                  bool keyed) {
  if (ix.projection == model::ProjectionType::kAll) return false;
  ASSIGN_OR_RETURN(fetch_base, CheckIndexProjects(table, ix, st.projection));
  if (filter && keyed) RETURN_IF_ERROR(CheckIndexFilter(table, ix, *filter));
  return fetch_base;
}

}  // namespace ttlstore::api::partiql
