#include "storage/lease.h"

#include <unistd.h>

#include <random>

#include "common/coding.h"
#include "storage/key_codec.h"

namespace ttlstore::storage {

namespace {
constexpr char kLeaseFormat = 0x01;
}  // namespace

std::string EncodeLease(const LeaseRecord& record) {
  std::string out(1, kLeaseFormat);
  PutFixed64BE(&out, record.generation);
  PutFixed64BE(&out, static_cast<uint64_t>(record.expires_ms));
  out += record.owner;
  return out;
}

std::optional<LeaseRecord> DecodeLease(std::string_view value) {
  if (value.empty() || value[0] != kLeaseFormat) return std::nullopt;
  value.remove_prefix(1);
  LeaseRecord r;
  uint64_t expires = 0;
  if (!GetFixed64BE(&value, &r.generation) || !GetFixed64BE(&value, &expires)) return std::nullopt;
  r.expires_ms = static_cast<int64_t>(expires);
  r.owner.assign(value);
  return r;
}

std::string LeaseOwnerName() {
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) != 0) host[0] = '\0';
  std::random_device rd;
  uint64_t nonce = (static_cast<uint64_t>(rd()) << 32) | rd();
  char suffix[17];
  snprintf(suffix, sizeof(suffix), "%016llx", static_cast<unsigned long long>(nonce));
  return std::string(host) + ":" + std::to_string(getpid()) + ":" + suffix;
}

Result<LeaseGrant> Leases::Acquire(const std::string& unit, int64_t duration_ms, bool take_live) {
  LeaseGrant grant;
  Status s = store_.ReadModifyWrite({KeyOf(unit)}, [&](const RmwReads& reads, WriteBatch& batch) {
    grant = LeaseGrant{};  // assigned afresh: the function may run again after a conflict
    const int64_t now = clock_.NowMs();
    std::optional<LeaseRecord> current = reads[0] ? DecodeLease(*reads[0]) : std::nullopt;
    LeaseRecord next{owner_, 1, now + duration_ms};
    if (current) {
      const bool mine = current->owner == owner_;
      const bool live = current->LiveAt(now);
      if (!mine && live && !take_live) {
        grant.generation = current->generation;
        grant.expires_ms = current->expires_ms;
        grant.holder = current->owner;
        return Status::Ok();  // another process holds it
      }
      // Mine (a renewal, or a lease of mine nobody took while it lapsed): the same generation.
      // Another owner's, released or run out: the next one.
      next.generation = mine ? current->generation : current->generation + 1;
      grant.took_over = !mine && current->expires_ms != 0;
    }
    batch.Put(Family::kLeases, unit, EncodeLease(next));
    grant.held = true;
    grant.generation = next.generation;
    grant.expires_ms = next.expires_ms;
    grant.holder = owner_;
    return Status::Ok();
  });
  if (!s) return s.error();
  if (grant.took_over) takeovers_.fetch_add(1);
  return grant;
}

Status Leases::Release(const std::string& unit) {
  return store_.ReadModifyWrite({KeyOf(unit)}, [&](const RmwReads& reads, WriteBatch& batch) {
    std::optional<LeaseRecord> current = reads[0] ? DecodeLease(*reads[0]) : std::nullopt;
    if (!current || current->owner != owner_ || current->expires_ms == 0) return Status::Ok();
    current->expires_ms = 0;
    batch.Put(Family::kLeases, unit, EncodeLease(*current));
    return Status::Ok();
  });
}

Result<bool> Leases::HeldNow(const std::string& unit) const {
  if (!store_.SharedByProcesses()) return false;
  ASSIGN_OR_RETURN(raw, store_.Get(Family::kLeases, unit));
  std::optional<LeaseRecord> current = raw ? DecodeLease(*raw) : std::nullopt;
  return current && current->LiveAt(clock_.NowMs());
}

Result<std::vector<std::pair<std::string, LeaseRecord>>> ListLeases(const Store& store,
                                                                    const std::string& prefix) {
  std::vector<std::pair<std::string, LeaseRecord>> out;
  RETURN_IF_ERROR(store.ForEachUnder(
      Family::kLeases, prefix, [&](std::string_view rest, std::string_view value) -> Status {
        if (auto record = DecodeLease(value)) out.emplace_back(prefix + std::string(rest), *record);
        return Status::Ok();
      }));
  return out;
}

Status Leases::DropIfLapsedBefore(const std::string& unit, int64_t cutoff_ms) {
  return store_.ReadModifyWrite({KeyOf(unit)}, [&](const RmwReads& reads, WriteBatch& batch) {
    std::optional<LeaseRecord> current = reads[0] ? DecodeLease(*reads[0]) : std::nullopt;
    if (!current || current->expires_ms >= cutoff_ms) return Status::Ok();
    batch.Delete(Family::kLeases, unit);
    return Status::Ok();
  });
}

Status Leases::CheckFence(const std::string& unit, const std::optional<std::string>& read,
                          uint64_t generation) const {
  std::optional<LeaseRecord> current = read ? DecodeLease(*read) : std::nullopt;
  if (current && current->owner == owner_ && current->generation == generation &&
      current->expires_ms != 0) {
    return Status::Ok();
  }
  return Error::ResourceInUse("lease of " + unit + " lost: another process took it over");
}

}  // namespace ttlstore::storage
