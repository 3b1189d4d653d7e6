// VectorIndex over hnswlib 0.6.2. The only file that includes hnswlib: its header defines
// non-inline functions (CPU feature probes), so a second includer would not link.
//
// hnswlib 0.6.2 has no filtered search (0.7 added one) and its searchKnn reads a shared `ef_`;
// Search therefore walks the graph itself, over hnswlib's public layout (link lists, stored
// vectors, the visited-list pool): the greedy descent through the upper layers, then the
// best-first search of layer 0 with a candidate list of `ef`, where a node the filter refuses
// (or one marked deleted) is still expanded but never enters the results.
#include "vector/vector_index.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <mutex>
#include <queue>
#include <shared_mutex>

#include <hnswlib/hnswlib.h>

namespace ttlstore::vector {
namespace {

using Graph = hnswlib::HierarchicalNSW<float>;
using Internal = hnswlib::tableint;

constexpr size_t kInitialCapacity = 1024;
// Compaction: deleted nodes must outnumber live ones and be at least this many.
constexpr size_t kCompactMinDeleted = 4096;

std::unique_ptr<hnswlib::SpaceInterface<float>> SpaceFor(size_t dim, Metric metric) {
  if (metric == Metric::kEuclidean) return std::make_unique<hnswlib::L2Space>(dim);
  return std::make_unique<hnswlib::InnerProductSpace>(dim);
}

Status FsyncPath(const std::string& path, bool directory) {
  int fd = ::open(path.c_str(), directory ? O_RDONLY | O_DIRECTORY : O_RDONLY);
  if (fd < 0) return Error::Internal("cannot open " + path + " to sync it");
  int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) return Error::Internal("cannot sync " + path);
  return Status::Ok();
}

}  // namespace

struct VectorIndex::Impl {
  std::unique_ptr<hnswlib::SpaceInterface<float>> space;
  std::unique_ptr<Graph> graph;
  mutable std::shared_mutex mu;

  // The internal id of a live label, or -1.
  int64_t Live(uint64_t label) const {
    auto it = graph->label_lookup_.find(label);
    if (it == graph->label_lookup_.end() || graph->isMarkedDeleted(it->second)) return -1;
    return int64_t(it->second);
  }
  float Dist(const float* q, Internal id) const {
    return graph->fstdistfunc_(q, graph->getDataByInternalId(id), graph->dist_func_param_);
  }
};

VectorIndex::VectorIndex(size_t dim, Metric metric)
    : dim_(dim), metric_(metric), impl_(std::make_unique<Impl>()) {
  impl_->space = SpaceFor(dim, metric);
  impl_->graph = std::make_unique<Graph>(impl_->space.get(), kInitialCapacity, kLinks,
                                         kEfConstruction);
}

VectorIndex::VectorIndex(size_t dim, Metric metric, std::unique_ptr<Impl> impl)
    : dim_(dim), metric_(metric), impl_(std::move(impl)) {}

VectorIndex::~VectorIndex() = default;

const float* VectorIndex::Prepared(const float* v, std::vector<float>* buf) const {
  if (metric_ != Metric::kCosine) return v;
  buf->assign(v, v + dim_);
  double norm = 0;
  for (float x : *buf) norm += double(x) * double(x);
  if (norm > 0) {
    double inv = 1.0 / std::sqrt(norm);
    for (float& x : *buf) x = float(double(x) * inv);
  }
  return buf->data();
}

void VectorIndex::Upsert(uint64_t label, const float* v) {
  std::vector<float> buf;
  const float* p = Prepared(v, &buf);
  std::unique_lock lock(impl_->mu);
  Graph& g = *impl_->graph;
  if (g.cur_element_count >= g.max_elements_ && !g.label_lookup_.count(label)) {
    g.resizeIndex(std::max(kInitialCapacity, g.max_elements_ * 2));
  }
  g.addPoint(p, label);
}

void VectorIndex::Remove(uint64_t label) {
  std::unique_lock lock(impl_->mu);
  int64_t id = impl_->Live(label);
  if (id >= 0) impl_->graph->markDeletedInternal(Internal(id));
}

bool VectorIndex::Contains(uint64_t label) const {
  std::shared_lock lock(impl_->mu);
  return impl_->Live(label) >= 0;
}

bool VectorIndex::Get(uint64_t label, std::vector<float>* out) const {
  std::shared_lock lock(impl_->mu);
  int64_t id = impl_->Live(label);
  if (id < 0) return false;
  const float* d = reinterpret_cast<const float*>(impl_->graph->getDataByInternalId(Internal(id)));
  out->assign(d, d + dim_);
  return true;
}

size_t VectorIndex::size() const {
  std::shared_lock lock(impl_->mu);
  return impl_->graph->cur_element_count - impl_->graph->num_deleted_;
}

