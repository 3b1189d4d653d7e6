// Levels and group-bys (agg_eval.h): a level's aggregations and group-bys in request order;
// group by field (a group per distinct value: a row with an array is in the group of each of
// its values, once), by range ([from, to), a row once per range it has a value in), by filter
// (the rows of the match set a query also matches); the ordering of groups and their
// sub-levels. Histograms and composites: agg_histogram.cc, agg_composite.cc.
#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "search/agg_eval.h"
#include "search/agg_validate.h"
#include "search/bool_query.h"
#include "search/query_builder.h"

namespace ttlstore::search {
namespace {

// Collects the docids a query matches (GroupByFilter).
class DocidSpy : public Xapian::MatchSpy {
 public:
  explicit DocidSpy(std::vector<Xapian::docid>* out) : out_(out) {}
  void operator()(const Xapian::Document& doc, double) override { out_->push_back(doc.get_docid()); }

 private:
  std::vector<Xapian::docid>* out_;
};

// The distinct keys of one document's values (an array may repeat a value).
std::span<const uint64_t> Distinct(std::span<const uint64_t> v, std::vector<uint64_t>* scratch) {
  if (v.size() < 2) return v;
  scratch->assign(v.begin(), v.end());
  std::sort(scratch->begin(), scratch->end());
  scratch->erase(std::unique(scratch->begin(), scratch->end()), scratch->end());
  return *scratch;
}

}  // namespace

Status Evaluator::Level(const std::vector<Aggregation>& aggs, const std::vector<GroupBy>& group_bys,
                        const DocList& docs, std::vector<AggResult>* agg_out,
                        std::vector<GroupByResult>* group_out) {
  for (const auto& a : aggs) {
    ASSIGN_OR_RETURN(r, Metric(a, docs));
    agg_out->push_back(std::move(r));
  }
  for (const auto& g : group_bys) {
    ASSIGN_OR_RETURN(r, Group(g, docs));
    group_out->push_back(std::move(r));
  }
  return Status::Ok();
}

Result<GroupByResult> Evaluator::Group(const GroupBy& g, const DocList& docs) {
  switch (g.kind) {
    case GroupByKind::kField: return ByField(g, docs);
    case GroupByKind::kRange: return ByRange(g, docs);
    case GroupByKind::kFilter: return ByFilter(g, docs);
    case GroupByKind::kHistogram: return ByHistogram(g, docs);
    case GroupByKind::kDateHistogram: return ByDateHistogram(g, docs);
    case GroupByKind::kComposite: return ByComposite(g, docs);
    case GroupByKind::kGeoDistance: return ByGeoDistance(g, docs);
    case GroupByKind::kGeoGrid: return ByGeoGrid(g, docs);
  }
  return Error::Validation("GroupBy type must be set to a known type.");
}

bool Evaluator::NeedsDocs(const GroupBy& g) {
  if (!g.sub_aggs.empty() || !g.sub_group_bys.empty()) return true;
  for (const auto& s : g.sort) {
    if (s.kind == GroupSorter::Kind::kSubAgg) return true;
  }
  return false;
}

Status Evaluator::FillItem(const GroupBy& g, const DocList& docs, GroupItem* item) {
  if (++groups_ > kMaxGroupsPerResponse) {
    return Error::Validation("The group-bys of this search return more than " +
                             std::to_string(kMaxGroupsPerResponse) +
                             " groups: lower their sizes or their nesting.");
  }
  return Level(g.sub_aggs, g.sub_group_bys, docs, &item->sub_aggs, &item->sub_group_bys);
}

Status Evaluator::SortBuckets(const GroupBy& g, const std::vector<GroupSorter>& default_sort,
                              int32_t size, std::vector<Bucket>* buckets) {
  int64_t min_count = g.min_doc_count.value_or(1);
  std::erase_if(*buckets, [&](const Bucket& b) { return b.count < min_count; });
  const std::vector<GroupSorter>& sort = g.sort_given ? g.sort : default_sort;
  for (const auto& s : sort) {
    if (s.kind != GroupSorter::Kind::kSubAgg) continue;
    const Aggregation* sub = nullptr;
    for (const auto& a : g.sub_aggs) {
      if (a.name == s.sub_agg) sub = &a;
    }
    if (!sub) return Error::Validation("sub aggregation [" + s.sub_agg + "] is not found");
    for (auto& b : *buckets) {
      ASSIGN_OR_RETURN(r, Metric(*sub, b.docs));
      b.sub_value = (sub->kind == AggKind::kCount || sub->kind == AggKind::kDistinctCount)
                        ? double(r.count)
                        : r.value;
    }
    break;  // one sub-aggregation sort is all a group can use (the first decides)
  }
  auto less = [&](const Bucket& x, const Bucket& y) {
    for (const auto& s : sort) {
      switch (s.kind) {
        case GroupSorter::Kind::kKey:
          if (x.key != y.key) return s.descending ? x.key > y.key : x.key < y.key;
          break;
        case GroupSorter::Kind::kRowCount:
          if (x.count != y.count) return s.descending ? x.count > y.count : x.count < y.count;
          break;
        case GroupSorter::Kind::kSubAgg:
          if (x.sub_value != y.sub_value) {
            return s.descending ? x.sub_value > y.sub_value : x.sub_value < y.sub_value;
          }
          break;
      }
    }
    return x.key < y.key;
  };
  if (size > 0 && size_t(size) < buckets->size()) {
    std::partial_sort(buckets->begin(), buckets->begin() + size, buckets->end(), less);
    buckets->resize(size_t(size));
  } else {
    std::sort(buckets->begin(), buckets->end(), less);
  }
  return Status::Ok();
}

Result<GroupByResult> Evaluator::ByField(const GroupBy& g, const DocList& docs) {
  ASSIGN_OR_RETURN(field, AggField(index_, "groupby_field", g.field));
  const Column& col = source_.ColumnOf(*field);
  const bool keep = NeedsDocs(g);
  std::vector<Bucket> buckets;
  std::vector<uint32_t> dense;  // Keyword rank -> bucket + 1
  std::unordered_map<uint64_t, uint32_t> sparse;
  if (col.type == model::SearchFieldType::kKeyword) dense.assign(col.dict_.size(), 0);
  std::vector<uint64_t> scratch;
  for (uint32_t d : docs) {
    for (uint64_t k : Distinct(col.Values(d), &scratch)) {
      uint32_t b;
      if (!dense.empty()) {
        if (dense[k] == 0) {
          buckets.push_back(Bucket{k});
          dense[k] = uint32_t(buckets.size());
        }
        b = dense[k] - 1;
      } else {
        auto [it, fresh] = sparse.try_emplace(k, uint32_t(buckets.size()));
        if (fresh) buckets.push_back(Bucket{k});
        b = it->second;
      }
      ++buckets[b].count;
      if (keep) buckets[b].docs.push_back(d);
    }
  }
  // The service's default: most rows first, then key ascending (the Go SDK's
  // TestGroupByGroupByFieldValidType).
  static const std::vector<GroupSorter> kByCount = {{GroupSorter::Kind::kRowCount, true, {}}};
  RETURN_IF_ERROR(SortBuckets(g, kByCount, g.size, &buckets));
  GroupByResult out;
  out.name = g.name;
  out.kind = g.kind;
  for (auto& b : buckets) {
    GroupItem item;
    item.key = col.KeyString(b.key);
    item.row_count = b.count;
    RETURN_IF_ERROR(FillItem(g, b.docs, &item));
    out.items.push_back(std::move(item));
  }
  return out;
}

Result<GroupByResult> Evaluator::ByRange(const GroupBy& g, const DocList& docs) {
  ASSIGN_OR_RETURN(field, AggField(index_, "groupby_range", g.field));
  const Column& col = source_.ColumnOf(*field);
  // Groups in the order of their ranges (from, then to), as the Go SDK's TestGroupByGroupByRange
  // finds the service's.
  std::vector<GroupRange> ranges = g.ranges;
  std::stable_sort(ranges.begin(), ranges.end(), [](const GroupRange& a, const GroupRange& b) {
    return a.from != b.from ? a.from < b.from : a.to < b.to;
  });
  GroupByResult out;
  out.name = g.name;
  out.kind = g.kind;
  for (const auto& r : ranges) {
    DocList in;
    for (uint32_t d : docs) {
      for (uint64_t k : col.Values(d)) {
        double x = col.Number(k);
        if (x >= r.from && x < r.to) {
          in.push_back(d);
          break;
        }
      }
    }
    GroupItem item;
    item.from = r.from;
    item.to = r.to;
    item.row_count = int64_t(in.size());
    RETURN_IF_ERROR(FillItem(g, in, &item));
    out.items.push_back(std::move(item));
  }
  return out;
}

Result<const std::vector<bool>*> Evaluator::Members(const Query& q) {
  auto it = members_.find(&q);
  if (it != members_.end()) return &it->second;
  ASSIGN_OR_RETURN(built, BuildQuery(index_, db_, q));
  std::vector<Xapian::docid> hits;
  DocidSpy spy(&hits);
  Xapian::Enquire enquire(db_);
  enquire.set_query(BoolQuery(built));
  enquire.set_weighting_scheme(Xapian::BoolWeight());
  enquire.add_matchspy(&spy);
  enquire.get_mset(0, 0, db_.get_doccount());
  std::sort(hits.begin(), hits.end());
  const auto& all = source_.matches().docids;
  std::vector<bool> in(all.size(), false);
  size_t j = 0;
  for (size_t i = 0; i < all.size() && j < hits.size(); ++i) {
    while (j < hits.size() && hits[j] < all[i]) ++j;
    if (j < hits.size() && hits[j] == all[i]) in[i] = true;
  }
  return &members_.emplace(&q, std::move(in)).first->second;
}

Result<GroupByResult> Evaluator::ByFilter(const GroupBy& g, const DocList& docs) {
  GroupByResult out;
  out.name = g.name;
  out.kind = g.kind;
  // One group per filter, in the filters' order (the service's GroupByFilter page).
  for (const auto& q : g.filters) {
    ASSIGN_OR_RETURN(members, Members(q));
    DocList in;
    for (uint32_t d : docs) {
      if ((*members)[d]) in.push_back(d);
    }
    GroupItem item;
    item.row_count = int64_t(in.size());
    RETURN_IF_ERROR(FillItem(g, in, &item));
    out.items.push_back(std::move(item));
  }
  return out;
}

}  // namespace ttlstore::search
