#include "storage/lease_keeper.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <functional>

namespace ttlstore::storage {
namespace {

// A member record lapsed this long ago is a process gone for good: deleted.
constexpr int64_t kForgetMemberAfterMs = 3600 * 1000;

}  // namespace

void LeaseKeeper::Want(const std::string& unit) {
  std::lock_guard<std::mutex> lock(mu_);
  units_.try_emplace(unit);
}

void LeaseKeeper::Start() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (started_) return;
    started_ = true;
  }
  // The first round before returning, so that the jobs started next find their units held.
  RunOnce();
  thread_.Start("lease-keeper", std::max<int64_t>(1, duration_ms_ / 3), [this] { RunOnce(); });
}

void LeaseKeeper::Stop() {
  thread_.Stop();
  std::vector<std::string> held;
  {
    std::lock_guard<std::mutex> lock(mu_);
    started_ = false;
    for (auto& [unit, state] : units_) {
      if (state.held) held.push_back(unit);
      state = State{};
    }
  }
  for (const std::string& unit : held) {
    Status s = leases_.Release(unit);
    if (!s) {
      spdlog::warn("event=lease_release_failed unit={} message=\"{}\"", unit, s.error().message());
    }
  }
}

void LeaseKeeper::RunOnce() {
  std::vector<std::string> wanted;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [unit, state] : units_) wanted.push_back(unit);
  }
  for (const std::string& unit : wanted) Renew(unit);
  Rebalance();
}

void LeaseKeeper::Share(const std::string& prefix, int count) {
  shares_.push_back(ShareGroup{prefix, count});
  if (leases_.store().SharedByProcesses()) Want(kMemberUnitPrefix + leases_.owner());
}

void LeaseKeeper::Rebalance() {
  if (shares_.empty()) return;
  int processes = 1;
  if (leases_.store().SharedByProcesses()) {
    auto members = ListLeases(leases_.store(), kMemberUnitPrefix);
    if (!members) {
      // Keep what is held: renewing it is the rest of the round's work.
      spdlog::warn("event=lease_members_unreadable message=\"{}\"", members.error().message());
      return;
    }
    const int64_t now = leases_.clock().NowMs();
    const int64_t forget_before = now - kForgetMemberAfterMs;
    int live = 0;
    for (const auto& [unit, record] : *members) {
      if (record.LiveAt(now)) {
        ++live;
      } else if (record.expires_ms < forget_before) {
        (void)leases_.DropIfLapsedBefore(unit, forget_before);
      }
    }
    processes = std::max(1, live);
  }
  processes_.store(processes);
  for (const ShareGroup& group : shares_) RebalanceGroup(group, processes);
}

void LeaseKeeper::RebalanceGroup(const ShareGroup& group, int processes) {
  const int fair = (group.count + processes - 1) / processes;
  auto unit_of = [&](int k) { return group.prefix + std::to_string(k); };
  std::vector<std::string> held;
  std::vector<bool> mine(static_cast<size_t>(group.count), false);
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (int k = 0; k < group.count; ++k) {
      auto it = units_.find(unit_of(k));
      if (it == units_.end()) continue;
      if (!it->second.held) {
        units_.erase(it);  // lost to another process: no longer this process's to renew
        continue;
      }
      held.push_back(it->first);
      mine[static_cast<size_t>(k)] = true;
    }
  }
  // Beyond the fair share: hand the last ones back (released at once, for another to take).
  while (static_cast<int>(held.size()) > fair) {
    Forget(held.back());
    held.pop_back();
  }
  if (static_cast<int>(held.size()) == fair) return;
  // Short of it: take free units, starting at a place of this owner's own so that processes
  // starting together try different ones first.
  const bool shared = leases_.store().SharedByProcesses();
  std::vector<bool> taken(static_cast<size_t>(group.count), false);
  if (shared) {
    auto records = ListLeases(leases_.store(), group.prefix);
    if (!records) return;
    const int64_t now = leases_.clock().NowMs();
    for (const auto& [unit, record] : *records) {
      if (record.owner == leases_.owner() || !record.LiveAt(now)) continue;
      for (int k = 0; k < group.count; ++k) {
        if (unit == unit_of(k)) taken[static_cast<size_t>(k)] = true;
      }
    }
  }
  const size_t start = std::hash<std::string>{}(leases_.owner()) % group.count;
  for (int i = 0; i < group.count && static_cast<int>(held.size()) < fair; ++i) {
    const int k = static_cast<int>((start + i) % group.count);
    if (mine[static_cast<size_t>(k)] || taken[static_cast<size_t>(k)]) continue;
    const std::string unit = unit_of(k);
    Want(unit);
    Renew(unit);
    std::lock_guard<std::mutex> lock(mu_);
    auto it = units_.find(unit);
    if (it != units_.end() && it->second.held) {
      held.push_back(unit);
    } else if (it != units_.end()) {
      units_.erase(it);  // another process was quicker
    }
  }
}

void LeaseKeeper::Renew(const std::string& unit) {
  const bool take_live = !leases_.store().SharedByProcesses();
  auto grant = leases_.Acquire(unit, duration_ms_, take_live);
  if (!grant) {
    // The database is out of reach: keep what we knew; Holding stops answering once the lease
    // could have lapsed.
    spdlog::warn("event=lease_renewal_failed unit={} message=\"{}\"", unit,
                 grant.error().message());
    return;
  }
  bool was_held = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = units_.find(unit);
    if (it == units_.end()) {
      // Forgotten meanwhile: give back what this round just took.
      if (grant->held) (void)leases_.Release(unit);
      return;
    }
    was_held = it->second.held;
    it->second = State{grant->held, grant->generation, grant->expires_ms};
  }
  if (grant->held && !was_held) {
    // took_over: from a process that stopped renewing (it died, or lost the database).
    spdlog::info("event=lease_held unit={} generation={} took_over={}", unit, grant->generation,
                 grant->took_over);
  } else if (!grant->held && was_held) {
    spdlog::warn("event=lease_lost unit={} holder={}", unit, grant->holder);
  }
}

bool LeaseKeeper::Claim(const std::string& unit) {
  Want(unit);
  if (Holding(unit)) return true;
  Renew(unit);
  return Holding(unit).has_value();
}

void LeaseKeeper::Forget(const std::string& unit) {
  bool held = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = units_.find(unit);
    if (it == units_.end()) return;
    held = it->second.held;
    units_.erase(it);
  }
  if (!held) return;
  if (Status s = leases_.Release(unit); !s) {
    spdlog::warn("event=lease_release_failed unit={} message=\"{}\"", unit, s.error().message());
  }
}

std::optional<uint64_t> LeaseKeeper::Holding(const std::string& unit) const {
  const int64_t now = leases_.clock().NowMs();
  std::lock_guard<std::mutex> lock(mu_);
  auto it = units_.find(unit);
  if (it == units_.end() || !it->second.held) return std::nullopt;
  if (now >= it->second.expires_ms - duration_ms_ / 3) return std::nullopt;
  return it->second.generation;
}

std::vector<std::pair<std::string, bool>> LeaseKeeper::Units() const {
  std::vector<std::string> names;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [unit, state] : units_) {
      if (unit.rfind(kMemberUnitPrefix, 0) != 0) names.push_back(unit);  // a process, not work
    }
  }
  std::vector<std::pair<std::string, bool>> out;
  for (const std::string& unit : names) out.emplace_back(unit, Holding(unit).has_value());
  return out;
}

}  // namespace ttlstore::storage
