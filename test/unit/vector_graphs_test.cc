// The graph layer of KNN: PlanKnn / WidenEf (vector/knn_plan.h), Reconcile (vector/reconcile.h),
// GraphRegistry (vector/graph_registry.h) and IndexGraphs (search/vector_graphs.h) over a
// Xapian database in a temporary folder: load (rebuild and checkpoint), changes after commits,
// changes during a load, corrupt checkpoints.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include <xapian.h>

#include "search/vector_graphs.h"
#include "vector/graph_registry.h"
#include "vector/knn_plan.h"
#include "vector/reconcile.h"

namespace ttlstore {
namespace {

using vector::KnnPlan;
using vector::Metric;
using vector::VectorIndex;

std::vector<float> Random(size_t dim, std::mt19937& rng) {
  std::normal_distribution<float> g(0, 1);
  std::vector<float> v(dim);
  for (auto& x : v) x = g(rng);
  return v;
}

TEST(KnnPlan, ExactWithoutGraphOrForSmallSets) {
  EXPECT_TRUE(vector::PlanKnn(1'000'000, 0, 10, 1000).exact);     // no graph
  EXPECT_TRUE(vector::PlanKnn(1000, 1'000'000, 10, 1000).exact);  // at the switch point
  EXPECT_TRUE(vector::PlanKnn(5000, 5000, 10, 0).exact || vector::PlanKnn(5000, 5000, 10, 0).ef < 5000);
  EXPECT_TRUE(vector::PlanKnn(10, 100, 10, 0).exact);  // ef would cover the whole graph
}

TEST(KnnPlan, EfGrowsAsTheFilterNarrows) {
  KnnPlan all = vector::PlanKnn(400'000, 400'000, 10, 1000);
  ASSERT_FALSE(all.exact);
  EXPECT_EQ(all.ef, vector::kEfBase);
  KnnPlan tenth = vector::PlanKnn(40'000, 400'000, 10, 1000);
  ASSERT_FALSE(tenth.exact);
  EXPECT_EQ(tenth.ef, vector::kEfBase * 10);
  // A large k widens the list: at least 2k.
  KnnPlan big = vector::PlanKnn(400'000, 400'000, 500, 1000);
  EXPECT_EQ(big.ef, 1000u);
  // More matches than vectors (documents not yet in the graph): an unfiltered search.
  EXPECT_EQ(vector::PlanKnn(800'000, 400'000, 10, 1000).ef, vector::kEfBase);
  // Too selective for the widest list: exact.
  EXPECT_TRUE(vector::PlanKnn(4'000, 400'000, 10, 1000).exact);
}

// A larger graph needs a wider list for the same recall (1M x 768: ef 256 -> 0.896, 512 ->
// 0.963): kEfBase per started kEfBaseVectors.
TEST(KnnPlan, TheBaseListGrowsWithTheGraph) {
  EXPECT_EQ(vector::BaseEf(0, 10), vector::kEfBase);
  EXPECT_EQ(vector::BaseEf(vector::kEfBaseVectors, 10), vector::kEfBase);
  EXPECT_EQ(vector::BaseEf(vector::kEfBaseVectors + 1, 10), 2 * vector::kEfBase);
  EXPECT_EQ(vector::BaseEf(1'000'000, 10), 512u);
  EXPECT_EQ(vector::BaseEf(1'000'000, 400), 800u);  // 2k when wider
  EXPECT_EQ(vector::PlanKnn(1'000'000, 1'000'000, 10, 1000).ef, 512u);
  EXPECT_EQ(vector::PlanKnn(500'000, 1'000'000, 10, 1000).ef, 1024u);
}

TEST(KnnPlan, WidenEfStopsAtTheCapAndTheGraph) {
  EXPECT_EQ(vector::WidenEf(256, 1'000'000), 1024u);
  EXPECT_EQ(vector::WidenEf(vector::kEfMax / 2, 1'000'000), 0u);
  EXPECT_EQ(vector::WidenEf(256, 1000), 0u);
}

TEST(Reconcile, MakesTheGraphHoldExactlyTheTruth) {
  std::mt19937 rng(7);
  const size_t dim = 8;
  VectorIndex g(dim, Metric::kEuclidean);
  std::map<uint64_t, std::vector<float>> truth;
  for (uint64_t l = 1; l <= 50; ++l) {
    truth[l] = Random(dim, rng);
    g.Upsert(l, truth[l].data());
  }
  // The graph drifts: a changed vector, a missing label, an extra label.
  truth[3] = Random(dim, rng);
  truth[60] = Random(dim, rng);
  auto extra = Random(dim, rng);
  g.Upsert(99, extra.data());
  vector::VectorSource src = [&](const std::function<void(uint64_t, const float*)>& fn) {
    for (const auto& [l, v] : truth) fn(l, v.data());
  };
  auto dry = vector::Reconcile(g, src, false);
  EXPECT_EQ(dry.kept, 49u);
  EXPECT_EQ(dry.upserted, 2u);
  EXPECT_EQ(dry.removed, 1u);
  EXPECT_TRUE(g.Contains(99));  // a dry run changes nothing
  auto applied = vector::Reconcile(g, src, true);
  EXPECT_EQ(applied.upserted, 2u);
  EXPECT_FALSE(g.Contains(99));
  EXPECT_TRUE(g.Matches(3, truth[3].data()));
  EXPECT_TRUE(g.Contains(60));
  auto again = vector::Reconcile(g, src, false);
  EXPECT_EQ(again.kept, truth.size());
  EXPECT_EQ(again.upserted + again.removed, 0u);
}

TEST(GraphRegistry, PublishFindDrop) {
  vector::GraphRegistry r;
  auto g = std::make_shared<VectorIndex>(4, Metric::kCosine);
  r.Publish("ts/1/2", g);
  r.Publish("ts/1/3", g);
  r.Publish("ts/10/2", g);
  r.Publish("ddb/5/idx", g);
  EXPECT_EQ(r.Find("ts/1/2"), g);
  EXPECT_EQ(r.Find("ts/1/9"), nullptr);
  r.DropPrefix("ts/1/");
  EXPECT_EQ(r.Find("ts/1/2"), nullptr);
  EXPECT_EQ(r.Find("ts/10/2"), g);  // not under "ts/1/"
  r.Drop("ddb/5/idx");
  EXPECT_EQ(r.Ids(), std::vector<std::string>{"ts/10/2"});
}

class IndexGraphsTest : public ::testing::Test {
 protected:
  static constexpr size_t kDim = 16;
  static constexpr unsigned kSlot = 5;

  void SetUp() override {
    dir_ = (std::filesystem::temp_directory_path() /
            ("vector_graphs_test_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name()))
               .string();
    std::filesystem::remove_all(dir_);
    db_ = std::make_unique<Xapian::WritableDatabase>(dir_, Xapian::DB_CREATE_OR_OPEN);
  }
  void TearDown() override {
    db_.reset();
    std::filesystem::remove_all(dir_);
  }
  std::vector<search::VectorField> Fields() const {
    return {search::VectorField{kSlot, kDim, Metric::kEuclidean}};
  }
  Xapian::docid Put(const std::string& key, const std::vector<float>& v) {
    Xapian::Document d;
    d.add_boolean_term("Q" + key);
    d.add_value(kSlot, std::string(reinterpret_cast<const char*>(v.data()), v.size() * 4));
    return db_->replace_document("Q" + key, d);
  }
  void WaitReady(search::IndexGraphs& g) {
    for (int i = 0; i < 2000 && !g.ready(); ++i) {
      g.Poll(*db_);
      if (!g.ready()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ASSERT_TRUE(g.ready());
  }

  std::string dir_;
  std::unique_ptr<Xapian::WritableDatabase> db_;
  vector::GraphRegistry registry_;
  std::mt19937 rng_{11};
};

TEST_F(IndexGraphsTest, RebuildsFollowsCommitsAndReloadsItsCheckpoint) {
  std::map<Xapian::docid, std::vector<float>> truth;
  for (int i = 0; i < 300; ++i) {
    auto v = Random(kDim, rng_);
    truth[Put("k" + std::to_string(i), v)] = v;
  }
  db_->commit();
  {
    search::IndexGraphs g(7, dir_, Fields(), registry_);
    EXPECT_EQ(g.Graph(kSlot), nullptr);
    g.StartLoad();
    // A commit while the load runs: replayed when it is published.
    auto v = Random(kDim, rng_);
    Xapian::docid id = Put("k0", v);
    truth[id] = v;
    db_->delete_document("Qk1");
    Xapian::docid gone = 2;
    truth.erase(gone);
    db_->commit();
    g.Changed(*db_, {id, gone});
    WaitReady(g);
    auto graph = g.Graph(kSlot);
    ASSERT_NE(graph, nullptr);
    EXPECT_EQ(registry_.Find(search::IndexGraphs::RegistryId(7, kSlot)), graph);
    EXPECT_EQ(graph->size(), truth.size());
    for (const auto& [d, vec] : truth) EXPECT_TRUE(graph->Matches(d, vec.data())) << d;
    EXPECT_FALSE(graph->Contains(gone));
    // After the load: changes applied at once.
    auto w = Random(kDim, rng_);
    Xapian::docid added = Put("new", w);
    truth[added] = w;
    db_->commit();
    g.Changed(*db_, {added});
    EXPECT_TRUE(graph->Matches(added, w.data()));
    g.Checkpoint(0, true);
    EXPECT_TRUE(std::filesystem::exists(search::CheckpointPath(dir_, kSlot)));
  }
  EXPECT_EQ(registry_.Find(search::IndexGraphs::RegistryId(7, kSlot)), nullptr);
  // Changes after the checkpoint, with no graph running (a kill -9 after the commit).
  db_->delete_document("Qk5");
  truth.erase(6);
  auto u = Random(kDim, rng_);
  truth[Put("k7", u)] = u;
  db_->commit();
  search::IndexGraphs g(7, dir_, Fields(), registry_);
  g.StartLoad();
  WaitReady(g);
  auto graph = g.Graph(kSlot);
  ASSERT_NE(graph, nullptr);
  EXPECT_EQ(graph->size(), truth.size());
  for (const auto& [d, vec] : truth) EXPECT_TRUE(graph->Matches(d, vec.data())) << d;
}

TEST_F(IndexGraphsTest, CorruptCheckpointIsRebuilt) {
  std::map<Xapian::docid, std::vector<float>> truth;
  for (int i = 0; i < 50; ++i) {
    auto v = Random(kDim, rng_);
    truth[Put("k" + std::to_string(i), v)] = v;
  }
  db_->commit();
  {
    std::ofstream f(search::CheckpointPath(dir_, kSlot), std::ios::binary);
    f << "not a graph at all, just some bytes";
  }
  search::IndexGraphs g(3, dir_, Fields(), registry_);
  g.StartLoad();
  WaitReady(g);
  auto graph = g.Graph(kSlot);
  ASSERT_NE(graph, nullptr);
  EXPECT_EQ(graph->size(), truth.size());
  for (const auto& [d, vec] : truth) EXPECT_TRUE(graph->Matches(d, vec.data()));
}

}  // namespace
}  // namespace ttlstore
