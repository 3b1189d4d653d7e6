#include "api/search_vectors_rank.h"

#include <algorithm>
#include <queue>
#include <unordered_set>

#include "index/index_key.h"
#include "index/vector_value.h"
#include "model/expiry.h"
#include "storage/item_codec.h"
#include "storage/key_codec.h"
#include "vector/distance.h"
#include "vector/knn_plan.h"

namespace ttlstore::api {
namespace {

std::vector<VectorCandidate> Nearest(std::priority_queue<VectorCandidate>& best) {
  std::vector<VectorCandidate> ranked;
  ranked.reserve(best.size());
  while (!best.empty()) {
    ranked.push_back(std::move(const_cast<VectorCandidate&>(best.top())));
    best.pop();
  }
  std::reverse(ranked.begin(), ranked.end());
  return ranked;
}

}  // namespace

VectorRanker::VectorRanker(const Services& s, const model::TableDescriptor& table,
                           const model::SecondaryIndex& index, const SearchCondition& condition,
                           std::vector<float> query, size_t k)
    : s_(s),
      table_(table),
      index_(index),
      condition_(condition),
      query_(std::move(query)),
      k_(k),
      lower_(condition.hash ? index::IndexPartitionPrefix(table.id, index.id, *condition.hash)
                            : index::IndexPrefix(table.id, index.id)),
      hiding_(model::HidesExpired(table)),
      now_ms_(s.clock.NowMs()) {}

Result<std::optional<VectorCandidate>> VectorRanker::Check(
    std::string_view key, std::string_view raw, const VectorCandidate* worse_than) const {
  auto entry = storage::DecodeItem(raw);
  if (!entry) return Error::Internal("corrupt index entry");
  for (const auto& [name, value] : condition_.filters) {
    auto a = entry->find(name);
    if (a == entry->end() || !(a->second == value)) return std::optional<VectorCandidate>();
  }
  auto v = index::ItemVector(index_, *entry);
  if (!v) return std::optional<VectorCandidate>();
  const vector::Metric metric = index::EngineMetric(index_.vector->metric);
  double d = vector::Distance(metric, query_.data(), v->data(), index_.vector->dimensions);
  if (worse_than && !(VectorCandidate{d, std::string(key), {}} < *worse_than)) {
    return std::optional<VectorCandidate>();
  }
  if (hiding_) {
    // An expired item hidden from reads (docs/compatibility.md, the hide-expired tag) leaves
    // answers at once; a projection without the TTL attribute reads it from the item.
    bool expired = false;
    if (entry->count(table_.ttl_attribute)) {
      expired = model::IsHiddenExpired(table_, *entry, now_ms_);
    } else {
      model::Item key_attrs = index::EntryKeyAttributes(table_, index_, *entry);
      auto pk = key_attrs.find(table_.key.hash.name);
      auto sk = table_.key.range ? key_attrs.find(table_.key.range->name) : key_attrs.end();
      if (pk != key_attrs.end()) {
        std::string item_key = storage::ItemKey(table_.id, pk->second,
                                                sk != key_attrs.end() ? &sk->second : nullptr);
        ASSIGN_OR_RETURN(item_raw, s_.items.store().GetItem(item_key));
        if (item_raw) {
          auto item = storage::DecodeItem(*item_raw);
          if (item) expired = model::IsHiddenExpired(table_, *item, now_ms_);
        }
      }
    }
    if (expired) return std::optional<VectorCandidate>();
  }
  return std::optional<VectorCandidate>(VectorCandidate{d, std::string(key), std::move(*entry)});
}

Result<std::vector<VectorCandidate>> VectorRanker::Exact() const {
  std::priority_queue<VectorCandidate> best;  // the k nearest so far, farthest on top
  auto it = s_.items.store().ScanFamily(storage::Family::kIndexes, lower_,
                                        storage::PrefixSuccessor(lower_), false, nullptr);
  for (; it->Valid(); it->Next()) {
    ASSIGN_OR_RETURN(c, Check(it->key(), it->value(), best.size() == k_ ? &best.top() : nullptr));
    if (!c) continue;
    best.push(std::move(*c));
    if (best.size() > k_) best.pop();
  }
  RETURN_IF_ERROR(it->status());
  return Nearest(best);
}

Result<std::optional<std::vector<VectorCandidate>>> VectorRanker::ByGraph(
    const ops::IndexGraph& graph, size_t matches, size_t exact_up_to) const {
  const size_t live = graph.graph().size();
  vector::KnnPlan plan = vector::PlanKnn(matches, live, k_, exact_up_to);
  if (plan.exact) return std::optional<std::vector<VectorCandidate>>();
  // A HASH condition is a key prefix, checked on the graph's walk; INLINE_FILTER equalities are
  // checked on the candidates read back, so with them the whole candidate list is read.
  const bool partition = condition_.hash.has_value();
  vector::LabelFilter in_partition = [&](uint64_t label) {
    auto key = graph.KeyOf(label);
    return key && key->compare(0, lower_.size(), lower_) == 0;
  };
  // A widened walk finds the earlier walk's candidates again: each label is read and checked
  // once, and the best so far carry over (a candidate the bound turned away stays out, since
  // the bound only tightens).
  std::priority_queue<VectorCandidate> best;
  std::unordered_set<uint64_t> checked;
  for (size_t ef = plan.ef; ef > 0; ef = vector::WidenEf(ef, live)) {
    size_t want = condition_.filters.empty() ? k_ : std::min(ef, live);
    std::vector<vector::Neighbor> found =
        graph.graph().Search(query_.data(), want, partition ? &in_partition : nullptr, ef);
    for (const vector::Neighbor& n : found) {
      if (!checked.insert(n.label).second) continue;
      auto key = graph.KeyOf(n.label);
      if (!key) continue;  // removed since the walk
      ASSIGN_OR_RETURN(raw, s_.items.store().Get(storage::Family::kIndexes, *key));
      if (!raw) continue;  // deleted since; the graph hears of it shortly
      ASSIGN_OR_RETURN(c, Check(*key, *raw, best.size() == k_ ? &best.top() : nullptr));
      if (!c) continue;
      best.push(std::move(*c));
      if (best.size() > k_) best.pop();
    }
    if (best.size() == k_) return std::optional<std::vector<VectorCandidate>>(Nearest(best));
  }
  return std::optional<std::vector<VectorCandidate>>();
}

}  // namespace ttlstore::api