size_t VectorIndex::deleted() const {
  std::shared_lock lock(impl_->mu);
  return impl_->graph->num_deleted_;
}

size_t VectorIndex::MemoryBytes() const {
  std::shared_lock lock(impl_->mu);
  const Graph& g = *impl_->graph;
  size_t bytes = g.max_elements_ * g.size_data_per_element_;
  for (size_t i = 0; i < g.cur_element_count; ++i) {
    bytes += size_t(std::max(0, g.element_levels_[i])) * g.size_links_per_element_;
  }
  bytes += g.label_lookup_.size() * 32;  // hash-map node, approximately
  return bytes;
}

std::vector<Neighbor> VectorIndex::Search(const float* q_in, size_t k, const LabelFilter* allowed,
                                          size_t ef, size_t* examined) const {
  std::vector<Neighbor> out;
  if (k == 0) return out;
  std::vector<float> buf;
  const float* q = Prepared(q_in, &buf);
  std::shared_lock lock(impl_->mu);
  const Graph& g = *impl_->graph;
  if (g.cur_element_count == 0 || g.cur_element_count == g.num_deleted_) return out;
  ef = std::max({ef, kEfSearch, k});
  size_t computed = 0;
  auto dist = [&](Internal id) {
    ++computed;
    return impl_->Dist(q, id);
  };
  // Greedy descent through the upper layers.
  Internal cur = g.enterpoint_node_;
  float cur_d = dist(cur);
  for (int level = g.maxlevel_; level > 0; --level) {
    bool moved = true;
    while (moved) {
      moved = false;
      unsigned int* list = g.get_linklist(cur, level);
      int n = g.getListCount(list);
      Internal* next = reinterpret_cast<Internal*>(list + 1);
      for (int i = 0; i < n; ++i) {
        float d = dist(next[i]);
        if (d < cur_d) {
          cur_d = d;
          cur = next[i];
          moved = true;
        }
      }
    }
  }
  auto accept = [&](Internal id) {
    if (g.isMarkedDeleted(id)) return false;
    return !allowed || (*allowed)(g.getExternalLabel(id));
  };
  // Layer 0: candidates nearest first; results farthest first, at most ef.
  using Item = std::pair<float, Internal>;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> candidates;
  std::priority_queue<Item> results;
  // The filter may throw (it reads the caller's database): the visited list goes back to its
  // pool whatever happens.
  struct Visited {
    hnswlib::VisitedListPool* pool;
    hnswlib::VisitedList* list;
    ~Visited() { pool->releaseVisitedList(list); }
  } guard{g.visited_list_pool_, g.visited_list_pool_->getFreeVisitedList()};
  hnswlib::VisitedList* visited = guard.list;
  hnswlib::vl_type* mark = visited->mass;
  hnswlib::vl_type tag = visited->curV;
  candidates.emplace(cur_d, cur);
  mark[cur] = tag;
  if (accept(cur)) results.emplace(cur_d, cur);
  while (!candidates.empty()) {
    auto [d, id] = candidates.top();
    if (results.size() >= ef && d > results.top().first) break;
    candidates.pop();
    unsigned int* list = g.get_linklist0(id);
    int n = g.getListCount(list);
    Internal* next = reinterpret_cast<Internal*>(list + 1);
    for (int i = 0; i < n; ++i) {
      Internal c = next[i];
      if (mark[c] == tag) continue;
      mark[c] = tag;
      float dc = dist(c);
      if (results.size() < ef || dc < results.top().first) {
        candidates.emplace(dc, c);
        if (accept(c)) {
          results.emplace(dc, c);
          if (results.size() > ef) results.pop();
        }
      }
    }
  }
  while (results.size() > k) results.pop();
  out.resize(results.size());
  for (size_t i = out.size(); i-- > 0;) {
    out[i] = Neighbor{g.getExternalLabel(results.top().second), results.top().first};
    results.pop();
  }
  if (examined) *examined += computed;
  return out;
}

std::vector<Neighbor> VectorIndex::Exact(const float* q_in, size_t k,
                                         const std::vector<uint64_t>& labels,
                                         size_t* examined) const {
  std::vector<Neighbor> all;
  if (k == 0) return all;
  std::vector<float> buf;
  const float* q = Prepared(q_in, &buf);
  std::shared_lock lock(impl_->mu);
  all.reserve(labels.size());
  for (uint64_t label : labels) {
    int64_t id = impl_->Live(label);
    if (id < 0) continue;
    all.push_back(Neighbor{label, impl_->Dist(q, Internal(id))});
  }
  if (examined) *examined += all.size();
  auto nearer = [](const Neighbor& a, const Neighbor& b) {
    return a.distance < b.distance || (a.distance == b.distance && a.label < b.label);
  };
  if (all.size() > k) {
    std::partial_sort(all.begin(), all.begin() + std::ptrdiff_t(k), all.end(), nearer);
    all.resize(k);
  } else {
    std::sort(all.begin(), all.end(), nearer);
  }
  return all;
}

