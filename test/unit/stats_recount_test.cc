// RecountStaleStats: a table whose stats were counted by an older item-size rule is counted again
// from its items and index entries, and marked, in one commit; a counted table is left alone.
#include "ops/stats_recount.h"

#include "model/item_size.h"
#include "ops/table_ops.h"
#include "ops_test_util.h"

namespace ttlstore::ops {
namespace {

class StatsRecountTest : public OpsTest {};

TEST_F(StatsRecountTest, CountsStaleTablesAgainAndMarksThem) {
  SystemClock clock;
  TableCatalog catalog(*store_, clock);
  ASSERT_TRUE(catalog.Load().ok());
  model::TableDescriptor spec;
  spec.name = "nums";
  spec.key.hash = {"pk", model::ValueType::kS};
  model::SecondaryIndex ix;
  ix.name = "byg";
  ix.global = true;
  ix.key.hash = {"g", model::ValueType::kN};
  ix.id = 1;  // as CreateTable numbers them
  spec.indexes.push_back(ix);
  spec.next_index_id = 2;
  auto created = catalog.Create(spec);
  ASSERT_TRUE(created.ok()) << created.error().message();
  const TablePtr table = *created;
  EXPECT_EQ(table->size_rule, model::kItemSizeRule);
  int64_t bytes = 0;
  for (int i = 0; i < 20; ++i) {
    model::Item item = {{"pk", S("k" + std::to_string(i))}, {"g", N("-" + std::to_string(i) + ".5")},
                        {"n", N("3.14159")}};
    bytes += static_cast<int64_t>(model::ItemSize(item));
    ASSERT_TRUE(ops_->Put(*table, item, nullptr).ok());
  }
  const uint32_t index_id = table->indexes[0].id;
  // What the writes counted for the index (its entries, as the index holds them).
  const int64_t entry_bytes = store_->GetIndexStats(table->id, index_id)->size_bytes;
  ASSERT_GT(entry_bytes, 0);
  // As a table written under the older rule looks: its stats off, its descriptor unmarked.
  auto staled = catalog.CommitWithTable(
      table->id,
      [](model::TableDescriptor& t) {
        t.size_rule = 0;
        return true;
      },
      [&](storage::WriteBatch& batch) {
        batch.AddStats(table->id, 0, -40);
        batch.AddIndexStats(table->id, index_id, 0, -40);
      });
  ASSERT_TRUE(staled.ok() && *staled);
  ASSERT_EQ(store_->GetStats(table->id)->size_bytes, bytes - 40);

  auto counted = RecountStaleStats(*store_, catalog);
  ASSERT_TRUE(counted.ok()) << counted.error().message();
  EXPECT_EQ(*counted, 1u);
  auto stats = store_->GetStats(table->id);
  EXPECT_EQ(stats->item_count, 20);
  EXPECT_EQ(stats->size_bytes, bytes);
  auto index_stats = store_->GetIndexStats(table->id, index_id);
  EXPECT_EQ(index_stats->item_count, 20);
  EXPECT_EQ(index_stats->size_bytes, entry_bytes);
  EXPECT_EQ(catalog.Find("nums")->size_rule, model::kItemSizeRule);

  // Counted once: the next start leaves it, and its stats, alone.
  counted = RecountStaleStats(*store_, catalog);
  ASSERT_TRUE(counted.ok());
  EXPECT_EQ(*counted, 0u);
  EXPECT_EQ(store_->GetStats(table->id)->size_bytes, bytes);
}

// A start cut short between tables leaves some counted and marked, the others neither: the next
// start counts only those (each table's correction and mark are one commit).
TEST_F(StatsRecountTest, ANextStartCountsOnlyTheTablesLeft) {
  SystemClock clock;
  TableCatalog catalog(*store_, clock);
  ASSERT_TRUE(catalog.Load().ok());
  std::vector<TablePtr> tables;
  for (const char* name : {"one", "two"}) {
    model::TableDescriptor spec;
    spec.name = name;
    spec.key.hash = {"pk", model::ValueType::kS};
    auto created = catalog.Create(spec);
    ASSERT_TRUE(created.ok());
    tables.push_back(*created);
    ASSERT_TRUE(ops_->Put(*tables.back(), {{"pk", S("a")}, {"n", N("-1.5")}}, nullptr).ok());
  }
  const int64_t bytes = store_->GetStats(tables[0]->id)->size_bytes;
  for (const TablePtr& t : tables) {
    auto staled = catalog.CommitWithTable(
        t->id,
        [](model::TableDescriptor& d) {
          d.size_rule = 0;
          return true;
        },
        [&](storage::WriteBatch& batch) { batch.AddStats(t->id, 0, -2); });
    ASSERT_TRUE(staled.ok() && *staled);
  }
  // The first start counted "one" and stopped.
  auto marked = catalog.CommitWithTable(
      tables[0]->id,
      [](model::TableDescriptor& d) {
        d.size_rule = model::kItemSizeRule;
        return true;
      },
      [&](storage::WriteBatch& batch) { batch.AddStats(tables[0]->id, 0, 2); });
  ASSERT_TRUE(marked.ok() && *marked);
  auto counted = RecountStaleStats(*store_, catalog);
  ASSERT_TRUE(counted.ok());
  EXPECT_EQ(*counted, 1u);
  for (const TablePtr& t : tables) EXPECT_EQ(store_->GetStats(t->id)->size_bytes, bytes);
}

}  // namespace
}  // namespace ttlstore::ops
