// Text analysis of a search index's Text fields: the words a value is indexed under (with their
// positions, for MatchPhrase) and the words a Match query looks for. One function per analyzer
// of the service (docs/tablestore.md, "Search indexes", which says what is ours):
//   single_word  lowercased (unless case_sensitive), split at every character that is not a
//                letter or digit; each non-ASCII character (UTF-8) counts as a letter
//   split        split at the delimiter (analyzer_parameter's `delimiter`, default whitespace),
//                lowercased
//   min_word, max_word  as single_word, but each non-ASCII character is a word of its own
//                (no dictionary: CJK text becomes one word per character)
//   fuzzy        every substring of min_chars..max_chars characters (defaults 1 and 7) of the
//                lowercased value
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/search_index.h"

namespace ttlstore::search {

// Bounds: at most this many words per value (the rest is not indexed).
inline constexpr size_t kMaxWordsPerValue = 10000;

std::vector<std::string> AnalyzeText(const model::SearchField& field, std::string_view text);
// Whether the field's analyzer makes n-grams (fuzzy): a Match then looks for the query text as
// one word when it is short enough, else for all its longest n-grams.
bool IsFuzzy(const model::SearchField& field);
// fuzzy: the words a Match looks for, all required: the lowercased text itself when it has at
// most max_chars characters, else each of its max_chars-long substrings.
std::vector<std::string> FuzzyQueryWords(const model::SearchField& field, std::string_view text);

}  // namespace ttlstore::search