bool VectorIndex::Distance(const float* q_in, uint64_t label, float* out) const {
  std::vector<float> buf;
  const float* q = Prepared(q_in, &buf);
  std::shared_lock lock(impl_->mu);
  int64_t id = impl_->Live(label);
  if (id < 0) return false;
  *out = impl_->Dist(q, Internal(id));
  return true;
}

bool VectorIndex::Matches(uint64_t label, const float* v_in) const {
  std::vector<float> buf;
  const float* v = Prepared(v_in, &buf);
  std::shared_lock lock(impl_->mu);
  int64_t id = impl_->Live(label);
  if (id < 0) return false;
  return std::memcmp(v, impl_->graph->getDataByInternalId(Internal(id)), dim_ * sizeof(float)) == 0;
}

void VectorIndex::ForEach(const std::function<void(uint64_t, const float*)>& fn) const {
  std::shared_lock lock(impl_->mu);
  const Graph& g = *impl_->graph;
  for (const auto& [label, id] : g.label_lookup_) {
    if (g.isMarkedDeleted(id)) continue;
    fn(label, reinterpret_cast<const float*>(g.getDataByInternalId(id)));
  }
}

Status VectorIndex::Save(const std::string& path) const {
  std::string tmp = path + ".tmp";
  {
    std::shared_lock lock(impl_->mu);
    try {
      const_cast<Graph&>(*impl_->graph).saveIndex(tmp);
    } catch (const std::exception& e) {
      return Error::Internal("cannot save vector graph " + tmp + ": " + e.what());
    }
  }
  std::error_code ec;
  if (std::filesystem::file_size(tmp, ec) == 0 || ec) {
    return Error::Internal("cannot write vector graph " + tmp);
  }
  RETURN_IF_ERROR(FsyncPath(tmp, false));
  std::filesystem::rename(tmp, path, ec);
  if (ec) return Error::Internal("cannot rename " + tmp + ": " + ec.message());
  return FsyncPath(std::filesystem::path(path).parent_path().string(), true);
}

Result<std::unique_ptr<VectorIndex>> VectorIndex::Load(const std::string& path, size_t dim,
                                                       Metric metric) {
  auto impl = std::make_unique<Impl>();
  impl->space = SpaceFor(dim, metric);
  try {
    impl->graph = std::make_unique<Graph>(impl->space.get(), path);
  } catch (const std::exception& e) {
    return Error::Internal("cannot load vector graph " + path + ": " + e.what());
  }
  Graph& g = *impl->graph;
  // hnswlib 0.6.2's loading constructor leaves the deleted count uninitialized before it adds
  // to it: counted again here.
  g.num_deleted_ = 0;
  for (size_t i = 0; i < g.cur_element_count && i < g.max_elements_; ++i) {
    if (g.isMarkedDeleted(Internal(i))) ++g.num_deleted_;
  }
  size_t links0 = g.maxM0_ * sizeof(Internal) + sizeof(hnswlib::linklistsizeint);
  if (g.data_size_ != dim * sizeof(float) || g.offsetData_ != links0 ||
      g.label_offset_ != links0 + g.data_size_ ||
      g.size_data_per_element_ != links0 + g.data_size_ + sizeof(hnswlib::labeltype) ||
      g.cur_element_count > g.max_elements_) {
    return Error::Internal("vector graph " + path + " does not match dimension " +
                           std::to_string(dim));
  }
  return std::unique_ptr<VectorIndex>(new VectorIndex(dim, metric, std::move(impl)));
}

bool VectorIndex::CompactIfSparse() {
  {
    std::shared_lock lock(impl_->mu);
    const Graph& g = *impl_->graph;
    size_t live = g.cur_element_count - g.num_deleted_;
    if (g.num_deleted_ < kCompactMinDeleted || g.num_deleted_ <= live) return false;
  }
  // The caller is the only writer: the old graph does not change while the new one is built.
  auto fresh = std::make_unique<Impl>();
  fresh->space = SpaceFor(dim_, metric_);
  size_t live = size();
  fresh->graph = std::make_unique<Graph>(fresh->space.get(), std::max(kInitialCapacity, live),
                                         kLinks, kEfConstruction);
  ForEach([&](uint64_t label, const float* v) { fresh->graph->addPoint(v, label); });
  std::unique_lock lock(impl_->mu);
  std::swap(impl_->space, fresh->space);
  std::swap(impl_->graph, fresh->graph);
  return true;
}

}  // namespace ttlstore::vector
