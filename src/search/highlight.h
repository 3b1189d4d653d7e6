// Highlighting (issue 32): Search's Highlight, the fragments of a row's Text field that hold the
// words the query matched, each marked with the field's pre and post tags, as the service's
// "Highlight" page describes (docs/tablestore.md, "Highlighting", has each rule and source).
//
// What is marked: the words of the field that the query's positive clauses match (Match and its
// analyzed words, MatchPhrase's phrase occurrences as one span, Term and Terms' word as given,
// Prefix, Wildcard), through Bool's must, filter and should, ConstScore and function-score
// queries, never must_not. A field the query does not search gets no fragments.
//
// How fragments are cut (Chosen after Elasticsearch's unified highlighter, which the service's
// tags, encoder and defaults follow): each value is read in sentences; a fragment is the
// sentence holding a match, with the following sentences while the fragment stays within
// fragment_size characters; a sentence longer than that is cut at word boundaries around its
// match. Every match in a fragment is marked (overlapping matches as one span, adjacent ones
// each with their own tags). The number_of_fragments fragments with the most matches are kept,
// in text order (TEXT_SEQUENCE) or by their number of matches (SCORE); number_of_fragments 0
// returns each value that has a match whole. The HTML encoder escapes the text, not the tags.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "model/search_index.h"
#include "model/versioned_table.h"
#include "search/query.h"
#include "versions/row.h"

namespace ttlstore::search {

// Bounds (Chosen): a highlight names at most kMaxHighlightFields fields, each asks for at most
// kMaxFragments fragments of at most kMaxFragmentSize characters; tags are at most
// kMaxTagBytes bytes.
inline constexpr size_t kMaxHighlightFields = 100;
inline constexpr int32_t kMaxFragments = 100;
inline constexpr int32_t kMaxFragmentSize = 100000;
inline constexpr size_t kMaxTagBytes = 256;

// Ok, or kValidation with the message, for `spec` against `index`: each field once, a Text
// field with enable_highlighting (else the service's "highlighting is not supported for
// field[f]"), the bounds above, tags of the service's characters. Top-level fields for a
// Search's highlight; with `nested_path` (an InnerHits highlight of the NestedQuery on that
// path), sub-fields of that Nested field named by full path ("n.nt").
Status ValidateHighlight(const model::SearchIndexMeta& index, const HighlightSpec& spec,
                         std::string_view nested_path = {});

struct HighlightedField {
  std::string field;
  std::vector<std::string> fragments;
};

class Highlighter {
 public:
  // REQUIRES: ValidateHighlight(index, spec) is ok; `index` outlives the highlighter.
  Highlighter(const model::SearchIndexMeta& index, const Query& query, HighlightSpec spec);
  ~Highlighter();
  Highlighter(const Highlighter&) = delete;
  Highlighter& operator=(const Highlighter&) = delete;

  // The highlighted fields of the row stored under `row_key` (its primary key and each column's
  // newest visible version at now_ms), in the spec's order; fields without a fragment are left
  // out.
  std::vector<HighlightedField> HighlightRow(const model::TablestoreSchema& table,
                                             std::string_view row_key,
                                             const versions::StoredRow& row,
                                             int64_t now_ms) const;

  // The fragments of the spec's field `spec_index` over the field's text values (an array
  // field's elements, or one value).
  std::vector<std::string> Fragments(size_t spec_index,
                                     const std::vector<std::string>& values) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ttlstore::search
