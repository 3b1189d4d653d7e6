#include "ops/resource_policies.h"

#include <algorithm>
#include <charconv>

#include "streams/stream_names.h"

namespace ttlstore::ops {
namespace {

// The slot of `target` in a copy of its table, or an error naming the missing stream. A
// stream is found among the table's streams still within retention (disabled ones too: their
// records stay readable, and so does access to them).
Result<std::optional<model::ResourcePolicy>*> Slot(model::TableDescriptor& t,
                                                   const PolicyTarget& target) {
  if (!target.stream_created_ms) return &t.resource_policy;
  for (auto& st : t.streams) {
    if (st.created_ms == *target.stream_created_ms) return &st.policy;
  }
  return StreamNotFound(streams::StreamLabel(*target.stream_created_ms), t.name);
}

// ExpectedRevisionId against what is attached (the service's messages, checked on the service
// by moto's aws_verified tests, test_dynamodb_resource_policy.py).
Status CheckExpected(const std::optional<model::ResourcePolicy>& current,
                     const std::optional<std::string>& expected, const PolicyTarget& target) {
  if (!expected) return Status::Ok();
  if (*expected == kNoPolicyRevision) {
    if (!current) return Status::Ok();
    return Error(ErrorCode::kPolicyNotFound,
                 "Resource-based policy not found for the provided ResourceArn: Requested policy "
                 "update expecting none to be present for table " +
                     target.table + ", but a policy exists with revision id " +
                     current->revision_id + ".");
  }
  if (!current) return PolicyNotFound(target.arn);
  if (current->revision_id == *expected) return Status::Ok();
  return Error(ErrorCode::kPolicyNotFound,
               "Resource-based policy not found for the provided ResourceArn: Requested update "
               "for policy with revision id " +
                   *expected + ", but the policy associated to target table " + target.table +
                   " has revision id " + current->revision_id + ".");
}

}  // namespace

Error PolicyNotFound(const std::string& arn) {
  return Error(ErrorCode::kPolicyNotFound,
               "Resource-based policy not found for the provided ResourceArn: " + arn);
}

Error StreamNotFound(const std::string& label, const std::string& table) {
  return Error::ResourceNotFound("Requested resource not found: Stream: " + label +
                                 " not found for Table: " + table);
}

std::string NextRevisionId(const std::string& previous, int64_t now_ms) {
  int64_t prev = 0;
  std::from_chars(previous.data(), previous.data() + previous.size(), prev);
  return std::to_string(std::max(now_ms, prev + 1));
}

Result<std::string> PutResourcePolicy(TableCatalog& catalog, const Clock& clock,
                                      const PolicyTarget& target, const std::string& document,
                                      const std::optional<std::string>& expected_revision) {
  std::string revision;
  auto updated = catalog.Update(target.table, [&](model::TableDescriptor& t) -> Status {
    if (RestoreInProgress(t)) return TableBeingCreated(t.name);
    ASSIGN_OR_RETURN(slot, Slot(t, target));
    RETURN_IF_ERROR(CheckExpected(*slot, expected_revision, target));
    if (*slot && (*slot)->document == document) {
      revision = (*slot)->revision_id;
      return Status::Ok();
    }
    revision = NextRevisionId(*slot ? (*slot)->revision_id : "", clock.NowMs());
    *slot = model::ResourcePolicy{document, revision};
    return Status::Ok();
  });
  if (!updated) return updated.error();
  return revision;
}

Result<std::string> DeleteResourcePolicy(TableCatalog& catalog, const PolicyTarget& target,
                                         const std::optional<std::string>& expected_revision) {
  std::string removed;
  auto updated = catalog.Update(target.table, [&](model::TableDescriptor& t) -> Status {
    if (RestoreInProgress(t)) return TableBeingCreated(t.name);
    ASSIGN_OR_RETURN(slot, Slot(t, target));
    if (!*slot) return PolicyNotFound(target.arn);
    RETURN_IF_ERROR(CheckExpected(*slot, expected_revision, target));
    removed = (*slot)->revision_id;
    slot->reset();
    return Status::Ok();
  });
  if (!updated) return updated.error();
  return removed;
}

const model::ResourcePolicy* FindResourcePolicy(const model::TableDescriptor& table,
                                                const std::optional<int64_t>& stream_created_ms) {
  if (!stream_created_ms) return table.resource_policy ? &*table.resource_policy : nullptr;
  for (const auto& st : table.streams) {
    if (st.created_ms == *stream_created_ms) return st.policy ? &*st.policy : nullptr;
  }
  return nullptr;
}

}  // namespace ttlstore::ops
