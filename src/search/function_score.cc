// Function scores: the checks, the arithmetic (Elasticsearch's function_score, which the
// service's FunctionsScoreQuery follows field for field) and the posting source a function-score
// node becomes (see function_score.h).
#include "search/function_score.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <memory>
#include <random>

#include "search/bool_query.h"
#include "search/geo.h"
#include "search/geo_field.h"
#include "search/query_builder.h"
#include "search/terms.h"

namespace ttlstore::search {
namespace {

using model::SearchFieldType;
using Mode = Query::FunctionScoreOptions::ScoreMode;
using Combine = Query::FunctionScoreOptions::CombineMode;

std::string TypeName(SearchFieldType t) {
  switch (t) {
    case SearchFieldType::kLong: return "LONG";
    case SearchFieldType::kDouble: return "DOUBLE";
    case SearchFieldType::kBoolean: return "BOOLEAN";
    case SearchFieldType::kKeyword: return "KEYWORD";
    case SearchFieldType::kText: return "TEXT";
    case SearchFieldType::kDate: return "DATE";
    case SearchFieldType::kGeoPoint: return "GEO_POINT";
    case SearchFieldType::kNested: return "NESTED";
    case SearchFieldType::kVector: return "VECTOR";
  }
  return "UNKNOWN";
}

Status Invalid(std::string m) { return Error::Validation(std::move(m)); }

// The field a function reads: present, of one of `allowed` types, sortable (its values are read
// as sorts read them), not an array (a document keeps only an array's first element).
Status CheckField(const model::SearchIndexMeta& index, const std::string& name,
                  std::string_view what, std::initializer_list<SearchFieldType> allowed,
                  std::string_view allowed_text) {
  if (name.empty()) return Invalid(std::string(what) + ": field_name is required");
  const model::SearchField* f = index.FindField(name);
  if (!f) return Invalid("field:" + name + " is not found in index schema");
  if (std::find(allowed.begin(), allowed.end(), f->type) == allowed.end()) {
    return Invalid(std::string(what) + " is only supported on " + std::string(allowed_text) +
                   " fields, field:" + name + " type:" + TypeName(f->type));
  }
  if (!f->sort_and_agg) {
    return Invalid("field:" + name + " must enable enable_sort_and_agg, but enable_sort_and_agg "
                   "is not enabled");
  }
  if (f->is_array) {
    return Invalid("field:" + name + " is an array: " + std::string(what) +
                   " on array fields is not supported by ttlstore");
  }
  return Status::Ok();
}

bool Finite(double d) { return std::isfinite(d); }

double Modify(ScoreFunction::Modifier m, double x) {
  using M = ScoreFunction::Modifier;
  switch (m) {
    case M::kNone: return x;
    case M::kLog: return std::log10(x);
    case M::kLog1p: return std::log10(x + 1);
    case M::kLog2p: return std::log10(x + 2);
    case M::kLn: return std::log(x);
    case M::kLn1p: return std::log1p(x);
    case M::kLn2p: return std::log1p(x + 1);
    case M::kSquare: return x * x;
    case M::kSqrt: return std::sqrt(x);
    case M::kReciprocal: return 1.0 / x;
  }
  return x;
}

double DecayOf(const ScoreFunction& f, double value) {
  double d = std::max(0.0, std::fabs(value - f.origin) - f.offset);
  switch (f.decay_kind) {
    case ScoreFunction::Decay::kGauss:  // decay at d = scale, a normal curve
      return std::exp(d * d * std::log(f.decay) / (f.scale * f.scale));
    case ScoreFunction::Decay::kExp:
      return std::exp(d * std::log(f.decay) / f.scale);
    case ScoreFunction::Decay::kLinear: {
      double s = f.scale / (1.0 - f.decay);
      return std::max(0.0, (s - d) / s);
    }
  }
  return 1;
}

// The numeric value of field slot bytes (terms.h: 0x01 . 8-byte form), or nullopt.
std::optional<double> SlotNumber(SearchFieldType t, const std::string& slot) {
  if (slot.size() != 9 || slot[0] != '\x01') return std::nullopt;
  uint64_t k = KeyFromBytes(std::string_view(slot).substr(1));
  if (t == SearchFieldType::kDouble) {
    uint64_t bits = (k >> 63) ? (k & ~(uint64_t{1} << 63)) : ~k;
    return std::bit_cast<double>(bits);
  }
  return double(static_cast<int64_t>(k ^ (uint64_t{1} << 63)));
}

// The rows of the node with their final scores, in docid order.
struct Scored {
  std::vector<Xapian::docid> docids;
  std::vector<double> scores;
  double max = 0;
};

// Lists precomputed (docid, score) pairs.
class ScoredSource : public Xapian::PostingSource {
 public:
  explicit ScoredSource(std::shared_ptr<const Scored> s) : s_(std::move(s)) {}
  Xapian::PostingSource* clone() const override { return new ScoredSource(s_); }
  void init(const Xapian::Database&) override {
    i_ = 0;
    started_ = false;
    set_maxweight(s_->max);
  }
  Xapian::doccount get_termfreq_min() const override { return Xapian::doccount(size()); }
  Xapian::doccount get_termfreq_est() const override { return Xapian::doccount(size()); }
  Xapian::doccount get_termfreq_max() const override { return Xapian::doccount(size()); }
  double get_weight() const override { return s_->scores[i_]; }
  void next(double) override {
    if (!started_) {
      started_ = true;
      return;
    }
    ++i_;
  }
  void skip_to(Xapian::docid did, double) override {
    started_ = true;
    if (i_ < size() && s_->docids[i_] >= did) return;
    auto it = std::lower_bound(s_->docids.begin() + std::ptrdiff_t(i_), s_->docids.end(), did);
    i_ = size_t(it - s_->docids.begin());
  }
  bool at_end() const override { return i_ >= size(); }
  Xapian::docid get_docid() const override { return s_->docids[i_]; }

