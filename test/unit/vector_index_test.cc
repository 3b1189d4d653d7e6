// VectorIndex (vector/vector_index.h): recall against an exact scan computed here, filters,
// updates and removals by label, save and load, compaction; the scores of both APIs.
#include "vector/vector_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>
#include <set>

#include "vector/score.h"

namespace ttlstore::vector {
namespace {

std::vector<float> RandomVectors(size_t n, size_t dim, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> g(0, 1);
  std::vector<float> v(n * dim);
  for (auto& x : v) x = g(rng);
  return v;
}

// The reference distance of each metric, computed the plain way.
double RefDistance(Metric m, const float* a, const float* b, size_t dim) {
  double dot = 0, na = 0, nb = 0, l2 = 0;
  for (size_t i = 0; i < dim; ++i) {
    dot += double(a[i]) * b[i];
    na += double(a[i]) * a[i];
    nb += double(b[i]) * b[i];
    l2 += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
  }
  if (m == Metric::kEuclidean) return l2;
  if (m == Metric::kCosine) return 1 - dot / std::sqrt(na * nb);
  return 1 - dot;
}

std::vector<uint64_t> ExactTop(Metric m, const std::vector<float>& data, size_t dim,
                               const float* q, size_t k,
                               const std::function<bool(uint64_t)>& allowed) {
  std::vector<std::pair<double, uint64_t>> all;
  for (size_t i = 0; i < data.size() / dim; ++i) {
    if (allowed && !allowed(i)) continue;
    all.emplace_back(RefDistance(m, q, data.data() + i * dim, dim), i);
  }
  std::sort(all.begin(), all.end());
  std::vector<uint64_t> out;
  for (size_t i = 0; i < k && i < all.size(); ++i) out.push_back(all[i].second);
  return out;
}

double Recall(const std::vector<Neighbor>& got, const std::vector<uint64_t>& want) {
  std::set<uint64_t> w(want.begin(), want.end());
  size_t hit = 0;
  for (const auto& n : got) hit += w.count(n.label);
  return want.empty() ? 1.0 : double(hit) / double(want.size());
}

class VectorIndexRecall : public ::testing::TestWithParam<Metric> {};

TEST_P(VectorIndexRecall, TopTenAgainstExactScan) {
  const size_t n = 3000, dim = 64, queries = 50;
  Metric m = GetParam();
  std::vector<float> data = RandomVectors(n, dim, 1);
  std::vector<float> qs = RandomVectors(queries, dim, 2);
  VectorIndex index(dim, m);
  for (size_t i = 0; i < n; ++i) index.Upsert(i, data.data() + i * dim);
  ASSERT_EQ(index.size(), n);
  double recall = 0;
  for (size_t q = 0; q < queries; ++q) {
    auto got = index.Search(qs.data() + q * dim, 10);
    ASSERT_EQ(got.size(), 10u);
    for (size_t i = 1; i < got.size(); ++i) EXPECT_LE(got[i - 1].distance, got[i].distance);
    recall += Recall(got, ExactTop(m, data, dim, qs.data() + q * dim, 10, nullptr));
  }
  recall /= queries;
  EXPECT_GE(recall, 0.95) << "metric " << int(m);
  // Distances are the metric's (normalized for cosine).
  auto got = index.Search(qs.data(), 1);
  EXPECT_NEAR(got[0].distance, RefDistance(m, qs.data(), data.data() + got[0].label * dim, dim),
              1e-3);
}

INSTANTIATE_TEST_SUITE_P(Metrics, VectorIndexRecall,
                         ::testing::Values(Metric::kEuclidean, Metric::kCosine,
                                           Metric::kDotProduct));

TEST(VectorIndex, FilteredSearchReturnsOnlyAllowedLabels) {
  const size_t n = 3000, dim = 32;
  std::vector<float> data = RandomVectors(n, dim, 3);
  std::vector<float> qs = RandomVectors(20, dim, 4);
  VectorIndex index(dim, Metric::kEuclidean);
  for (size_t i = 0; i < n; ++i) index.Upsert(i, data.data() + i * dim);
  LabelFilter every_fifth = [](uint64_t label) { return label % 5 == 0; };
  double recall = 0;
  for (size_t q = 0; q < 20; ++q) {
    auto got = index.Search(qs.data() + q * dim, 10, &every_fifth);
    ASSERT_EQ(got.size(), 10u);
    for (const auto& g : got) EXPECT_EQ(g.label % 5, 0u);
    recall += Recall(got, ExactTop(Metric::kEuclidean, data, dim, qs.data() + q * dim, 10,
                                   every_fifth));
  }
  EXPECT_GE(recall / 20, 0.95);
  // A filter nothing passes: nothing, after walking the graph.
  LabelFilter none = [](uint64_t) { return false; };
  EXPECT_TRUE(index.Search(qs.data(), 10, &none).empty());
}

TEST(VectorIndex, ExactOverLabels) {
  const size_t dim = 8;
  std::vector<float> data = RandomVectors(100, dim, 5);
  VectorIndex index(dim, Metric::kDotProduct);
  for (size_t i = 0; i < 100; ++i) index.Upsert(i * 7, data.data() + i * dim);
  std::vector<uint64_t> labels = {0, 7, 14, 21, 28, 999};  // 999 has no vector
  size_t examined = 0;
  auto got = index.Exact(data.data(), 3, labels, &examined);
  EXPECT_EQ(examined, 5u);
  ASSERT_EQ(got.size(), 3u);
  std::vector<std::pair<double, uint64_t>> want;
  for (uint64_t l : {0, 7, 14, 21, 28}) {
    want.emplace_back(RefDistance(Metric::kDotProduct, data.data(), data.data() + l / 7 * dim, dim), l);
  }
  std::sort(want.begin(), want.end());
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(got[i].label, want[i].second);
}

TEST(VectorIndex, UpsertReplacesAndRemoveForgets) {
  VectorIndex index(2, Metric::kEuclidean);
  float a[] = {0, 0}, b[] = {10, 10}, c[] = {1, 1};
  index.Upsert(1, a);
  index.Upsert(2, b);
  EXPECT_EQ(index.Search(c, 1)[0].label, 1u);
  index.Upsert(1, b);  // label 1 moves away
  index.Upsert(2, a);
  EXPECT_EQ(index.Search(c, 1)[0].label, 2u);
  EXPECT_EQ(index.size(), 2u);
  index.Remove(2);
  index.Remove(2);  // twice: a no-op
  EXPECT_FALSE(index.Contains(2));
  EXPECT_EQ(index.size(), 1u);
  auto got = index.Search(c, 5);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].label, 1u);
  index.Upsert(2, c);  // back again
  EXPECT_EQ(index.Search(c, 1)[0].label, 2u);
  std::vector<float> v;
  ASSERT_TRUE(index.Get(2, &v));
  EXPECT_EQ(v, std::vector<float>({1, 1}));
}

