// Highlighting (search/highlight.h) without a server: which words a query marks, the tags, the
// fragments cut around them (fragment_size, number_of_fragments, TEXT_SEQUENCE and SCORE
// order), the HTML encoder, and the checks of a Highlight against the index (the service's
// "highlighting is not supported for field[f]", the tags' characters, the bounds).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "search/highlight.h"

namespace ttlstore::search {
namespace {

using V = std::vector<std::string>;

model::SearchIndexMeta Index() {
  model::SearchIndexMeta ix;
  model::SearchField t;
  t.name = "t";
  t.type = model::SearchFieldType::kText;
  t.enable_highlighting = true;
  ix.fields.push_back(t);
  model::SearchField mw = t;
  mw.name = "mw";
  mw.analyzer = "max_word";
  ix.fields.push_back(mw);
  model::SearchField plain = t;
  plain.name = "plain";
  plain.enable_highlighting = false;
  ix.fields.push_back(plain);
  model::SearchField kw;
  kw.name = "kw";
  kw.type = model::SearchFieldType::kKeyword;
  ix.fields.push_back(kw);
  return ix;
}

Query Match(const std::string& field, const std::string& text) {
  Query q;
  q.kind = Query::Kind::kMatch;
  q.field = field;
  q.text = text;
  return q;
}

HighlightSpec Spec(const std::string& field, int32_t fragments, int32_t size,
                   bool by_score = false) {
  HighlightSpec s;
  HighlightSpec::Field f;
  f.name = field;
  f.number_of_fragments = fragments;
  f.fragment_size = size;
  f.pre_tag = "<b>";
  f.post_tag = "</b>";
  f.order_by_score = by_score;
  s.fields.push_back(f);
  return s;
}

V Fragments(const Query& q, const HighlightSpec& spec, const V& values) {
  model::SearchIndexMeta ix = Index();
  EXPECT_TRUE(ValidateHighlight(ix, spec).ok());
  Highlighter h(ix, q, spec);
  return h.Fragments(0, values);
}

// The Python SDK's full_text_search_test (max_word, fragment_size 18, one fragment): the answers
// the service gave.
TEST(SearchHighlight, MaxWordAsTheService) {
  Query q = Match("mw", "花茶");
  HighlightSpec s = Spec("mw", 1, 18);
  EXPECT_EQ(Fragments(q, s, {"菊花茶是一款大部分人都适合的经典花茶"}),
            V{"菊<b>花茶</b>是一款大部分人都适合的经典<b>花茶</b>"});
  EXPECT_EQ(Fragments(q, s, {"秋天最适合饮用的几种花茶"}), V{"秋天最适合饮用的几种<b>花茶</b>"});
  EXPECT_EQ(Fragments(q, s, {"求推荐几款菊花茶店铺"}), V{"求推荐几款菊<b>花茶</b>店铺"});
  EXPECT_EQ(Fragments(q, s, {"苕溪边上有一大片野生菊花"}), V{});
}

TEST(SearchHighlight, WordsCaseAndTags) {
  Query q = Match("t", "quick FOX");
  EXPECT_EQ(Fragments(q, Spec("t", 1, 100), {"The Quick brown fox."}),
            V{"The <b>Quick</b> brown <b>fox</b>."});
  // Adjacent matches each get their own tags.
  EXPECT_EQ(Fragments(q, Spec("t", 1, 100), {"quick fox"}), V{"<b>quick</b> <b>fox</b>"});
}

TEST(SearchHighlight, PhraseIsOneSpan) {
  Query q;
  q.kind = Query::Kind::kMatchPhrase;
  q.field = "t";
  q.text = "brown fox";
  EXPECT_EQ(Fragments(q, Spec("t", 1, 100), {"a brown dog, a brown fox"}),
            V{"a brown dog, a <b>brown fox</b>"});
}

TEST(SearchHighlight, TermPrefixWildcardThroughBool) {
  Query term;
  term.kind = Query::Kind::kTerm;
  term.field = "t";
  term.terms.push_back(model::CellValue::String("fox"));
  Query prefix;
  prefix.kind = Query::Kind::kPrefix;
  prefix.field = "t";
  prefix.text = "do";
  Query not_this = Match("t", "cat");
  Query b;
  b.kind = Query::Kind::kBool;
  b.should = {term, prefix};
  b.must_not = {not_this};
  EXPECT_EQ(Fragments(b, Spec("t", 1, 100), {"fox dog dove cat"}),
            V{"<b>fox</b> <b>dog</b> <b>dove</b> cat"});
}

TEST(SearchHighlight, FragmentsCutBySizeAndCountInTextOrder) {
  std::string text =
      "Alpha one. Beta two fox. Gamma three. Delta fox fox four. Epsilon five. Zeta fox six.";
  Query q = Match("t", "fox");
  V got = Fragments(q, Spec("t", 2, 20), {text});
  // The two passages with the most matches (Delta's two), then Beta (first of the one-match
  // ones), in text order; each holds whole words of the text and its tags.
  EXPECT_EQ(got, (V{"Beta two <b>fox</b>.", "Delta <b>fox</b> <b>fox</b> four."}));
  V by_score = Fragments(q, Spec("t", 2, 20, true), {text});
  EXPECT_EQ(by_score, (V{"Delta <b>fox</b> <b>fox</b> four.", "Beta two <b>fox</b>."}));
  // Every passage when the count allows.
  EXPECT_EQ(Fragments(q, Spec("t", 10, 20), {text}).size(), 3u);
}

TEST(SearchHighlight, LongSentenceCutAtWordBoundaries) {
  std::string text = "word ";
  for (int i = 0; i < 30; ++i) text += "filler ";
  text += "needle ";
  for (int i = 0; i < 30; ++i) text += "filler ";
  V got = Fragments(Match("t", "needle"), Spec("t", 1, 30), {text});
  ASSERT_EQ(got.size(), 1u);
  EXPECT_NE(got[0].find("<b>needle</b>"), std::string::npos);
  std::string plain = got[0];
  plain.erase(plain.find("<b>"), 3);
  plain.erase(plain.find("</b>"), 4);
  EXPECT_LE(plain.size(), 40u) << plain;
  EXPECT_NE(text.find(plain), std::string::npos) << plain;  // a piece of the text, whole words
  EXPECT_EQ(plain.front(), 'f');
  EXPECT_EQ(plain.back(), 'r');
}

TEST(SearchHighlight, ZeroFragmentsIsTheWholeValueAndArraysEachValue) {
  Query q = Match("t", "fox");
  EXPECT_EQ(Fragments(q, Spec("t", 0, 5), {"the quick brown fox jumps"}),
            V{"the quick brown <b>fox</b> jumps"});
  EXPECT_EQ(Fragments(q, Spec("t", 5, 100), {"a fox", "no match", "fox b"}),
            (V{"a <b>fox</b>", "<b>fox</b> b"}));
}

TEST(SearchHighlight, HtmlEncoderEscapesTextNotTags) {
  HighlightSpec s = Spec("t", 1, 100);
  s.html = true;
  EXPECT_EQ(Fragments(Match("t", "fox"), s, {"<a href='x'>fox</a> & \"q\""}),
            V{"&lt;a href=&#x27;x&#x27;&gt;<b>fox</b>&lt;&#x2F;a&gt; &amp; &quot;q&quot;"});
}

TEST(SearchHighlight, OtherFieldsMarkNothing) {
  EXPECT_EQ(Fragments(Match("mw", "fox"), Spec("t", 1, 100), {"fox"}), V{});
}

TEST(SearchHighlight, Validation) {
  model::SearchIndexMeta ix = Index();
  auto message = [&](const HighlightSpec& s) {
    Status st = ValidateHighlight(ix, s);
    return st.ok() ? std::string("ok") : st.error().message();
  };
  EXPECT_EQ(message(Spec("t", 1, 100)), "ok");
  EXPECT_EQ(message(Spec("plain", 1, 100)), "highlighting is not supported for field[plain]");
  EXPECT_EQ(message(Spec("kw", 1, 100)), "highlighting is not supported for field[kw]");
  EXPECT_EQ(message(Spec("nope", 1, 100)), "highlighting is not supported for field[nope]");
  EXPECT_NE(message(Spec("t", -1, 100)), "ok");
  EXPECT_NE(message(Spec("t", 1, 0)), "ok");
  HighlightSpec bad_tag = Spec("t", 1, 100);
  bad_tag.fields[0].pre_tag = "<span class=x>";
  EXPECT_NE(message(bad_tag), "ok");
  HighlightSpec twice = Spec("t", 1, 100);
  twice.fields.push_back(twice.fields[0]);
  EXPECT_NE(message(twice), "ok");
}

}  // namespace
}  // namespace ttlstore::search