 private:
  size_t size() const { return s_->docids.size(); }
  std::shared_ptr<const Scored> s_;
  size_t i_ = 0;
  bool started_ = false;
};

// The docids matching a query, as a bitmap.
class DocSet : public Xapian::MatchSpy {
 public:
  explicit DocSet(Xapian::docid last) : bits_((size_t(last) >> 6) + 1) {}
  void operator()(const Xapian::Document& doc, double) override {
    Xapian::docid d = doc.get_docid();
    bits_[d >> 6] |= uint64_t{1} << (d & 63);
  }
  bool Has(Xapian::docid d) const {
    return (d >> 6) < bits_.size() && (bits_[d >> 6] >> (d & 63)) & 1;
  }

 private:
  std::vector<uint64_t> bits_;
};

// Scores every match of the node's query as it is seen.
class Scorer : public Xapian::MatchSpy {
 public:
  Scorer(const model::SearchIndexMeta& index, const Query& q,
         const std::vector<std::unique_ptr<DocSet>>& filters, uint64_t seed)
      : q_(q), filters_(filters), seed_(seed) {
    for (const auto& f : q.functions) {
      int fi = f.field.empty() ? -1 : FieldIndex(index, f.field);
      slots_.push_back(fi);
      types_.push_back(fi < 0 ? SearchFieldType::kLong : index.fields[size_t(fi)].type);
    }
  }
  void operator()(const Xapian::Document& doc, double wt) override {
    if (out_.docids.size() >= kMaxFunctionScoreMatches) {
      overflow_ = true;
      return;
    }
    Xapian::docid d = doc.get_docid();
    values_.clear();
    for (size_t i = 0; i < q_.functions.size(); ++i) {
      const ScoreFunction& f = q_.functions[i];
      bool match = !filters_[i] || filters_[i]->Has(d);
      std::optional<double> v;
      if (match && slots_[i] >= 0 && f.decay_geo) {
        // The distance of the row's point (geo_field.h; one: arrays are refused) from origin.
        std::vector<GeoCode> points =
            DecodeGeoSlot(doc.get_value(kSlotFieldBase + unsigned(slots_[i])));
        if (!points.empty()) {
          v = ArcDistance(GeoPoint{f.geo_lat, f.geo_lon}, DecodeGeo(points.front()));
        }
      } else if (match && slots_[i] >= 0) {
        v = SlotNumber(types_[i], doc.get_value(kSlotFieldBase + unsigned(slots_[i])));
      }
      double random = 0;
      if (match && f.kind == ScoreFunction::Kind::kRandom) {
        // splitmix64 of the docid and the request's seed: [0, 1), different per request.
        uint64_t z = seed_ + uint64_t(d) * 0x9E3779B97F4A7C15ull;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        random = double(z >> 11) / double(uint64_t{1} << 53);
      }
      values_.push_back(FunctionValue(f, match, v, random));
    }
    double score = CombineFunctionScore(q_.function_score, q_.functions, wt, values_);
    if (q_.function_score.min_score && score < *q_.function_score.min_score) return;
    out_.docids.push_back(d);
    out_.scores.push_back(score);
    out_.max = std::max(out_.max, score);
  }
  bool overflow() const { return overflow_; }
  Scored Take() { return std::move(out_); }

