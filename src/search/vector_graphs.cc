// IndexGraphs (vector_graphs.h): load + reconcile on a thread of its own, then changes applied
// by the background thread after each commit, checkpoints when idle and at shutdown.
#include "search/vector_graphs.h"

#include <algorithm>
#include <cstring>
#include <filesystem>

#include <spdlog/spdlog.h>

#include "search/terms.h"
#include "vector/reconcile.h"

namespace ttlstore::search {
namespace {

// Checkpoint policy (vector_graphs.h): changes needed, and the least time between two saves.
constexpr uint64_t kCheckpointMinChanges = 10000;
constexpr int64_t kCheckpointMinIntervalMs = 60000;

}  // namespace

std::vector<VectorField> VectorFieldsOf(const model::SearchIndexMeta& index) {
  std::vector<VectorField> out;
  for (size_t i = 0; i < index.fields.size(); ++i) {
    const model::SearchField& f = index.fields[i];
    if (f.type != model::SearchFieldType::kVector) continue;
    if (f.vector_dimension < 1 || f.vector_dimension > vector::kMaxDimensions) continue;
    out.push_back(VectorField{kSlotFieldBase + unsigned(i), f.vector_dimension,
                              static_cast<vector::Metric>(f.vector_metric)});
  }
  return out;
}

std::optional<std::vector<float>> SlotVector(const Xapian::Document& doc, unsigned slot,
                                             size_t dim) {
  std::string bytes = doc.get_value(slot);
  if (bytes.size() != dim * sizeof(float)) return std::nullopt;
  std::vector<float> v(dim);
  // Little-endian on disk, as on the machines this runs on (x86-64, arm64).
  std::memcpy(v.data(), bytes.data(), bytes.size());
  return v;
}

std::string CheckpointPath(const std::string& folder, unsigned slot) {
  return folder + "/vectors-" + std::to_string(slot) + ".hnsw";
}

IndexGraphs::IndexGraphs(uint32_t index_id, std::string folder, std::vector<VectorField> fields,
                         vector::GraphRegistry& registry)
    : index_id_(index_id), folder_(std::move(folder)), fields_(std::move(fields)),
      registry_(registry) {}

IndexGraphs::~IndexGraphs() { Cancel(); }

std::string IndexGraphs::RegistryId(uint32_t index_id, unsigned slot) {
  return "ts/" + std::to_string(index_id) + "/" + std::to_string(slot);
}

std::shared_ptr<vector::VectorIndex> IndexGraphs::Graph(unsigned slot) const {
  if (!ready()) return nullptr;
  return registry_.Find(RegistryId(index_id_, slot));
}

void IndexGraphs::StartLoad() {
  if (loading_ || ready() || fields_.empty()) return;
  loading_ = true;
  pending_.clear();
  cancel_ = false;
  loader_ = std::thread([this, path = folder_] { LoadAll(path); });
}

void IndexGraphs::LoadAll(std::string path) {
  std::vector<std::shared_ptr<vector::VectorIndex>> out;
  try {
    Xapian::Database db(path);
    for (const VectorField& f : fields_) {
      std::shared_ptr<vector::VectorIndex> graph;
      std::string file = CheckpointPath(folder_, f.slot);
      std::error_code ec;
      if (std::filesystem::exists(file, ec)) {
        auto loaded = vector::VectorIndex::Load(file, f.dim, f.metric);
        if (loaded.ok()) {
          graph = std::move(*loaded);
        } else {
          spdlog::warn("event=vector_checkpoint_unusable path={} message=\"{}\"", file,
                       loaded.error().message());
        }
      }
      if (!graph) graph = std::make_shared<vector::VectorIndex>(f.dim, f.metric);
      // The documents' vectors in docid order. A commit landing twice while this reads makes
      // the reader throw DatabaseModifiedError: it is reopened and the walk resumes after the
      // last docid read. Mixing commits is sound: every docid a commit after the load started
      // touched is replayed from the writer when the load is published (Poll).
      vector::VectorSource source = [&](const std::function<void(uint64_t, const float*)>& fn) {
        Xapian::docid last = 0;
        std::vector<float> v(f.dim);
        for (int attempt = 0; attempt < 1000 && !cancel_; ++attempt) {
          try {
            auto it = db.valuestream_begin(f.slot);
            if (last && it != db.valuestream_end(f.slot)) it.skip_to(last + 1);
            for (; it != db.valuestream_end(f.slot) && !cancel_; ++it) {
              std::string bytes = *it;
              last = it.get_docid();
              if (bytes.size() != f.dim * sizeof(float)) continue;
              std::memcpy(v.data(), bytes.data(), bytes.size());
              fn(last, v.data());
            }
            return;
          } catch (const Xapian::DatabaseModifiedError&) {
            db.reopen();
          }
        }
      };
      auto counts = vector::Reconcile(*graph, source, true);
      if (cancel_) return;
      spdlog::info("event=vector_graph_loaded index_id={} slot={} kept={} upserted={} removed={}",
                   index_id_, f.slot, counts.kept, counts.upserted, counts.removed);
      out.push_back(std::move(graph));
    }
  } catch (const std::exception& e) {
    // Left unpublished (Poll sees no graphs): queries rank exactly; the next open (a restart)
    // tries again.
    spdlog::error("event=vector_graph_load_failed index_id={} message=\"{}\"", index_id_, e.what());
    out.clear();
  }
  std::lock_guard lock(mu_);
  loaded_ = std::move(out);
  load_done_ = true;
}

void IndexGraphs::Apply(const Xapian::Database& db, const std::vector<Xapian::docid>& ids) {
  for (Xapian::docid id : ids) {
    std::optional<Xapian::Document> doc;
    try {
      doc = db.get_document(id);
    } catch (const Xapian::DocNotFoundError&) {
    }
    for (size_t i = 0; i < fields_.size(); ++i) {
      std::optional<std::vector<float>> v;
      if (doc) v = SlotVector(*doc, fields_[i].slot, fields_[i].dim);
      if (v) {
        // Unchanged vectors are left alone: an update re-links the node's neighbourhood
        // (hnswlib's updatePoint), which costs and, repeated, loosens the graph.
        if (!graphs_[i]->Matches(id, v->data())) graphs_[i]->Upsert(id, v->data());
      } else {
        graphs_[i]->Remove(id);
      }
    }
  }
  changes_since_save_ += ids.size();
}

void IndexGraphs::Changed(const Xapian::Database& writer, const std::vector<Xapian::docid>& ids) {
  if (fields_.empty() || ids.empty()) return;
  if (ready()) {
    Apply(writer, ids);
  } else if (loading_) {
    pending_.insert(ids.begin(), ids.end());
  }
}

bool IndexGraphs::Poll(const Xapian::Database& writer) {
  if (fields_.empty()) return false;
  if (loading_) {
    std::vector<std::shared_ptr<vector::VectorIndex>> loaded;
    {
      std::lock_guard lock(mu_);
      if (!load_done_) return false;
      loaded = std::move(loaded_);
      load_done_ = false;
    }
    loader_.join();
    loading_ = false;
    if (loaded.size() != fields_.size()) {  // the load failed (logged): no graphs, exact ranking
      pending_.clear();
      return false;
    }
    graphs_ = std::move(loaded);
    Apply(writer, std::vector<Xapian::docid>(pending_.begin(), pending_.end()));
    pending_.clear();
    for (size_t i = 0; i < fields_.size(); ++i) {
      registry_.Publish(RegistryId(index_id_, fields_[i].slot), graphs_[i]);
    }
    ready_.store(true, std::memory_order_release);
    return true;
  }
  bool did = false;
  if (ready()) {
    for (auto& g : graphs_) did |= g->CompactIfSparse();
  }
  return did;
}

void IndexGraphs::Checkpoint(int64_t now_ms, bool force) {
  if (!ready() || changes_since_save_ == 0) return;
  if (!force) {
    size_t live = 0;
    for (const auto& g : graphs_) live = std::max(live, g->size());
    if (changes_since_save_ < std::max<uint64_t>(kCheckpointMinChanges, live / 10)) return;
    if (now_ms - last_save_ms_ < kCheckpointMinIntervalMs) return;
  }
  for (size_t i = 0; i < fields_.size(); ++i) {
    std::string file = CheckpointPath(folder_, fields_[i].slot);
    if (auto s = graphs_[i]->Save(file); !s.ok()) {
      spdlog::warn("event=vector_checkpoint_failed path={} message=\"{}\"", file,
                   s.error().message());
      return;
    }
  }
  changes_since_save_ = 0;
  last_save_ms_ = now_ms;
  spdlog::debug("event=vector_checkpoint index_id={}", index_id_);
}

void IndexGraphs::Cancel() {
  cancel_ = true;
  if (loader_.joinable()) loader_.join();
  loading_ = false;
  if (ready_.exchange(false)) {
    for (const VectorField& f : fields_) registry_.Drop(RegistryId(index_id_, f.slot));
  }
}

}  // namespace ttlstore::search
