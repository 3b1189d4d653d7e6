// Histograms (agg_eval.h): GroupByHistogram (groups of `interval` numbers, counted from
// `offset`: the group of x is floor((x - offset) / interval) * interval + offset) and
// GroupByDateHistogram (groups of a date interval, agg_dates.h), both limited to their
// field_range (values outside it are left out; with min_doc_count 0, every group between its
// bounds is returned, empty or not), and the keys of a composite's sources (GroupKeyer).
#include <cmath>
#include <limits>
#include <unordered_map>

#include "search/agg_dates.h"
#include "search/agg_eval.h"
#include "search/agg_validate.h"
#include "search/terms.h"

namespace ttlstore::search {
namespace {

using model::CellValue;
using T = model::SearchFieldType;

constexpr __int128 kMin = std::numeric_limits<int64_t>::min();
constexpr __int128 kMax = std::numeric_limits<int64_t>::max();

__int128 FloorDiv(__int128 a, __int128 b) {
  __int128 q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

int64_t Clamp(__int128 v) { return int64_t(v < kMin ? kMin : v > kMax ? kMax : v); }

bool Integral(long double v) {
  return std::isfinite(v) && std::trunc(v) == v && std::fabs(v) < 4e18L;
}

int64_t FromLongKey(uint64_t k) { return int64_t(k ^ (uint64_t{1} << 63)); }

double FromDoubleKey(uint64_t key) {
  uint64_t b = (key >> 63) ? (key & ~(uint64_t{1} << 63)) : ~key;
  return std::bit_cast<double>(b);
}

}  // namespace

GroupKeyer::GroupKeyer(const GroupBy& g, const Column& col) : g_(g), col_(col) {
  if (g.kind == GroupByKind::kField) return;
  if (g.range_min) lo_ = (long double)(*AggNumber(*g.range_min));
  if (g.range_max) hi_ = (long double)(*AggNumber(*g.range_max));
  if (g.kind == GroupByKind::kHistogram) {
    interval_ = (long double)(*AggNumber(*g.interval));
    if (g.offset) offset_ = (long double)(*AggNumber(*g.offset));
    integral_ = col.type != T::kDouble && Integral(interval_) && Integral(offset_);
    if (integral_) {
      iinterval_ = int64_t(interval_);
      ioffset_ = int64_t(offset_);
    }
  }
  if (g.kind == GroupByKind::kDateHistogram) {
    int64_t offset = g.date_offset ? *FixedMillis(*g.date_offset) : 0;
    rounding_.emplace(g.date_interval, offset, g.time_zone_ms);
  }
  if (g.missing) {
    if (auto m = AggValueOf(col.type, *g.missing)) {
      missing_ = col.type == T::kDouble ? KeyOfNumber(m->dbl, 0)
                                        : KeyOfNumber((long double)(m->integer), m->integer);
    }
  }
}

std::optional<uint64_t> GroupKeyer::KeyOfNumber(long double x, int64_t xi) const {
  if ((lo_ && x < *lo_) || (hi_ && x > *hi_)) return std::nullopt;
  if (rounding_) return LongKey(rounding_->Floor(xi));
  if (integral_) {
    __int128 k = FloorDiv(__int128(xi) - ioffset_, iinterval_) * iinterval_ + ioffset_;
    return LongKey(Clamp(k));
  }
  long double k = std::floor((x - offset_) / interval_) * interval_ + offset_;
  return DoubleKey(double(k));
}

std::optional<uint64_t> GroupKeyer::Key(uint64_t value) const {
  if (g_.kind == GroupByKind::kField) return value;
  if (col_.type == T::kDouble) return KeyOfNumber(col_.Number(value), 0);
  int64_t xi = col_.Integer(value);
  return KeyOfNumber((long double)(xi), xi);
}

std::vector<uint64_t> GroupKeyer::Span() const {
  std::vector<uint64_t> out;
  if (!lo_ || !hi_ || g_.kind == GroupByKind::kField) return out;
  if (rounding_) {
    const DateRounding& r = *rounding_;
    int64_t at = r.Floor(int64_t(*lo_));
    while (at <= *hi_ && out.size() <= size_t(kMaxHistogramGroups)) {
      out.push_back(LongKey(at));
      int64_t next = r.Next(at);
      if (next <= at) break;
      at = next;
    }
    return out;
  }
  if (integral_) {
    __int128 at = FloorDiv(__int128(int64_t(*lo_)) - ioffset_, iinterval_) * iinterval_ + ioffset_;
    for (; at <= __int128(int64_t(*hi_)) && out.size() <= size_t(kMaxHistogramGroups);
         at += iinterval_) {
      out.push_back(LongKey(Clamp(at)));
    }
    return out;
  }
  long double first = std::floor((*lo_ - offset_) / interval_);
  for (int64_t i = 0; i <= kMaxHistogramGroups; ++i) {
    long double k = (first + i) * interval_ + offset_;
    if (k > *hi_) break;
    out.push_back(DoubleKey(double(k)));
  }
  return out;
}

CellValue GroupKeyer::Cell(uint64_t key) const {
  if (g_.kind == GroupByKind::kField) return col_.KeyCell(key);
  if (g_.kind == GroupByKind::kDateHistogram || integral_) {
    return CellValue::Integer(FromLongKey(key));
  }
  return CellValue::Double(FromDoubleKey(key));
}

int64_t GroupKeyer::Timestamp(uint64_t key) const { return FromLongKey(key); }

std::string GroupKeyer::Text(uint64_t key) const {
  if (g_.kind == GroupByKind::kField) return col_.KeyString(key);
  if (g_.kind == GroupByKind::kDateHistogram || integral_) return std::to_string(FromLongKey(key));
  return JavaDoubleString(FromDoubleKey(key));
}

namespace {

// The groups of a histogram or date histogram over `docs`.
std::vector<Evaluator::Bucket> Fill(const GroupKeyer& keyer, const Column& col, const DocList& docs,
                                    bool keep, bool span) {
  std::vector<Evaluator::Bucket> buckets;
  std::unordered_map<uint64_t, uint32_t> at;
  auto bucket = [&](uint64_t key) -> Evaluator::Bucket& {
    auto [it, fresh] = at.try_emplace(key, uint32_t(buckets.size()));
    if (fresh) buckets.push_back(Evaluator::Bucket{key});
    return buckets[it->second];
  };
  if (span) {
    for (uint64_t key : keyer.Span()) bucket(key);
  }
  std::vector<uint64_t> keys;
  for (uint32_t d : docs) {
    keys.clear();
    auto v = col.Values(d);
    if (v.empty()) {
      if (auto m = keyer.MissingKey()) keys.push_back(*m);
    }
    for (uint64_t k : v) {
      if (auto g = keyer.Key(k)) keys.push_back(*g);
    }
    if (keys.size() > 1) {
      std::sort(keys.begin(), keys.end());
      keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    }
    for (uint64_t key : keys) {
      auto& b = bucket(key);
      ++b.count;
      if (keep) b.docs.push_back(d);
    }
  }
  return buckets;
}

}  // namespace

Result<GroupByResult> Evaluator::ByHistogram(const GroupBy& g, const DocList& docs) {
  ASSIGN_OR_RETURN(field, AggField(index_, "groupby_histogram", g.field));
  const Column& col = source_.ColumnOf(*field);
  GroupKeyer keyer(g, col);
  auto buckets = Fill(keyer, col, docs, NeedsDocs(g), g.min_doc_count == 0);
  // The service's pages: groups "sorted by the number of rows, descending" by default.
  static const std::vector<GroupSorter> kByCount = {{GroupSorter::Kind::kRowCount, true, {}}};
  RETURN_IF_ERROR(SortBuckets(g, kByCount, 0, &buckets));
  GroupByResult out;
  out.name = g.name;
  out.kind = g.kind;
  for (auto& b : buckets) {
    GroupItem item;
    item.histogram_key = keyer.Cell(b.key);
    item.row_count = b.count;
    RETURN_IF_ERROR(FillItem(g, b.docs, &item));
    out.items.push_back(std::move(item));
  }
  return out;
}

Result<GroupByResult> Evaluator::ByDateHistogram(const GroupBy& g, const DocList& docs) {
  ASSIGN_OR_RETURN(field, AggField(index_, "groupby_date_histogram", g.field));
  const Column& col = source_.ColumnOf(*field);
  GroupKeyer keyer(g, col);
  auto buckets = Fill(keyer, col, docs, NeedsDocs(g), g.min_doc_count == 0);
  static const std::vector<GroupSorter> kByCount = {{GroupSorter::Kind::kRowCount, true, {}}};
  RETURN_IF_ERROR(SortBuckets(g, kByCount, 0, &buckets));
  GroupByResult out;
  out.name = g.name;
  out.kind = g.kind;
  for (auto& b : buckets) {
    GroupItem item;
    item.timestamp_ms = keyer.Timestamp(b.key);
    item.row_count = b.count;
    RETURN_IF_ERROR(FillItem(g, b.docs, &item));
    out.items.push_back(std::move(item));
  }
  return out;
}

}  // namespace ttlstore::search
