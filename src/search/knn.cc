#include "search/knn.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <queue>

#include "search/bool_query.h"
#include "search/terms.h"
#include "vector/knn_plan.h"

namespace ttlstore::search {
namespace {

// The documents of a fixed (docid, weight) list, each with its weight.
class HitsSource : public Xapian::PostingSource {
 public:
  explicit HitsSource(std::vector<std::pair<Xapian::docid, double>> hits)
      : hits_(std::move(hits)) {
    double max = 0;
    for (const auto& h : hits_) max = std::max(max, h.second);
    max_ = max;
  }
  Xapian::PostingSource* clone() const override { return new HitsSource(hits_); }
  void init(const Xapian::Database&) override {
    at_ = 0;
    started_ = false;
    set_maxweight(max_);
  }
  Xapian::doccount get_termfreq_min() const override { return Xapian::doccount(hits_.size()); }
  Xapian::doccount get_termfreq_est() const override { return Xapian::doccount(hits_.size()); }
  Xapian::doccount get_termfreq_max() const override { return Xapian::doccount(hits_.size()); }
  void next(double) override {
    if (!started_) {
      started_ = true;
      return;
    }
    ++at_;
  }
  void skip_to(Xapian::docid did, double) override {
    started_ = true;
    while (at_ < hits_.size() && hits_[at_].first < did) ++at_;
  }
  bool at_end() const override { return at_ >= hits_.size(); }
  Xapian::docid get_docid() const override { return hits_[at_].first; }
  double get_weight() const override { return hits_[at_].second; }

