#include "search/agg_exec.h"

#include <algorithm>

#include "search/agg_eval.h"
#include "search/bool_query.h"

namespace ttlstore::search {
namespace {

// Collects every match with its weight.
class MatchSpyAll : public Xapian::MatchSpy {
 public:
  MatchSpyAll(MatchSet* out, bool weights) : out_(out), weights_(weights) {}
  void operator()(const Xapian::Document& doc, double wt) override {
    out_->docids.push_back(doc.get_docid());
    if (weights_) out_->weights.push_back(wt);
  }

 private:
  MatchSet* out_;
  bool weights_;
};

bool AsksScores(const std::vector<Aggregation>& aggs, const std::vector<GroupBy>& group_bys) {
  for (const auto& a : aggs) {
    for (const auto& k : a.sort) {
      if (k.key.kind == model::SearchSortKey::Kind::kScore) return true;
    }
  }
  for (const auto& g : group_bys) {
    if (AsksScores(g.sub_aggs, g.sub_group_bys)) return true;
  }
  return false;
}

}  // namespace

Result<AggOutput> RunAggregations(const model::SearchIndexMeta& index, const Xapian::Database& db,
                                  const Xapian::Query& query, const AggRequest& req,
                                  RowValues row_values) {
  MatchSet matches;
  const bool scores = AsksScores(req.aggs, req.group_bys);
  {
    MatchSpyAll spy(&matches, scores);
    Xapian::Enquire enquire(db);
    enquire.set_query(scores ? query : BoolQuery(query));
    if (!scores) enquire.set_weighting_scheme(Xapian::BoolWeight());
    enquire.add_matchspy(&spy);
    enquire.get_mset(0, 0, db.get_doccount());
  }
  // The spy sees matches in docid order; sort (with their weights) should a matcher not.
  if (!std::is_sorted(matches.docids.begin(), matches.docids.end())) {
    std::vector<uint32_t> order(matches.docids.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](uint32_t a, uint32_t b) { return matches.docids[a] < matches.docids[b]; });
    MatchSet sorted;
    for (uint32_t i : order) {
      sorted.docids.push_back(matches.docids[i]);
      if (scores) sorted.weights.push_back(matches.weights[i]);
    }
    matches = std::move(sorted);
  }
  FieldSource source(index, db, matches, std::move(row_values));
  Evaluator eval(index, db, source);
  AggOutput out;
  RETURN_IF_ERROR(eval.Level(req.aggs, req.group_bys, AllDocs(matches), &out.aggs, &out.group_bys));
  return out;
}

}  // namespace ttlstore::search
