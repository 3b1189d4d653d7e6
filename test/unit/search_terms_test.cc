// The pieces of a search index that need no engine: the trie decomposition of numeric ranges
// (search/query_builder.h, exact at both ends) and the catalog encoding of a search index
// (storage/search_index_codec.h).
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "search/query_builder.h"
#include "search/terms.h"
#include "storage/search_index_codec.h"

namespace ttlstore::search {
namespace {

TEST(SearchTerms, TrieRangeIsExact) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 300; ++i) {
    uint64_t a = rng(), b = rng();
    if (i % 3 == 0) b = a + rng() % 5000;
    if (a > b) std::swap(a, b);
    auto terms = TrieRangeTerms(0, a, b);
    EXPECT_LE(terms.size(), 500u);
    std::set<std::string> set(terms.begin(), terms.end());
    // Values inside: exactly one of their trie terms is in the set; outside: none.
    for (uint64_t v : {a, b, a + (b - a) / 2, a - 1, b + 1, a + 1, b - 1}) {
      int hits = 0;
      for (int level = 0; level < kTrieLevels; ++level) hits += set.count(TrieTerm(0, v, level));
      bool inside = v >= a && v <= b;
      EXPECT_EQ(hits, inside ? 1 : 0) << a << " " << b << " " << v;
    }
  }
  EXPECT_EQ(TrieRangeTerms(0, 0, UINT64_MAX).size(), 16u);
}

}  // namespace
}  // namespace ttlstore::search

namespace ttlstore::storage {
namespace {

TEST(SearchIndexCodec, RoundTripsEveryField) {
  model::SearchIndexMeta m;
  m.name = "ix";
  m.id = 77;
  m.time_to_live = 86400;
  m.create_time_us = 1'700'000'000'123'456;
  m.building = false;
  model::SearchField f;
  f.name = "t";
  f.type = model::SearchFieldType::kText;
  f.index = true;
  f.sort_and_agg = false;
  f.store = false;
  f.is_array = true;
  f.analyzer = "split";
  f.analyzer_parameter = std::string("\x0a\x01,", 3);
  f.date_formats = {"yyyy", "MM"};
  m.fields = {f, model::SearchField{}};
  m.fields[1].name = "k";
  m.index_sort = {{model::SearchSortKey::Kind::kField, "k", true},
                  {model::SearchSortKey::Kind::kPrimaryKey, "", false}};
  m.routing_fields = {"pk2", "pk1"};
  model::SearchIndexMeta back;
  ASSERT_TRUE(DecodeSearchIndex(EncodeSearchIndex(m), &back));
  EXPECT_EQ(back.name, m.name);
  EXPECT_EQ(back.id, m.id);
  EXPECT_EQ(back.time_to_live, m.time_to_live);
  EXPECT_EQ(back.create_time_us, m.create_time_us);
  EXPECT_EQ(back.building, false);
  EXPECT_EQ(back.fields, m.fields);
  EXPECT_EQ(back.index_sort, m.index_sort);
  EXPECT_EQ(back.routing_fields, m.routing_fields);
  EXPECT_EQ(back.analysis, model::kAnalysisCurrent);
  m.building = true;
  ASSERT_TRUE(DecodeSearchIndex(EncodeSearchIndex(m), &back));
  EXPECT_TRUE(back.building);
  EXPECT_FALSE(DecodeSearchIndex(std::string("\x01\x05", 2), &back));
}

// An index written before the analysis tag existed keeps the first rules; a tag from a newer
// server than this one is refused rather than misread.
TEST(SearchIndexCodec, AnalysisRulesDefaultToTheFirstAndAreBounded) {
  model::SearchIndexMeta m;
  m.name = "ix";
  m.id = 3;
  std::string bytes = EncodeSearchIndex(m);
  ASSERT_EQ(bytes.substr(bytes.size() - 3), std::string("\x09\x01\x02", 3));  // tag 9, last
  model::SearchIndexMeta old;
  ASSERT_TRUE(DecodeSearchIndex(bytes.substr(0, bytes.size() - 3), &old));
  EXPECT_EQ(old.analysis, model::kAnalysisV1);
  model::SearchIndexMeta future;
  EXPECT_FALSE(DecodeSearchIndex(bytes.substr(0, bytes.size() - 1) + "\x63", &future));
}

}  // namespace
}  // namespace ttlstore::storage
