// The Text analyzers (search/analyzer.h) word by word: the service's documented examples
// (docs/tablestore.md, "Analyzers": "杭州" -> "杭", "州"; "Hang Zhou" -> "hang", "zhou";
// "IPhone6" one word, or "iphone", "6" with delimit_word), the parameters' case_sensitive,
// max_word's character pairs, fuzzy's 1024-character limit, and the first rules kept for indexes
// written before them.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "search/analyzer.h"

namespace ttlstore::search {
namespace {

using model::kAnalysisCurrent;
using model::kAnalysisV1;

// A protobuf bool field (varint) and string field, as the SDKs serialize analyzer parameters.
std::string BoolField(int number, bool v) {
  return std::string{char(number << 3), char(v ? 1 : 0)};
}
std::string StringField(int number, const std::string& s) {
  return std::string{char((number << 3) | 2), char(s.size())} + s;
}

model::SearchField Field(const std::string& analyzer, std::string parameter = "") {
  model::SearchField f;
  f.name = "t";
  f.type = model::SearchFieldType::kText;
  f.analyzer = analyzer;
  f.analyzer_parameter = std::move(parameter);
  return f;
}

std::vector<std::string> Texts(const std::vector<Word>& words) {
  std::vector<std::string> out;
  for (const auto& w : words) out.push_back(w.text);
  return out;
}
std::vector<uint32_t> Positions(const std::vector<Word>& words) {
  std::vector<uint32_t> out;
  for (const auto& w : words) out.push_back(w.position);
  return out;
}
std::vector<std::string> Doc(const model::SearchField& f, const std::string& text,
                             uint32_t analysis = kAnalysisCurrent) {
  return Texts(AnalyzeText(f, text, analysis, AnalyzeFor::kDocument));
}
using V = std::vector<std::string>;

TEST(SearchAnalyzer, SingleWordSplitsCjkIntoCharacters) {
  auto f = Field("single_word");
  EXPECT_EQ(Doc(f, "杭州"), (V{"杭", "州"}));
  EXPECT_EQ(Doc(f, "Hang Zhou"), (V{"hang", "zhou"}));
  EXPECT_EQ(Doc(f, "IPhone6"), (V{"iphone6"}));
  EXPECT_EQ(Doc(f, "我在杭州,Hang-Zhou!"), (V{"我", "在", "杭", "州", "hang", "zhou"}));
  // Japanese kana and Korean syllables are one word each too; CJK punctuation separates.
  EXPECT_EQ(Doc(f, "ひらがな。カタ한국"), (V{"ひ", "ら", "が", "な", "カ", "タ", "한", "국"}));
  // Other letters are word characters, lowercased in the common scripts.
  EXPECT_EQ(Doc(f, "Café ÉCOLE Ελλάδα МОСКВА"), (V{"café", "école", "ελλάδα", "москва"}));
  // Positions are consecutive across words and characters (MatchPhrase).
  EXPECT_EQ(Positions(AnalyzeText(f, "a 杭州 b", kAnalysisCurrent, AnalyzeFor::kDocument)),
            (std::vector<uint32_t>{0, 1, 2, 3}));
  // Malformed UTF-8 separates, never crashes or joins.
  EXPECT_EQ(Doc(f, std::string("ab\xff\xc3z", 5)), (V{"ab", "z"}));
  EXPECT_EQ(Doc(f, std::string("\xe6\x9d", 2)), (V{}));
}

TEST(SearchAnalyzer, SingleWordParameters) {
  auto sensitive = Field("single_word", BoolField(1, true));
  EXPECT_EQ(Doc(sensitive, "Hang Zhou"), (V{"Hang", "Zhou"}));
  auto delimit = Field("single_word", BoolField(2, true));
  EXPECT_EQ(Doc(delimit, "IPhone6 6s x2y"), (V{"iphone", "6", "6", "s", "x", "2", "y"}));
  auto both = Field("single_word", BoolField(1, true) + BoolField(2, true));
  EXPECT_EQ(Doc(both, "IPhone6"), (V{"IPhone", "6"}));
}

TEST(SearchAnalyzer, MaxWordAddsCharacterPairs) {
  auto f = Field("max_word");
  auto doc = AnalyzeText(f, "菊花茶 x", kAnalysisCurrent, AnalyzeFor::kDocument);
  EXPECT_EQ(Texts(doc), (V{"菊", "菊花", "花", "花茶", "茶", "x"}));
  EXPECT_EQ(Positions(doc), (std::vector<uint32_t>{0, 0, 1, 1, 2, 3}));
  // A query looks for the pairs of a run of two or more characters, a lone character itself.
  auto query = AnalyzeText(f, "菊花茶 花", kAnalysisCurrent, AnalyzeFor::kQuery);
  EXPECT_EQ(Texts(query), (V{"菊花", "花茶", "花"}));
  EXPECT_EQ(Positions(query), (std::vector<uint32_t>{0, 1, 3}));
  // min_word has no dictionary: as single_word.
  EXPECT_EQ(Doc(Field("min_word"), "菊花茶"), (V{"菊", "花", "茶"}));
}

TEST(SearchAnalyzer, SplitDelimiterAndCase) {
  EXPECT_EQ(Doc(Field("split"), "Aa bB\tc"), (V{"aa", "bb", "c"}));
  EXPECT_EQ(Doc(Field("split", StringField(1, ",")), "a,B,,c d"), (V{"a", "b", "c d"}));
  // "\#" is the documented spelling of the delimiter "#".
  EXPECT_EQ(Doc(Field("split", StringField(1, "\\#")), "x#y"), (V{"x", "y"}));
  auto sensitive = Field("split", StringField(1, ",") + BoolField(2, true));
  EXPECT_EQ(Doc(sensitive, "Ab,CD"), (V{"Ab", "CD"}));
}

TEST(SearchAnalyzer, FuzzyGramsCaseAndLimit) {
  auto f = Field("fuzzy", std::string{0x08, 2, 0x10, 3});  // min 2, max 3
  EXPECT_EQ(Doc(f, "AbCd"), (V{"ab", "abc", "bc", "bcd", "cd"}));
  auto sensitive = Field("fuzzy", std::string{0x08, 2, 0x10, 2} + BoolField(3, true));
  EXPECT_EQ(Doc(sensitive, "AbC"), (V{"Ab", "bC"}));
  EXPECT_EQ(FuzzyQueryWords(sensitive, "AbC", kAnalysisCurrent), (V{"Ab", "bC"}));
  EXPECT_EQ(FuzzyQueryWords(f, "XY", kAnalysisCurrent), (V{"xy"}));
  // Only the first 1024 characters are cut into grams (the service's limit).
  auto one = Field("fuzzy", std::string{0x08, 1, 0x10, 1});
  std::string text(1000, 'a');
  for (int i = 0; i < 100; ++i) text += "苏";
  auto words = Doc(one, text);
  EXPECT_EQ(words.size(), kFuzzyMaxChars);
  EXPECT_EQ(words.back(), "苏");
}

TEST(SearchAnalyzer, FirstRulesKeptForOldIndexes) {
  EXPECT_EQ(Doc(Field("single_word"), "杭州 Hang", kAnalysisV1), (V{"杭州", "hang"}));
  EXPECT_EQ(Doc(Field("max_word"), "菊花茶", kAnalysisV1), (V{"菊", "花", "茶"}));
  auto sensitive = Field("split", StringField(1, ",") + BoolField(2, true));
  EXPECT_EQ(Doc(sensitive, "Ab,CD", kAnalysisV1), (V{"ab", "cd"}));
}

}  // namespace
}  // namespace ttlstore::search