 private:
  std::vector<std::pair<Xapian::docid, double>> hits_;  // by docid
  double max_ = 0;
  size_t at_ = 0;
  bool started_ = false;
};

}  // namespace

float VectorDistance(vector::Metric m, const float* q, const float* v, size_t dim) {
  switch (m) {
    case vector::Metric::kEuclidean: {
      double s = 0;
      for (size_t i = 0; i < dim; ++i) {
        double d = double(q[i]) - double(v[i]);
        s += d * d;
      }
      return float(s);
    }
    case vector::Metric::kCosine: {
      double dot = 0, nq = 0, nv = 0;
      for (size_t i = 0; i < dim; ++i) {
        dot += double(q[i]) * double(v[i]);
        nq += double(q[i]) * double(q[i]);
        nv += double(v[i]) * double(v[i]);
      }
      if (nq == 0 || nv == 0) return 1.0f;
      return float(1.0 - dot / (std::sqrt(nq) * std::sqrt(nv)));
    }
    case vector::Metric::kDotProduct: {
      double dot = 0;
      for (size_t i = 0; i < dim; ++i) dot += double(q[i]) * double(v[i]);
      return float(1.0 - dot);
    }
  }
  return 0;
}

std::vector<Xapian::docid> MatchingDocids(const Xapian::Database& db, const Xapian::Query& q) {
  Xapian::Enquire enquire(db);
  enquire.set_query(BoolQuery(q));
  enquire.set_weighting_scheme(Xapian::BoolWeight());
  enquire.set_docid_order(Xapian::Enquire::ASCENDING);
  Xapian::MSet mset = enquire.get_mset(0, std::max<Xapian::doccount>(db.get_doccount(), 1));
  std::vector<Xapian::docid> out;
  out.reserve(mset.size());
  for (auto m = mset.begin(); m != mset.end(); ++m) out.push_back(*m);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<vector::Neighbor> NearestDocuments(const Xapian::Database& db, const KnnSpec& spec,
                                               const Xapian::Query& filter, size_t* examined) {
  std::vector<vector::Neighbor> out;
  if (spec.k == 0 || spec.dim == 0) return out;
  std::vector<Xapian::docid> ids = MatchingDocids(db, filter);
  // A max-heap of the k nearest so far: (distance, docid), the farthest on top.
  std::priority_queue<std::pair<float, Xapian::docid>> best;
  std::vector<float> v(spec.dim);
  size_t n = 0;
  auto it = db.valuestream_begin(spec.slot);
  auto end = db.valuestream_end(spec.slot);
  for (Xapian::docid id : ids) {
    if (it == end) break;
    if (it.get_docid() < id) it.skip_to(id);
    if (it == end) break;
    if (it.get_docid() != id) continue;
    std::string bytes = *it;
    if (bytes.size() != spec.dim * sizeof(float)) continue;
    // Little-endian on disk; the machines this runs on are little-endian (x86-64, arm64).
    std::memcpy(v.data(), bytes.data(), bytes.size());
    ++n;
    float d = VectorDistance(spec.metric, spec.query, v.data(), spec.dim);
    if (!std::isfinite(d)) continue;
    if (best.size() < spec.k) {
      best.emplace(d, id);
    } else if (std::make_pair(d, id) < best.top()) {
      best.pop();
      best.emplace(d, id);
    }
  }
  if (examined) *examined += n;
  out.resize(best.size());
  for (size_t i = out.size(); i-- > 0;) {
    out[i] = vector::Neighbor{best.top().second, best.top().first};
    best.pop();
  }
  return out;
}

size_t CountMatches(const Xapian::Database& db, const Xapian::Query& q, size_t at_least) {
  if (q.get_type() == Xapian::Query::LEAF_MATCH_ALL) return db.get_doccount();
  Xapian::Enquire enquire(db);
  enquire.set_query(BoolQuery(q));
  enquire.set_weighting_scheme(Xapian::BoolWeight());
  Xapian::MSet mset = enquire.get_mset(0, 0, Xapian::doccount(std::min<size_t>(at_least, UINT32_MAX)));
  if (mset.get_matches_lower_bound() < at_least) return mset.get_matches_lower_bound();
  return std::max<size_t>(mset.get_matches_estimated(), at_least);
}

std::optional<std::vector<vector::Neighbor>> GraphNearestDocuments(
    const Xapian::Database& db, const vector::VectorIndex& graph, const KnnSpec& spec,
    const GraphFilter& gf, const Xapian::Query& alive, size_t ef, size_t* examined) {
  std::vector<vector::Neighbor> out;
  if (spec.k == 0 || spec.dim == 0) return out;
  size_t live = graph.size();
  std::vector<float> v(spec.dim);
  std::vector<bool> bits;
  const bool use_bits = gf.filter.get_type() != Xapian::Query::LEAF_MATCH_ALL;
  if (use_bits) {
    bits.assign(size_t(db.get_lastdocid()) + 1, false);
    for (Xapian::docid id : MatchingDocids(db, gf.filter)) {
      if (id < bits.size()) bits[id] = true;
    }
  }
  vector::LabelFilter accept = [&](uint64_t label) {
    if (use_bits && (label >= bits.size() || !bits[size_t(label)])) return false;
    if (gf.min_timestamp) {
      if (label > UINT32_MAX) return false;
      try {
        return db.get_document(Xapian::docid(label)).get_value(kSlotTimestamp) >= *gf.min_timestamp;
      } catch (const Xapian::DocNotFoundError&) {
        return false;
      }
    }
    return true;
  };
  const bool filtered = use_bits || gf.min_timestamp.has_value();
  while (true) {
    std::vector<vector::Neighbor> cands =
        graph.Search(spec.query, ef, filtered ? &accept : nullptr, ef, examined);
    std::vector<std::pair<Xapian::docid, double>> ids;
    ids.reserve(cands.size());
    for (const auto& c : cands) {
      if (c.label > 0 && c.label <= UINT32_MAX) ids.emplace_back(Xapian::docid(c.label), 0.0);
    }
    // The candidates this reader holds that match the filter (the TTL included).
    Xapian::Query q(Xapian::Query::OP_FILTER, HitsQuery(std::move(ids)), alive);
    std::vector<vector::Neighbor> kept;
    for (Xapian::docid id : MatchingDocids(db, q)) {
      std::string bytes = db.get_document(id).get_value(spec.slot);
      if (bytes.size() != spec.dim * sizeof(float)) continue;
      std::memcpy(v.data(), bytes.data(), bytes.size());
      float d = VectorDistance(spec.metric, spec.query, v.data(), spec.dim);
      if (std::isfinite(d)) kept.push_back(vector::Neighbor{id, d});
    }
    if (kept.size() >= spec.k) {
      auto nearer = [](const vector::Neighbor& a, const vector::Neighbor& b) {
        return a.distance < b.distance || (a.distance == b.distance && a.label < b.label);
      };
      std::sort(kept.begin(), kept.end(), nearer);
      kept.resize(spec.k);
      return kept;
    }
    ef = vector::WidenEf(ef, live);
    if (ef == 0) return std::nullopt;
  }
}

Xapian::Query HitsQuery(std::vector<std::pair<Xapian::docid, double>> hits) {
  std::sort(hits.begin(), hits.end());
  if (hits.empty()) return Xapian::Query::MatchNothing;
  return Xapian::Query((new HitsSource(std::move(hits)))->release());
}

}  // namespace ttlstore::search
