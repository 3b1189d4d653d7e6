#include "storage/lease_keeper.h"

#include <spdlog/spdlog.h>

#include <algorithm>

namespace ttlstore::storage {

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
    for (const auto& [unit, state] : units_) names.push_back(unit);
  }
  std::vector<std::pair<std::string, bool>> out;
  for (const std::string& unit : names) out.emplace_back(unit, Holding(unit).has_value());
  return out;
}

}  // namespace ttlstore::storage
