#include "ops/vector_graphs.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <vector>

#include "index/index_key.h"
#include "index/vector_value.h"
#include "storage/item_codec.h"
#include "storage/key_codec.h"

namespace ttlstore::ops {
namespace {

// How often graphs of dropped indexes and tables are looked for.
constexpr auto kDropCheckInterval = std::chrono::seconds(60);

const model::SecondaryIndex* VectorIndexById(const model::TableDescriptor& table,
                                             uint32_t index_id) {
  for (const model::SecondaryIndex& ix : table.indexes) {
    if (ix.id == index_id && ix.IsVector()) return &ix;
  }
  return nullptr;
}

}  // namespace

std::optional<std::string> IndexGraph::KeyOf(uint64_t label) const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  auto it = keys_.find(label);
  if (it == keys_.end()) return std::nullopt;
  return it->second;
}

size_t IndexGraph::CountPrefix(const std::string& prefix, size_t limit) const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  size_t n = 0;
  for (auto it = labels_.lower_bound(prefix);
       it != labels_.end() && n < limit && it->first.compare(0, prefix.size(), prefix) == 0; ++it) {
    ++n;
  }
  return n;
}

void IndexGraph::Upsert(const std::string& entry_key, const float* v) {
  uint64_t label;
  {
    std::unique_lock<std::shared_mutex> lock(mu_);
    auto [it, added] = labels_.try_emplace(entry_key, next_label_);
    if (added) keys_.emplace(next_label_++, entry_key);
    label = it->second;
  }
  graph_.Upsert(label, v);  // never under mu_: a search's filter takes mu_ under the graph's lock
}

void IndexGraph::Remove(const std::string& entry_key) {
  uint64_t label;
  {
    std::shared_lock<std::shared_mutex> lock(mu_);
    auto it = labels_.find(entry_key);
    if (it == labels_.end()) return;
    label = it->second;
  }
  graph_.Remove(label);
  std::unique_lock<std::shared_mutex> lock(mu_);
  labels_.erase(entry_key);
  keys_.erase(label);
}

VectorGraphs::VectorGraphs(storage::Store& store, TableCatalog& catalog)
    : store_(store), catalog_(catalog) {
  listening_ = std::make_unique<index::VectorEntryListening>(
      &store_, [this](const std::vector<index::VectorEntryTouch>& t) { Touched(t); });
}

VectorGraphs::~VectorGraphs() {
  listening_.reset();  // no call into this object after this line
  Stop();
}

void VectorGraphs::Start() {
  thread_ = Thread("vector-graphs", [this] { Loop(); });
}

void VectorGraphs::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::shared_ptr<const IndexGraph> VectorGraphs::Find(const model::TableDescriptor& table,
                                                     const model::SecondaryIndex& index) {
  IndexId id{table.id, index.id};
  std::lock_guard<std::mutex> lock(mu_);
  auto it = graphs_.find(id);
  if (it != graphs_.end()) return it->second;
  if (wanted_.insert(id).second) wake_.notify_all();
  return nullptr;
}

std::string VectorGraphs::RenderMetrics() const {
  size_t graphs = 0, vectors = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    graphs = graphs_.size();
    for (const auto& [id, g] : graphs_) vectors += g->graph().size();
  }
  std::string out;
  out += "# HELP ttlstore_vector_graphs DynamoDB vector indexes with a built HNSW graph.\n";
  out += "# TYPE ttlstore_vector_graphs gauge\nttlstore_vector_graphs " +
         std::to_string(graphs) + "\n";
  out += "# HELP ttlstore_vector_graph_vectors Vectors in those graphs.\n";
  out += "# TYPE ttlstore_vector_graph_vectors gauge\nttlstore_vector_graph_vectors " +
         std::to_string(vectors) + "\n";
  out += "# HELP ttlstore_vector_graph_searches_total SearchVectors requests ranked by a graph.\n";
  out += "# TYPE ttlstore_vector_graph_searches_total counter\n"
         "ttlstore_vector_graph_searches_total " +
         std::to_string(graph_searches_.load(std::memory_order_relaxed)) + "\n";
  return out;
}

void VectorGraphs::Touched(const std::vector<index::VectorEntryTouch>& touches) {
  std::lock_guard<std::mutex> lock(mu_);
  bool any = false;
  for (const auto& t : touches) {
    IndexId id{t.table_id, t.index_id};
    // Only graphs that exist or are being built follow their entries.
    if (!graphs_.count(id) && !wanted_.count(id)) continue;
    touched_.emplace(t.table_id, t.index_id, t.entry_key);
    any = true;
  }
  if (any) wake_.notify_all();
}

