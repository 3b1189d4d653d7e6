// LeaseKeeper: holds the units of background work this process wants (storage/lease.h;
// docs/background-jobs.md, "Leases"). One thread: every third of the lease time it renews the
// units it holds and tries to take the ones it does not, so a unit whose holder died (kill -9,
// a lost machine) is taken over within the lease time and a third. Jobs ask Holding(unit)
// before each pass and do their work only while it answers; a job whose writes must not land
// after a takeover also fences them (Leases::CheckFence).
//
// On a store no other process can open (RocksDB, Store::SharedByProcesses false) a lease left
// by another owner is a dead process's: it is taken at once, so a restart does not wait for it.
// Stop releases every unit held, so a clean stop hands work over at once.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "common/periodic_thread.h"
#include "storage/lease.h"

namespace ttlstore::storage {

class LeaseKeeper {
 public:
  // `duration_ms`: how long a grant lasts (serve --lease-seconds).
  LeaseKeeper(Leases& leases, int64_t duration_ms) : leases_(leases), duration_ms_(duration_ms) {}
  ~LeaseKeeper() { Stop(); }
  LeaseKeeper(const LeaseKeeper&) = delete;
  LeaseKeeper& operator=(const LeaseKeeper&) = delete;

  // Adds `unit` to the units this process wants. Before Start (or while running: taken at the
  // next round).
  void Want(const std::string& unit);
  // One-shot work (an index build, a backfill): wants `unit` and tries to take it now, without
  // waiting for the next round; whether this process holds it (as Holding says).
  bool Claim(const std::string& unit);
  // The work of `unit` is done: no longer wanted, and released if held.
  void Forget(const std::string& unit);
  // A group of `count` units, `prefix` + "0" .. `prefix` + (count - 1), that the processes on
  // the database share out evenly (the TTL sweeper's shards). Each round this process takes free
  // ones (never a live lease of another process) up to its fair share, `count` over the live
  // processes rounded up, and releases what it holds beyond that: a new process gets its part
  // within a round or two, and the part of a process that died is spread over the others once
  // its leases lapse. Processes count each other through a unit each holds for itself,
  // members/<owner> (a record that lapsed an hour ago is deleted). On a store no other process
  // can open every unit of the group is this process's. Before Start.
  void Share(const std::string& prefix, int count);
  // The live processes (this one included) the last round counted; 1 on a store no other
  // process can open.
  int processes() const { return processes_.load(); }
  // Whether a process (this one included) holds `unit` now (Leases::HeldNow).
  Result<bool> HeldNow(const std::string& unit) const { return leases_.HeldNow(unit); }
  // One round before returning, then one every duration / 3 on the keeper's thread.
  void Start();
  // Stops the thread and releases every unit held. Safe to call twice.
  void Stop();
  // One round: renew or take every wanted unit (the thread's work; tests call it directly).
  void RunOnce();

  // The generation under which this process holds `unit`, when it does with at least a third of
  // the lease time left (so a pass begun now is not running when the lease could lapse
  // unnoticed); nullopt otherwise.
  std::optional<uint64_t> Holding(const std::string& unit) const;

  // For /metrics: each wanted unit and whether it is held now (as Holding says).
  std::vector<std::pair<std::string, bool>> Units() const;
  uint64_t takeovers() const { return leases_.takeovers(); }
  const std::string& owner() const { return leases_.owner(); }
  int64_t duration_ms() const { return duration_ms_; }

 private:
  struct State {
    bool held = false;
    uint64_t generation = 0;
    int64_t expires_ms = 0;
  };

  struct ShareGroup {
    std::string prefix;
    int count = 0;
  };

  // Renews or takes one unit (a round's work for each wanted unit).
  void Renew(const std::string& unit);
  // A round's work for the shared groups: counts the live processes, then takes or releases
  // units of each group towards this process's fair share.
  void Rebalance();
  void RebalanceGroup(const ShareGroup& group, int processes);

  Leases& leases_;
  const int64_t duration_ms_;
  mutable std::mutex mu_;
  std::map<std::string, State> units_;  // GUARDED_BY(mu_)
  bool started_ = false;                // GUARDED_BY(mu_)
  std::vector<ShareGroup> shares_;      // set before Start
  std::atomic<int> processes_{1};
  PeriodicThread thread_;
};

// Whether a job of `unit` may run a pass now: always without a keeper (tests, tools), else while
// this process holds the unit.
inline bool MayRun(const LeaseKeeper* keeper, const std::string& unit) {
  return keeper == nullptr || keeper->Holding(unit).has_value();
}

}  // namespace ttlstore::storage
