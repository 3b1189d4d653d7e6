// Resource-based policies on tables and streams (issue 19): PutResourcePolicy's and
// DeleteResourcePolicy's changes to the catalog, with the ExpectedRevisionId check. The
// document is kept in the table's descriptor (a stream's in its StreamInfo), so it is written
// in one catalog write, survives restarts, and goes with the table when it is deleted.
// Documents arrive already validated (api/resource_policy_doc.h).
#pragma once

#include <optional>
#include <string>

#include "common/clock.h"
#include "common/result.h"
#include "ops/table_ops.h"

namespace ttlstore::ops {

// Which resource a policy is attached to: a table, or one of its streams (by its label's
// creation time, StreamInfo::created_ms).
struct PolicyTarget {
  std::string table;
  std::optional<int64_t> stream_created_ms;
  std::string arn;  // for messages
};

// ExpectedRevisionId's value meaning "only if the resource has no policy yet" (the service's).
inline constexpr std::string_view kNoPolicyRevision = "NO_POLICY";

// The next RevisionId after `previous` at `now_ms`: a decimal string of the time in
// milliseconds, moved past `previous` when the clock has not (so that every change gets a new,
// larger id; the service's ids are timestamps, comparable as numbers).
std::string NextRevisionId(const std::string& previous, int64_t now_ms);

// Attaches `document`, replacing any earlier one, and returns its RevisionId. Putting the
// document that is already attached changes nothing and returns its RevisionId (the API
// reference: "idempotent ... will return the same revision ID"). `expected_revision`: the
// current RevisionId must equal it (kNoPolicyRevision: there must be none), else
// PolicyNotFoundException. ResourceNotFoundException for a missing table or stream,
// ResourceInUseException for a table a restore is still loading.
Result<std::string> PutResourcePolicy(TableCatalog& catalog, const Clock& clock,
                                      const PolicyTarget& target, const std::string& document,
                                      const std::optional<std::string>& expected_revision);

// Removes the policy and returns the RevisionId it had; PolicyNotFoundException if there is
// none or (with `expected_revision`) its RevisionId differs.
Result<std::string> DeleteResourcePolicy(TableCatalog& catalog, const PolicyTarget& target,
                                         const std::optional<std::string>& expected_revision);

// The policy attached to `target`, nullptr if none; the table's or stream's absence is the
// caller's to check. `table` must be the snapshot of target.table.
const model::ResourcePolicy* FindResourcePolicy(const model::TableDescriptor& table,
                                                const std::optional<int64_t>& stream_created_ms);

// The service's messages.
Error PolicyNotFound(const std::string& arn);
Error StreamNotFound(const std::string& label, const std::string& table);

}  // namespace ttlstore::ops
