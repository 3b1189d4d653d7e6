// Leases of background work: the `leases` family (persisted; docs/formats.md, docs/
// background-jobs.md "Leases"). With several ttlstore processes on one database (issue 34),
// work outside requests is split into units, each held by one process at a time through a
// record here; there are no database advisory locks (CockroachDB lacks them) and nothing rests on
// a lock only one process sees: a lease is taken, renewed and released by Store::ReadModifyWrite
// of its record, so two processes racing for a unit are serialized by the database.
//
//   key   = the unit's name (e.g. "streams/trim")
//   value = 0x01 . generation (8 bytes BE) . expires_ms (8 bytes BE) . owner (the rest)
//
// `owner` names a process (LeaseOwnerName). `generation` rises each time the unit passes to
// another owner, so a job that includes the record's key in its own read-modify-write and checks
// the generation it was granted (Leases::CheckFence) cannot commit once another process has
// taken the unit over: a late writer is rejected, not merely outrun. `expires_ms` is read on the
// clocks of the processes (the machines' clocks must agree within a small part of the lease
// time, as with any lease); 0 means released.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/clock.h"
#include "common/result.h"
#include "storage/store.h"

namespace ttlstore::storage {

struct LeaseRecord {
  std::string owner;
  uint64_t generation = 0;
  int64_t expires_ms = 0;  // 0: released

  // Held by its owner at `now_ms` (not released, not run out).
  bool LiveAt(int64_t now_ms) const { return expires_ms > now_ms; }
};

// The unit each process holds for itself while it runs, members/<owner> (LeaseKeeper::Share):
// how processes on one database count each other and see who is alive.
inline constexpr char kMemberUnitPrefix[] = "members/";

// Every lease record on `store` whose unit name starts with `prefix`, in name order (live,
// lapsed and released alike).
Result<std::vector<std::pair<std::string, LeaseRecord>>> ListLeases(const Store& store,
                                                                    const std::string& prefix);

std::string EncodeLease(const LeaseRecord& record);
std::optional<LeaseRecord> DecodeLease(std::string_view value);

// A name for this process, unique among the processes on one database: host, pid and a random
// part (so a restarted process with a reused pid is a new owner).
std::string LeaseOwnerName();

// What Leases::Acquire found and did.
struct LeaseGrant {
  bool held = false;        // this owner holds the unit until expires_ms
  uint64_t generation = 0;  // the record's generation (this owner's, when held)
  int64_t expires_ms = 0;
  // The unit was another owner's and that owner's lease had run out without a release: this
  // owner took it over (the other process died or stopped renewing).
  bool took_over = false;
  std::string holder;  // who holds the unit now
};

// Leases of one owner over one store. Thread-safe.
class Leases {
 public:
  // `clock`: the wall clock the processes share (never a test's shifted data clock).
  Leases(Store& store, const Clock& clock, std::string owner)
      : store_(store), clock_(clock), owner_(std::move(owner)) {}

  // Takes `unit` for `duration_ms` from now if it is free, released, expired, or already this
  // owner's (a renewal keeps the generation). One read-modify-write of the unit's record.
  // `take_live`: take it even from a live owner (only when that owner cannot be running: a store
  // no other process can open, Store::SharedByProcesses).
  Result<LeaseGrant> Acquire(const std::string& unit, int64_t duration_ms, bool take_live = false);
  // Ends this owner's lease of `unit` at once (nothing when another owner holds it).
  Status Release(const std::string& unit);
  // Whether a process holds `unit` now (this one included): a live lease. Never on a store no
  // other process can open (a lease left there is a dead process's).
  Result<bool> HeldNow(const std::string& unit) const;
  // Deletes `unit`'s record if it lapsed (or was released) before `cutoff_ms`: the records of
  // processes that are gone for good, which would otherwise pile up (LeaseKeeper::Share).
  Status DropIfLapsedBefore(const std::string& unit, int64_t cutoff_ms);

  // Fencing. A job's read-modify-write includes KeyOf(unit) among its keys and passes what it
  // read there to CheckFence with the generation it was granted: an error (Aborted, "lease of
  // <unit> lost") unless this owner still holds the unit at that generation.
  static RmwKey KeyOf(const std::string& unit) { return {Family::kLeases, unit}; }
  Status CheckFence(const std::string& unit, const std::optional<std::string>& read,
                    uint64_t generation) const;

  const std::string& owner() const { return owner_; }
  const Clock& clock() const { return clock_; }
  Store& store() const { return store_; }
  // Units taken over from an owner whose lease had run out, since construction.
  uint64_t takeovers() const { return takeovers_.load(); }

 private:
  Store& store_;
  const Clock& clock_;
  const std::string owner_;
  std::atomic<uint64_t> takeovers_{0};
};

}  // namespace ttlstore::storage
