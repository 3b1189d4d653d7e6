#include "cli/shard_lineage.h"

#include <set>

namespace ttlstore::cli {

ShardPlan PlanShards(const std::vector<ListedShard>& listed,
                     const std::map<std::string, ShardState>& states) {
  ShardPlan plan;
  std::set<std::string> listed_ids;
  for (const auto& s : listed) listed_ids.insert(s.id);
  auto finished = [&](const std::string& id) {
    auto it = states.find(id);
    return it != states.end() && it->second.finished;
  };
  for (const auto& s : listed) {
    if (finished(s.id)) continue;
    bool parent_done = s.parent.empty() || finished(s.parent);
    if (!parent_done && !listed_ids.contains(s.parent)) {
      // The parent is gone from the stream. If the checkpoint knew it unfinished, its rest is
      // lost (reported below); if it never knew it, it predates the replication (its changes
      // are in the copy) or was trimmed before the position was taken.
      parent_done = true;
    }
    if (parent_done) plan.ready.push_back(s.id);
  }
  for (const auto& [id, st] : states) {
    if (!st.finished && !listed_ids.contains(id)) plan.lost.push_back(id);
  }
  return plan;
}

int CompareSequenceNumbers(const std::string& a, const std::string& b) {
  auto strip = [](const std::string& s) {
    size_t i = s.find_first_not_of('0');
    return i == std::string::npos ? std::string() : s.substr(i);
  };
  std::string x = strip(a), y = strip(b);
  if (x.size() != y.size()) return x.size() < y.size() ? -1 : 1;
  return x.compare(y) < 0 ? -1 : (x == y ? 0 : 1);
}

}  // namespace ttlstore::cli