std::shared_ptr<IndexGraph> VectorGraphs::Build(IndexId id) {
  TablePtr table = catalog_.FindById(id.first);
  const model::SecondaryIndex* index = table ? VectorIndexById(*table, id.second) : nullptr;
  if (!index) return nullptr;
  const model::VectorIndexSettings& vs = *index->vector;
  auto graph = std::make_shared<IndexGraph>(vs.dimensions, index::EngineMetric(vs.metric));
  std::string lower = index::IndexPrefix(table->id, index->id);
  auto it = store_.ScanFamily(storage::Family::kIndexes, lower,
                              storage::PrefixSuccessor(lower), false, nullptr);
  size_t n = 0;
  for (; it->Valid(); it->Next()) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stop_) return nullptr;
    }
    auto entry = storage::DecodeItem(it->value());
    if (!entry) continue;
    auto v = index::ItemVector(*index, *entry);
    if (!v) continue;
    graph->Upsert(std::string(it->key()), v->data());
    ++n;
  }
  if (!it->status().ok()) {
    spdlog::warn("event=vector_graph_build_failed table={} index={} message=\"{}\"", table->name,
                 index->name, it->status().error().message());
    return nullptr;
  }
  spdlog::info("event=vector_graph_built table={} index={} vectors={}", table->name, index->name,
               n);
  return graph;
}

void VectorGraphs::Refresh(IndexGraph& graph, const model::SecondaryIndex& index,
                           const std::string& key) {
  auto raw = store_.Get(storage::Family::kIndexes, key);
  if (!raw) return;  // a read error: the next write of the key, or a rebuild, catches up
  std::optional<std::vector<float>> v;
  if (*raw) {
    auto entry = storage::DecodeItem(**raw);
    if (entry) v = index::ItemVector(index, *entry);
  }
  if (v) {
    graph.Upsert(key, v->data());
  } else {
    graph.Remove(key);
  }
}

void VectorGraphs::DropGone() {
  // The catalog is read without mu_ held: a writer may hold catalog state while its batch's
  // outcome calls Touched, which takes mu_.
  std::vector<IndexId> ids;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [id, graph] : graphs_) ids.push_back(id);
  }
  std::vector<IndexId> gone;
  for (const IndexId& id : ids) {
    TablePtr table = catalog_.FindById(id.first);
    if (!table || !VectorIndexById(*table, id.second)) gone.push_back(id);
  }
  std::lock_guard<std::mutex> lock(mu_);
  for (const IndexId& id : gone) {
    graphs_.erase(id);
    wanted_.erase(id);
  }
}

void VectorGraphs::Loop() {
  auto last_drop_check = std::chrono::steady_clock::now();
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    // Builds first: touches of an index being built wait in touched_ and are applied after.
    std::optional<IndexId> build;
    for (const IndexId& id : wanted_) {
      if (!graphs_.count(id)) {
        build = id;
        break;
      }
    }
    if (build) {
      lock.unlock();
      std::shared_ptr<IndexGraph> graph = Build(*build);
      lock.lock();
      if (graph) {
        graphs_[*build] = std::move(graph);
      } else if (!stop_) {
        // Gone, or a read failed: forget the request; the next search asks again.
        wanted_.erase(*build);
        for (auto it = touched_.begin(); it != touched_.end();) {
          it = std::get<0>(*it) == build->first && std::get<1>(*it) == build->second
                   ? touched_.erase(it)
                   : std::next(it);
        }
      }
      continue;
    }
    if (!touched_.empty()) {
      auto touched = std::move(touched_);
      touched_.clear();
      lock.unlock();
      for (const auto& [table_id, index_id, key] : touched) {
        std::shared_ptr<IndexGraph> graph;
        {
          std::lock_guard<std::mutex> g(mu_);
          auto it = graphs_.find({table_id, index_id});
          if (it != graphs_.end()) graph = it->second;
        }
        TablePtr table = graph ? catalog_.FindById(table_id) : nullptr;
        const model::SecondaryIndex* index = table ? VectorIndexById(*table, index_id) : nullptr;
        if (index) Refresh(*graph, *index, key);
      }
      lock.lock();
      continue;
    }
    auto now = std::chrono::steady_clock::now();
    if (now - last_drop_check >= kDropCheckInterval) {
      last_drop_check = now;
      lock.unlock();
      DropGone();
      lock.lock();
      continue;
    }
    wake_.wait_for(lock, kDropCheckInterval);
  }
}

}  // namespace ttlstore::ops