 private:
  const Query& q_;
  const std::vector<std::unique_ptr<DocSet>>& filters_;
  uint64_t seed_;
  std::vector<int> slots_;
  std::vector<SearchFieldType> types_;
  std::vector<std::optional<double>> values_;
  Scored out_;
  bool overflow_ = false;
};

}  // namespace

Status ValidateFunctionScore(const model::SearchIndexMeta& index, const Query& q) {
  if (q.functions.size() > kMaxScoreFunctions) {
    return Invalid("FunctionsScoreQuery: at most " + std::to_string(kMaxScoreFunctions) +
                   " functions are allowed, but there are " + std::to_string(q.functions.size()));
  }
  const auto& o = q.function_score;
  if (o.min_score && !Finite(*o.min_score)) return Invalid("min_score must be a finite number");
  if (o.max_score && !Finite(*o.max_score)) return Invalid("max_score must be a finite number");
  for (const auto& f : q.functions) {
    if (!Finite(f.weight) || f.weight < 0) {
      return Invalid("The weight of a score function must be >= 0, but was " +
                     std::to_string(f.weight));
    }
    switch (f.kind) {
      case ScoreFunction::Kind::kWeight:
      case ScoreFunction::Kind::kRandom:
        break;
      case ScoreFunction::Kind::kFieldValueFactor:
        RETURN_IF_ERROR(CheckField(index, f.field, "FieldValueFactor",
                                   {SearchFieldType::kLong, SearchFieldType::kDouble},
                                   "LONG and DOUBLE"));
        if (!Finite(f.factor)) return Invalid("FieldValueFactor: factor must be a finite number");
        if (f.missing && !Finite(*f.missing)) {
          return Invalid("FieldValueFactor: missing must be a finite number");
        }
        break;
      case ScoreFunction::Kind::kDecay:
        if (f.decay_date) {
          RETURN_IF_ERROR(CheckField(index, f.field, "DecayFunction with DecayFuncDateParam",
                                     {SearchFieldType::kDate}, "DATE"));
        } else if (f.decay_geo) {
          RETURN_IF_ERROR(CheckField(index, f.field, "DecayFunction with DecayFuncGeoParam",
                                     {SearchFieldType::kGeoPoint}, "GEO_POINT"));
        } else {
          RETURN_IF_ERROR(CheckField(index, f.field, "DecayFunction with DecayFuncNumericParam",
                                     {SearchFieldType::kLong, SearchFieldType::kDouble},
                                     "LONG and DOUBLE"));
        }
        if (!Finite(f.origin)) return Invalid("DecayFunction: origin must be a finite number");
        if (!Finite(f.scale) || f.scale <= 0) {
          return Invalid("DecayFunction: scale must be > 0, but was " + std::to_string(f.scale));
        }
        if (!Finite(f.offset) || f.offset < 0) {
          return Invalid("DecayFunction: offset must be >= 0, but was " +
                         std::to_string(f.offset));
        }
        if (!(f.decay > 0 && f.decay < 1)) {
          return Invalid("DecayFunction: decay must be in (0, 1), but was " +
                         std::to_string(f.decay));
        }
        break;
    }
  }
  return Status::Ok();
}

std::optional<double> FunctionValue(const ScoreFunction& f, bool filter_matches,
                                    std::optional<double> field_value, double random) {
  if (!filter_matches) return std::nullopt;
  double v = 1;
  switch (f.kind) {
    case ScoreFunction::Kind::kWeight: v = 1; break;
    case ScoreFunction::Kind::kRandom: v = random; break;
    case ScoreFunction::Kind::kFieldValueFactor: {
      std::optional<double> x = field_value ? field_value : f.missing;
      if (!x) return std::nullopt;
      v = Modify(f.modifier, f.factor * *x);
      break;
    }
    case ScoreFunction::Kind::kDecay:
      // A row without the field scores the most, 1 (the Java SDK's DecayFunction).
      v = field_value ? DecayOf(f, *field_value) : 1.0;
      break;
  }
  if (!std::isfinite(v)) v = 0;  // log of 0, 1/0 ...: Chosen (Elasticsearch refuses)
  return v * f.weight;
}

double CombineFunctionScore(const Query::FunctionScoreOptions& opts,
                            const std::vector<ScoreFunction>& functions, double base,
                            const std::vector<std::optional<double>>& values) {
  double factor = 1;
  switch (opts.score_mode) {
    case Mode::kFirst:
      for (const auto& v : values) {
        if (v) {
          factor = *v;
          break;
        }
      }
      break;
    case Mode::kMax:
    case Mode::kMin: {
      bool any = false;
      double best = 0;
      for (const auto& v : values) {
        if (!v) continue;
        best = !any ? *v : opts.score_mode == Mode::kMax ? std::max(best, *v) : std::min(best, *v);
        any = true;
      }
      if (any) factor = best;
      break;
    }
    case Mode::kMultiply:
      for (const auto& v : values) {
        if (v) factor *= *v;
      }
      break;
    case Mode::kSum:
    case Mode::kAvg: {
      // Elasticsearch's: the sum of the values (weights included), for avg divided by the sum
      // of the applying functions' weights; no applying weight leaves the factor 1.
      double total = 0, weights = 0;
      for (size_t i = 0; i < values.size() && i < functions.size(); ++i) {
        if (!values[i]) continue;
        total += *values[i];
        weights += functions[i].weight;
      }
      if (weights != 0) factor = opts.score_mode == Mode::kAvg ? total / weights : total;
      break;
    }
  }
  if (opts.max_score) factor = std::min(factor, *opts.max_score);
  double out = base;
  switch (opts.combine_mode) {
    case Combine::kMultiply: out = base * factor; break;
    case Combine::kReplace: out = factor; break;
    case Combine::kSum: out = base + factor; break;
    case Combine::kAvg: out = (base + factor) / 2; break;
    case Combine::kMin: out = std::min(base, factor); break;
    case Combine::kMax: out = std::max(base, factor); break;
  }
  if (!(out > 0)) return 0;  // negative or NaN
  return out;
}

Result<Xapian::Query> BuildFunctionScore(const model::SearchIndexMeta& index,
                                         const Xapian::Database& db, const Query& q,
                                         const Xapian::Query& inner,
                                         const std::vector<Xapian::Query>& filters) {
  std::vector<std::unique_ptr<DocSet>> sets(q.functions.size());
  for (size_t i = 0; i < q.functions.size(); ++i) {
    if (q.functions[i].filter.empty()) continue;
    sets[i] = std::make_unique<DocSet>(db.get_lastdocid());
    Xapian::Enquire e(db);
    e.set_query(BoolQuery(Xapian::Query(Xapian::Query::OP_FILTER, inner, filters[i])));
    e.set_weighting_scheme(Xapian::BoolWeight());
    e.add_matchspy(sets[i].get());
    e.get_mset(0, 0, db.get_doccount());
  }
  std::random_device rd;
  uint64_t seed = (uint64_t(rd()) << 32) | rd();
  Scorer scorer(index, q, sets, seed);
  Xapian::Enquire e(db);
  e.set_query(inner);
  e.add_matchspy(&scorer);
  e.get_mset(0, 0, db.get_doccount());
  if (scorer.overflow()) {
    return Error::Validation("FunctionsScoreQuery: its query matches more than " +
                             std::to_string(kMaxFunctionScoreMatches) +
                             " rows; narrow it with a filter");
  }
  auto scored = std::make_shared<Scored>(scorer.Take());
  // The spy sees matches in docid order (no sort is set); keep the source's contract anyway.
  if (!std::is_sorted(scored->docids.begin(), scored->docids.end())) {
    std::vector<size_t> order(scored->docids.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](size_t a, size_t b) { return scored->docids[a] < scored->docids[b]; });
    Scored sorted;
    sorted.max = scored->max;
    for (size_t i : order) {
      sorted.docids.push_back(scored->docids[i]);
      sorted.scores.push_back(scored->scores[i]);
    }
    *scored = std::move(sorted);
  }
  return Xapian::Query((new ScoredSource(std::move(scored)))->release());
}

}  // namespace ttlstore::search
