// Text analysis of a search index's Text fields: the words a value is indexed under (with their
// positions, for MatchPhrase) and the words a Match query looks for. One function per analyzer
// of the service; docs/tablestore.md ("Analyzers") gives the rules with their sources and
// docs/search-engine.md how they are indexed. With the current rules (model::kAnalysisV2):
//   single_word  Chinese, Japanese and Korean text one word per character (the service's
//                "杭州" -> "杭", "州"); other letters and digits split at spaces and
//                punctuation; lowercased unless `case_sensitive`; `delimit_word` also splits
//                letters from digits ("iphone6" -> "iphone", "6")
//   split        split at the parameter's `delimiter` (default whitespace; "\#" is "#"),
//                lowercased unless `case_sensitive`
//   min_word     as single_word (no dictionary: CJK one word per character)
//   max_word     as single_word, and each pair of adjacent CJK characters is a word too, at the
//                first one's position (a query looks for the pairs of its CJK runs)
//   fuzzy        every substring of min_chars..max_chars characters (defaults 1 and 7) of the
//                value's first 1024 characters, lowercased unless `case_sensitive`
// An index written under model::kAnalysisV1 keeps that version's rules (a CJK run one word;
// split and fuzzy always lowercased; max_word as min_word) so its documents and queries agree.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/search_index.h"

namespace ttlstore::search {

// Bounds: at most this many words per value (the rest is not indexed); fuzzy reads the first
// kFuzzyMaxChars characters of a value (the service's limit: the rest is not tokenized).
inline constexpr size_t kMaxWordsPerValue = 10000;
inline constexpr size_t kFuzzyMaxChars = 1024;

struct Word {
  std::string text;
  uint32_t position = 0;  // relative to the value's first word; words may share one
  // The bytes of the analyzed value the word was read from, [start, end) (highlighting);
  // under model::kAnalysisV1 both 0.
  uint32_t start = 0, end = 0;
};

// Whether the words are for a document (every word) or for a Match/MatchPhrase query (max_word:
// the pairs of a CJK run of two or more characters, not its single characters).
enum class AnalyzeFor : uint8_t { kDocument, kQuery };

// The words of `text` in field `field` of an index analyzed under `analysis` (model::kAnalysis*),
// in position order.
std::vector<Word> AnalyzeText(const model::SearchField& field, std::string_view text,
                              uint32_t analysis, AnalyzeFor purpose);
// Whether the field's analyzer makes n-grams (fuzzy): a Match then looks for the query text as
// one word when it is short enough, else for all its longest n-grams.
bool IsFuzzy(const model::SearchField& field);
// fuzzy: the words a Match looks for, all required: the text itself (lowercased unless
// case_sensitive) when it has at most max_chars characters, else each of its max_chars-long
// substrings.
std::vector<std::string> FuzzyQueryWords(const model::SearchField& field, std::string_view text,
                                         uint32_t analysis);

}  // namespace ttlstore::search
