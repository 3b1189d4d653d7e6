// Vector values and exact KNN (issue 32): ParseVectorJson/ParseVectorCell (the JSON-array
// strings a Vector field reads, bounded) and NearestDocuments/HitsQuery over a Xapian in-memory
// database, checked against a brute-force ranking.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>

#include "search/knn.h"
#include "search/vector_value.h"
#include "vector/score.h"

namespace ttlstore::search {
namespace {

TEST(VectorValue, ParsesJsonArraysOfTheDimension) {
  auto v = ParseVectorJson(" [1, 5.1 ,-4.7e-1, 0.08] ", 4);
  ASSERT_TRUE(v);
  EXPECT_EQ(*v, (std::vector<float>{1.0f, 5.1f, -0.47f, 0.08f}));
  EXPECT_FALSE(ParseVectorJson("[1, 2, 3]", 4));
  EXPECT_FALSE(ParseVectorJson("[1, 2, 3, 4, 5]", 4));
  EXPECT_FALSE(ParseVectorJson("[]", 4));
  EXPECT_FALSE(ParseVectorJson("[1, 2, 3, \"4\"]", 4));
  EXPECT_FALSE(ParseVectorJson("[1, 2, 3, inf]", 4));
  EXPECT_FALSE(ParseVectorJson("[1, 2, 3, nan]", 4));
  EXPECT_FALSE(ParseVectorJson("[1, 2, 3, 1e39]", 4));  // not a finite float32
  EXPECT_FALSE(ParseVectorJson("[1, 2, 3, 4] x", 4));
  EXPECT_FALSE(ParseVectorJson("[1, 2, 3, 4", 4));
  EXPECT_FALSE(ParseVectorJson("[1,, 2, 3, 4]", 4));
  EXPECT_FALSE(ParseVectorJson("[0x1, 2, 3, 4]", 4));
  EXPECT_FALSE(ParseVectorJson("[1, 2]", 0));
  // Bounded: a huge text is refused without being parsed.
  EXPECT_FALSE(ParseVectorJson("[" + std::string(1 << 20, ' ') + "1]", 1));
}

TEST(VectorValue, CellsOfOtherTypesHaveNoVector) {
  model::CellValue s;
  s.type = model::CellType::kString;
  s.bytes = "[1, 2]";
  EXPECT_TRUE(ParseVectorCell(s, 2));
  model::CellValue b;
  b.type = model::CellType::kBlob;
  float f[2] = {1.5f, -2.0f};
  b.bytes.assign(reinterpret_cast<const char*>(f), sizeof f);
  auto v = ParseVectorCell(b, 2);
  ASSERT_TRUE(v);
  EXPECT_EQ(*v, (std::vector<float>{1.5f, -2.0f}));
  EXPECT_FALSE(ParseVectorCell(b, 3));
  model::CellValue i;
  i.type = model::CellType::kInteger;
  EXPECT_FALSE(ParseVectorCell(i, 2));
}

TEST(Knn, DistancesAndScores) {
  float q[2] = {1, 0}, v[2] = {0, 1}, z[2] = {0, 0};
  EXPECT_FLOAT_EQ(VectorDistance(vector::Metric::kEuclidean, q, v, 2), 2.0f);
  EXPECT_FLOAT_EQ(VectorDistance(vector::Metric::kCosine, q, v, 2), 1.0f);
  EXPECT_FLOAT_EQ(VectorDistance(vector::Metric::kCosine, q, z, 2), 1.0f);
  EXPECT_FLOAT_EQ(VectorDistance(vector::Metric::kDotProduct, q, q, 2), 0.0f);
  EXPECT_DOUBLE_EQ(vector::TablestoreScore(vector::Metric::kEuclidean, 2.0f), 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(vector::TablestoreScore(vector::Metric::kCosine, 1.0f), 0.5);
  EXPECT_DOUBLE_EQ(vector::TablestoreScore(vector::Metric::kDotProduct, 0.0f), 1.0);
  EXPECT_DOUBLE_EQ(vector::TablestoreScore(vector::Metric::kDotProduct, 3.0f), 0.0);
}

TEST(Knn, NearestDocumentsMatchesBruteForceUnderAFilter) {
  constexpr size_t kDim = 8, kDocs = 500;
  constexpr unsigned kSlot = 5;
  Xapian::WritableDatabase db(std::string(), Xapian::DB_BACKEND_INMEMORY);
  std::mt19937 rng(7);
  std::normal_distribution<float> g;
  std::vector<std::vector<float>> vecs;
  for (size_t i = 0; i < kDocs; ++i) {
    std::vector<float> v(kDim);
    for (auto& x : v) x = g(rng);
    Xapian::Document doc;
    doc.add_boolean_term(i % 2 ? "Kodd" : "Keven");
    if (i % 7 != 3) {  // some documents have no vector
      doc.add_value(kSlot, std::string(reinterpret_cast<const char*>(v.data()), kDim * 4));
    }
    db.add_document(doc);  // docid i + 1
    vecs.push_back(v);
  }
  db.commit();
  std::vector<float> q(kDim);
  for (auto& x : q) x = g(rng);
  for (auto metric : {vector::Metric::kEuclidean, vector::Metric::kCosine,
                      vector::Metric::kDotProduct}) {
    KnnSpec spec{kSlot, kDim, metric, q.data(), 10};
    size_t examined = 0;
    auto got = NearestDocuments(db, spec, Xapian::Query("Kodd"), &examined);
    std::vector<std::pair<float, uint64_t>> truth;
    for (size_t i = 0; i < kDocs; ++i) {
      if (i % 2 == 0 || i % 7 == 3) continue;
      truth.emplace_back(VectorDistance(metric, q.data(), vecs[i].data(), kDim), i + 1);
    }
    std::sort(truth.begin(), truth.end());
    EXPECT_EQ(examined, truth.size());
    ASSERT_EQ(got.size(), 10u);
    for (size_t i = 0; i < 10; ++i) {
      EXPECT_EQ(got[i].label, truth[i].second);
      EXPECT_FLOAT_EQ(got[i].distance, truth[i].first);
    }
    // The hits as a query: exactly those documents, each weighted by its score.
    std::vector<std::pair<Xapian::docid, double>> hits;
    for (const auto& n : got) {
      hits.emplace_back(Xapian::docid(n.label), vector::TablestoreScore(metric, n.distance));
    }
    Xapian::Enquire enquire(db);
    enquire.set_query(HitsQuery(hits));
    Xapian::MSet m = enquire.get_mset(0, 100);
    ASSERT_EQ(m.size(), 10u);
    for (auto it = m.begin(); it != m.end(); ++it) {
      auto at = std::find_if(hits.begin(), hits.end(), [&](auto& h) { return h.first == *it; });
      ASSERT_NE(at, hits.end());
      EXPECT_DOUBLE_EQ(it.get_weight(), at->second);
    }
  }
}

}  // namespace
}  // namespace ttlstore::search
