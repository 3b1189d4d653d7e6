// ops::VectorGraphs: a vector index's graph is built on the first Find, then follows the entries
// that committed batches write and delete (index/vector_entry_hook.h); IndexGraph keeps labels
// and entry keys in step and counts a partition's keys.
#include "ops/vector_graphs.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "ops/table_ops.h"
#include "ops_test_util.h"

namespace ttlstore::ops {
namespace {

constexpr uint32_t kDim = 4;

class DdbVectorGraphsTest : public OpsTest {
 protected:
  void SetUp() override {
    OpsTest::SetUp();
    catalog_ = std::make_unique<TableCatalog>(*store_, clock_);
    model::TableDescriptor spec;
    spec.name = "docs";
    spec.key.hash = {"pk", model::ValueType::kS};
    spec.attribute_definitions = {spec.key.hash};
    model::SecondaryIndex ix;
    ix.name = "emb";
    ix.id = 1;
    ix.vector = model::VectorIndexSettings{"v", kDim, model::VectorMetric::kEuclidean};
    spec.indexes.push_back(ix);
    auto created = catalog_->Create(spec);
    ASSERT_TRUE(created.ok()) << created.error().message();
    table_ = *catalog_->Find("docs");
  }
  void TearDown() override {
    graphs_.reset();
    catalog_.reset();
    OpsTest::TearDown();
  }
  model::Item Doc(const std::string& pk, float x) {
    std::vector<model::AttributeValue> v;
    for (uint32_t i = 0; i < kDim; ++i) v.push_back(N(std::to_string(i == 0 ? x : 0.0f)));
    return {{"pk", S(pk)}, {"v", model::AttributeValue::OfList(std::move(v))}};
  }
  // Polls Find until the graph exists and `pred` holds of it.
  std::shared_ptr<const IndexGraph> WaitFor(const std::function<bool(const IndexGraph&)>& pred) {
    for (int i = 0; i < 500; ++i) {
      auto g = graphs_->Find(table_, table_.indexes[0]);
      if (g && pred(*g)) return g;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return nullptr;
  }

  FakeClock clock_{1795305600000};
  std::unique_ptr<TableCatalog> catalog_;
  std::unique_ptr<VectorGraphs> graphs_;
};

TEST_F(DdbVectorGraphsTest, BuiltOnFirstFindThenFollowsCommittedWrites) {
  for (int i = 0; i < 50; ++i) Put(Doc("d" + std::to_string(i), static_cast<float>(i)));
  graphs_ = std::make_unique<VectorGraphs>(*store_, *catalog_);
  graphs_->Start();
  EXPECT_EQ(graphs_->Find(table_, table_.indexes[0]), nullptr);  // asks for the build
  auto g = WaitFor([](const IndexGraph& g) { return g.graph().size() == 50; });
  ASSERT_NE(g, nullptr);
  float q[kDim] = {20.2f, 0, 0, 0};
  auto nearest = g->graph().Search(q, 1);
  ASSERT_EQ(nearest.size(), 1u);
  auto key = g->KeyOf(nearest[0].label);
  ASSERT_TRUE(key.has_value());

  // A new item, a moved vector, a delete: the graph follows each.
  Put(Doc("new", 1000));
  ASSERT_TRUE(ops_->Put(table_, Doc("d20", -500), nullptr).ok());
  ASSERT_TRUE(ops_->Delete(table_, {{"pk", S("d21")}}, nullptr).ok());
  g = WaitFor([&](const IndexGraph& g) {
    float far[kDim] = {1000, 0, 0, 0};
    auto n = g.graph().Search(far, 1);
    return g.graph().size() == 50 && !n.empty() && n[0].distance == 0;
  });
  ASSERT_NE(g, nullptr);
  float old_spot[kDim] = {20.6f, 0, 0, 0};
  auto near_old = g->graph().Search(old_spot, 2);
  ASSERT_EQ(near_old.size(), 2u);
  for (const auto& n : near_old) EXPECT_GT(n.distance, 0.1f);  // d20 moved away, d21 is gone
  EXPECT_EQ(g->CountPrefix("", SIZE_MAX), 50u);
}

TEST_F(DdbVectorGraphsTest, NoListenerCallAfterTheGraphsAreGone) {
  graphs_ = std::make_unique<VectorGraphs>(*store_, *catalog_);
  graphs_->Start();
  EXPECT_EQ(graphs_->Find(table_, table_.indexes[0]), nullptr);
  ASSERT_NE(WaitFor([](const IndexGraph& g) { return g.graph().size() == 0; }), nullptr);
  graphs_.reset();
  Put(Doc("after", 1));  // would call into a destroyed object if the hook kept it
  SUCCEED();
}

TEST(DdbIndexGraphTest, LabelsFollowKeysAndPrefixesCount) {
  IndexGraph g(2, vector::Metric::kEuclidean);
  float a[2] = {1, 0}, b[2] = {0, 1};
  g.Upsert("p1/x", a);
  g.Upsert("p1/y", b);
  g.Upsert("p2/x", a);
  EXPECT_EQ(g.CountPrefix("p1/", SIZE_MAX), 2u);
  EXPECT_EQ(g.CountPrefix("p1/", 1), 1u);
  EXPECT_EQ(g.CountPrefix("p3/", SIZE_MAX), 0u);
  auto n = g.graph().Search(b, 1);
  ASSERT_EQ(n.size(), 1u);
  EXPECT_EQ(g.KeyOf(n[0].label), "p1/y");
  g.Upsert("p1/y", a);  // the same key keeps its label
  EXPECT_EQ(g.KeyOf(n[0].label), "p1/y");
  g.Remove("p1/y");
  EXPECT_EQ(g.KeyOf(n[0].label), std::nullopt);
  EXPECT_EQ(g.graph().size(), 2u);
  EXPECT_EQ(g.CountPrefix("p1/", SIZE_MAX), 1u);
}

}  // namespace
}  // namespace ttlstore::ops