TEST(VectorIndex, CosineStoresNormalizedAndZeroVectorsStayZero) {
  VectorIndex index(3, Metric::kCosine);
  float a[] = {3, 0, 4}, z[] = {0, 0, 0};
  index.Upsert(1, a);
  index.Upsert(2, z);
  std::vector<float> v;
  ASSERT_TRUE(index.Get(1, &v));
  EXPECT_FLOAT_EQ(v[0], 0.6f);
  EXPECT_FLOAT_EQ(v[2], 0.8f);
  float d = 0;
  ASSERT_TRUE(index.Distance(a, 2, &d));
  EXPECT_FLOAT_EQ(d, 1.0f);  // cos 0
}

TEST(VectorIndex, SaveAndLoadKeepEverything) {
  const size_t n = 500, dim = 16;
  std::vector<float> data = RandomVectors(n, dim, 6);
  VectorIndex index(dim, Metric::kCosine);
  for (size_t i = 0; i < n; ++i) index.Upsert(i + 100, data.data() + i * dim);
  index.Remove(150);
  auto dir = std::filesystem::temp_directory_path() / ("vecidx_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string path = (dir / "g.hnsw").string();
  ASSERT_TRUE(index.Save(path).ok());
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  auto loaded = VectorIndex::Load(path, dim, Metric::kCosine);
  ASSERT_TRUE(loaded.ok()) << loaded.error().message();
  EXPECT_EQ((*loaded)->size(), n - 1);
  EXPECT_FALSE((*loaded)->Contains(150));
  std::vector<float> a, b;
  ASSERT_TRUE(index.Get(321, &a));
  ASSERT_TRUE((*loaded)->Get(321, &b));
  EXPECT_EQ(a, b);
  auto x = index.Search(data.data(), 5), y = (*loaded)->Search(data.data(), 5);
  ASSERT_EQ(x.size(), y.size());
  for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(x[i].label, y[i].label);
  // Another dimension: refused, not misread.
  EXPECT_FALSE(VectorIndex::Load(path, dim + 1, Metric::kCosine).ok());
  // A truncated file: refused.
  std::filesystem::resize_file(path, std::filesystem::file_size(path) / 2);
  EXPECT_FALSE(VectorIndex::Load(path, dim, Metric::kCosine).ok());
  EXPECT_FALSE(VectorIndex::Load((dir / "missing").string(), dim, Metric::kCosine).ok());
  std::filesystem::remove_all(dir);
}

TEST(VectorIndex, CompactionDropsDeletedNodes) {
  const size_t n = 10000, dim = 8;
  std::vector<float> data = RandomVectors(n, dim, 7);
  VectorIndex index(dim, Metric::kEuclidean);
  for (size_t i = 0; i < n; ++i) index.Upsert(i, data.data() + i * dim);
  EXPECT_FALSE(index.CompactIfSparse());
  for (size_t i = 0; i < n; ++i) if (i % 10 != 0) index.Remove(i);
  EXPECT_EQ(index.deleted(), 9000u);
  EXPECT_TRUE(index.CompactIfSparse());
  EXPECT_EQ(index.deleted(), 0u);
  EXPECT_EQ(index.size(), 1000u);
  auto got = index.Search(data.data() + 10 * dim, 1);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].label, 10u);
}

