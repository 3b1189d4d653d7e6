// The value aggregations (agg_eval.h): avg, max, min, sum, count, distinct_count, percentiles
// and top_rows over a list of documents. All exact: sums of integers in 128 bits, of doubles
// in long double; distinct values counted by sorting their keys; percentiles from every value
// sorted (the service estimates the last two, see docs/tablestore.md).
#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>

#include "search/agg_eval.h"
#include "search/agg_validate.h"
#include "search/query_builder.h"
#include "search/sort_keys.h"
#include "search/terms.h"

namespace ttlstore::search {
namespace {

using model::CellValue;
using T = model::SearchFieldType;

// The default percentiles when none are given (Elasticsearch's percentiles aggregation).
constexpr double kDefaultPercentiles[] = {1, 5, 25, 50, 75, 95, 99};

std::string ScoreComponent(double w, bool descending) {
  std::string s = KeyBytes(DoubleKey(w));
  if (descending) {
    for (auto& c : s) c = char(255 - uint8_t(c));
  }
  return s;
}

}  // namespace

DocList AllDocs(const MatchSet& m) {
  DocList all(m.docids.size());
  for (uint32_t i = 0; i < all.size(); ++i) all[i] = i;
  return all;
}

long double PercentileOf(const std::vector<long double>& sorted, double p) {
  long double rank = (long double)(p) / 100 * (long double)(sorted.size() - 1);
  size_t lo = size_t(std::floor(rank));
  if (lo >= sorted.size() - 1) return sorted.back();
  long double frac = rank - (long double)(lo);
  return sorted[lo] + (sorted[lo + 1] - sorted[lo]) * frac;
}

Result<AggResult> Evaluator::Metric(const Aggregation& a, const DocList& docs) {
  AggResult out;
  out.name = a.name;
  out.kind = a.kind;
  if (a.kind == AggKind::kTopRows) {
    std::vector<SortKey> keys = a.sort;
    if (keys.empty()) {
      for (const auto& k : index_.index_sort) keys.push_back(SortKey{k});
    }
    bool has_pk = false;
    for (const auto& k : keys) has_pk |= k.key.kind == model::SearchSortKey::Kind::kPrimaryKey;
    if (!has_pk) keys.push_back(SortKey{{model::SearchSortKey::Kind::kPrimaryKey, "", false}});
    std::vector<std::unique_ptr<SortKeyMaker>> parts;
    for (const auto& k : keys) {
      auto km = std::make_unique<SortKeyMaker>();
      if (k.key.kind != model::SearchSortKey::Kind::kScore) {
        EffectiveSort one;
        one.keys.push_back(k);
        one.pk_tiebreak = false;
        MakeSortKeys(index_, one, km.get());
      }
      parts.push_back(std::move(km));
    }
    const MatchSet& m = source_.matches();
    // The `limit` smallest keys: a max-heap of the best so far.
    std::priority_queue<std::pair<std::string, uint32_t>> best;
    for (uint32_t d : docs) {
      Xapian::Document doc = db_.get_document(m.docids[d], Xapian::DOC_ASSUME_VALID);
      std::string key;
      for (size_t i = 0; i < keys.size(); ++i) {
        if (keys[i].key.kind == model::SearchSortKey::Kind::kScore) {
          key += ScoreComponent(m.weights.empty() ? 0 : m.weights[d], keys[i].key.descending);
        } else {
          key += (*parts[i])(doc);
        }
      }
      if (best.size() < size_t(a.limit)) {
        best.emplace(std::move(key), d);
      } else if (key < best.top().first) {
        best.pop();
        best.emplace(std::move(key), d);
      }
    }
    std::vector<uint32_t> chosen;
    while (!best.empty()) {
      chosen.push_back(best.top().second);
      best.pop();
    }
    std::reverse(chosen.begin(), chosen.end());
    for (uint32_t d : chosen) {
      out.row_keys.push_back(
          db_.get_document(m.docids[d], Xapian::DOC_ASSUME_VALID).get_value(kSlotRowKey));
    }
    return out;
  }

  ASSIGN_OR_RETURN(field, AggField(index_, "agg", a.field));
  const Column& col = source_.ColumnOf(*field);
  std::optional<CellValue> missing;
  if (a.missing) missing = AggValueOf(col.type, *a.missing);
  const std::optional<uint64_t> missing_key =
      missing ? std::optional<uint64_t>(col.KeyOf(*missing)) : std::nullopt;

  switch (a.kind) {
    case AggKind::kCount: {
      for (uint32_t d : docs) out.count += int64_t(col.Values(d).size());
      return out;
    }
    case AggKind::kDistinctCount: {
      std::vector<uint64_t> keys;
      for (uint32_t d : docs) {
        auto v = col.Values(d);
        if (v.empty()) {
          if (missing_key) keys.push_back(*missing_key);
        } else {
          keys.insert(keys.end(), v.begin(), v.end());
        }
      }
      std::sort(keys.begin(), keys.end());
      out.count = int64_t(std::unique(keys.begin(), keys.end()) - keys.begin());
      return out;
    }
    case AggKind::kPercentiles: {
      std::vector<long double> values;
      for (uint32_t d : docs) {
        auto v = col.Values(d);
        if (v.empty() && missing_key) {
          values.push_back(col.type == T::kDouble ? (long double)(col.Number(*missing_key))
                                                  : (long double)(col.Integer(*missing_key)));
        }
        for (uint64_t k : v) {
          values.push_back(col.type == T::kDouble ? (long double)(col.Number(k))
                                                  : (long double)(col.Integer(k)));
        }
      }
      if (values.empty()) return out;
      std::sort(values.begin(), values.end());
      std::vector<double> ps = a.percentiles;
      if (ps.empty()) ps.assign(std::begin(kDefaultPercentiles), std::end(kDefaultPercentiles));
      std::sort(ps.begin(), ps.end());
      for (double p : ps) {
        long double v = PercentileOf(values, p);
        if (col.type == T::kDouble) {
          out.percentiles.emplace_back(p, CellValue::Double(double(v)));
        } else {
          // Truncated toward zero, as the service's Java converts a percentile of a Long field
          // (the Python SDK's agg_test finds p50 of [-1 x 100, 0..99] to be 0, of 0..99 49).
          out.percentiles.emplace_back(p, CellValue::Integer(int64_t(v)));
        }
      }
      return out;
    }
    default: break;
  }

  // avg, max, min, sum.
  const bool integral = col.type != T::kDouble;
  __int128 isum = 0;
  long double dsum = 0;
  int64_t n = 0;
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
  auto take = [&](uint64_t k) {
    ++n;
    if (integral) {
      int64_t x = col.Integer(k);
      isum += x;
      lo = std::min(lo, double(x));
      hi = std::max(hi, double(x));
    } else {
      double x = col.Number(k);
      dsum += x;
      lo = std::min(lo, x);
      hi = std::max(hi, x);
    }
  };
  for (uint32_t d : docs) {
    auto v = col.Values(d);
    if (v.empty()) {
      if (missing_key) take(*missing_key);
      continue;
    }
    for (uint64_t k : v) take(k);
  }
  long double sum = integral ? (long double)(isum) : dsum;
  switch (a.kind) {
    case AggKind::kSum: out.value = double(sum); break;
    case AggKind::kAvg:
      out.value = n == 0 ? std::numeric_limits<double>::infinity() : double(sum / n);
      break;
    case AggKind::kMax: out.value = hi; break;
    case AggKind::kMin: out.value = lo; break;
    default: break;
  }
  return out;
}

}  // namespace ttlstore::search
