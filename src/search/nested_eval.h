// A query tested on one sub-document of a Nested field (docs/search-engine.md, "Nested
// fields"): what makes a NestedQuery's conditions hold within one sub-document, and what finds
// the sub-documents of inner hits and of nested sorts' filters.
//
// Each kind of query means here what its Xapian form (query_builder.h) means on a document whose
// only values are the sub-document's: Term and Terms compare the indexed form (numbers by their
// 8-byte form, strings cut at kMaxTermValueBytes, Text by its analyzed words), Range compares
// the same forms, Prefix and Wildcard the cut strings or words, Match and MatchPhrase the words
// of the query against the words (and positions) of the sub-document's text, geo queries the
// sub-document's points, and a NestedQuery inside tests the sub-documents below.
//
// Scores (Chosen: the service's are Lucene's BM25, which ttlstore does not reproduce): a matching
// leaf scores its weight (1 unless given), MatchAll 1, a Bool query the sum of its matching must
// and should clauses' scores, a NestedQuery the score_mode of its matching sub-documents' scores
// (avg, max, min, total; none: 0); each times its weight.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "model/search_index.h"
#include "search/field_ref.h"
#include "search/nested_field.h"
#include "search/query.h"

namespace ttlstore::search {

class NestedMatcher {
 public:
  struct Node;

  // `q` to be tested on sub-documents of the Nested field `scope`. REQUIRES: ValidateQuery has
  // accepted the query `q` belongs to (query_builder.h), with `scope` its NestedQuery's path.
  static std::shared_ptr<const NestedMatcher> Compile(const model::SearchIndexMeta& index,
                                                      const FieldRef& scope, const Query& q);

  // Whether sub-document `d` matches; its score in *score when it does.
  bool Match(const NestedDoc& d, double* score) const;
  // No score Match gives exceeds this.
  double MaxScore() const;

  ~NestedMatcher();

 private:
  NestedMatcher() = default;
  std::unique_ptr<Node> root_;
  uint32_t analysis_ = 0;
};

// The sub-documents `steps` (sub-field positions, each a Nested sub-field) below each of `docs`
// (`docs` themselves when `steps` is empty).
void DescendNested(std::span<const NestedDoc* const> docs, std::span<const size_t> steps,
                   std::vector<const NestedDoc*>* out);

// The scores of the matching sub-documents combined by `mode` (REQUIRES: not empty).
double CombineScores(Query::ScoreMode mode, const std::vector<double>& scores);

// A NestedQuery as a whole: the sub-documents at its path below where it stands (a row, or a
// sub-document of an enclosing NestedQuery's path), each tested by its inner query's matcher.
class NestedQueryTester {
 public:
  // REQUIRES: q.kind == kNested, validated; `scope` the enclosing NestedQuery's path (null at
  // the top level).
  NestedQueryTester(const model::SearchIndexMeta& index, const FieldRef* scope, const Query& q);
  // At the top level: whether the row whose top-level Nested slot value is `slot` matches, and
  // its score (the score_mode of the matches; the query's weight applies outside).
  bool TestSlot(std::string_view slot, double* score) const;
  // The matching sub-documents at the path, with their scores, below the row's top-level
  // sub-documents `top` (top level) or below sub-document `here` of the scope.
  void Matches(const std::vector<NestedDoc>* top, const NestedDoc* here,
               std::vector<std::pair<const NestedDoc*, double>>* out) const;
  // The score of a match set (Matches not empty): its score_mode.
  double Score(const std::vector<std::pair<const NestedDoc*, double>>& matches) const;
  const FieldRef& path() const { return path_; }
  double MaxScore() const;

 private:
  const model::SearchField* top_ = nullptr;
  FieldRef path_;
  std::vector<size_t> steps_;  // below the row's top-level sub-documents, or below `here`
  bool scoped_ = false;
  std::shared_ptr<const NestedMatcher> matcher_;
  Query::ScoreMode mode_ = Query::ScoreMode::kAvg;
};

}  // namespace ttlstore::search