TEST(VectorScore, EachApiHasItsFormula) {
  // Tablestore: larger is more similar, in [0, 1] for normalized vectors.
  EXPECT_DOUBLE_EQ(TablestoreScore(Metric::kEuclidean, 0), 1.0);
  EXPECT_DOUBLE_EQ(TablestoreScore(Metric::kEuclidean, 3), 0.25);
  EXPECT_DOUBLE_EQ(TablestoreScore(Metric::kCosine, 0), 1.0);   // cos 1
  EXPECT_DOUBLE_EQ(TablestoreScore(Metric::kCosine, 2), 0.0);   // cos -1
  EXPECT_DOUBLE_EQ(TablestoreScore(Metric::kDotProduct, 1), 0.5);  // dot 0
  EXPECT_DOUBLE_EQ(TablestoreScore(Metric::kDotProduct, 5), 0.0);  // dot -4: floored
  // DynamoDB: COSINE 1 - cos, EUCLIDEAN the distance, DOT_PRODUCT the dot product.
  EXPECT_DOUBLE_EQ(DynamoScore(Metric::kCosine, 0.25f), 0.25);
  EXPECT_DOUBLE_EQ(DynamoScore(Metric::kEuclidean, 9), 3.0);
  EXPECT_DOUBLE_EQ(DynamoScore(Metric::kDotProduct, -4), 5.0);
}

}  // namespace
}  // namespace ttlstore::vector
