// Index entry key layout and projection (index/index_key.h).
#include "index/index_key.h"

#include <gtest/gtest.h>

#include "model/number.h"
#include "storage/catalog_codec.h"
#include "storage/key_codec.h"

namespace ttlstore::index {
namespace {

model::AttributeValue S(const std::string& s) { return model::AttributeValue::String(s); }
model::AttributeValue N(const std::string& n) {
  return model::AttributeValue::Num(model::Number::Parse(n)->ToString());
}

model::TableDescriptor Table() {
  model::TableDescriptor t;
  t.id = 7;
  t.key.hash = {"pk", model::ValueType::kS};
  t.key.range = model::KeyElement{"sk", model::ValueType::kS};
  model::SecondaryIndex g;
  g.name = "gsi";
  g.id = 3;
  g.global = true;
  g.key.hash = {"g", model::ValueType::kS};
  g.key.range = model::KeyElement{"n", model::ValueType::kN};
  g.projection = model::ProjectionType::kInclude;
  g.non_key_attributes = {"x"};
  t.indexes.push_back(g);
  return t;
}

std::string EntryOf(const model::TableDescriptor& t, const model::Item& item) {
  const model::SecondaryIndex& ix = t.indexes[0];
  auto keys = IndexKeyOf(ix, item);
  EXPECT_TRUE(keys.has_value());
  std::string item_key = storage::ItemKey(t.id, item.at("pk"), &item.at("sk"));
  return EntryKey(t.id, ix, *keys, item_key);
}

TEST(IndexKeyTest, LayoutIsTableIndexHashIndexKeyThenTableKey) {
  model::TableDescriptor t = Table();
  model::Item item = {{"pk", S("a")}, {"sk", S("b")}, {"g", S("G")}, {"n", N("12")}};
  std::string key = EntryOf(t, item);
  std::string expected = IndexPrefix(7, 3);
  EXPECT_EQ(expected, std::string("\0\0\0\x07\0\0\0\x03", 8));
  // hash . enc(g) is what the item key of a partition "G" would carry after its table id.
  expected += storage::PartitionPrefix(0, S("G")).substr(4);
  storage::AppendKeyValue(&expected, N("12"));
  storage::AppendKeyValue(&expected, S("a"));
  storage::AppendKeyValue(&expected, S("b"));
  EXPECT_EQ(key, expected);
  EXPECT_EQ(key.rfind(IndexPartitionPrefix(7, 3, S("G")), 0), 0u);
  EXPECT_EQ(EntryHash(key), EntryHash(IndexPartitionPrefix(7, 3, S("G")) + "zz"));
  // The `indexes` family's prefix filters cover table id . index id . hash.
  EXPECT_GT(IndexPartitionPrefix(7, 3, S("G")).size(), storage::kIndexPrefixBytes);
  EXPECT_EQ(key.substr(0, storage::kIndexPrefixBytes),
            IndexPrefix(7, 3) + storage::PartitionPrefix(0, S("G")).substr(4, 4));
}

TEST(IndexKeyTest, SameIndexKeyDifferentItemsStayDistinctAndOrderedByIndexSortKey) {
  model::TableDescriptor t = Table();
  model::Item a = {{"pk", S("a")}, {"sk", S("1")}, {"g", S("G")}, {"n", N("5")}};
  model::Item b = {{"pk", S("b")}, {"sk", S("1")}, {"g", S("G")}, {"n", N("5")}};
  model::Item c = {{"pk", S("0")}, {"sk", S("1")}, {"g", S("G")}, {"n", N("10")}};
  model::Item d = {{"pk", S("0")}, {"sk", S("1")}, {"g", S("G")}, {"n", N("-3")}};
  EXPECT_NE(EntryOf(t, a), EntryOf(t, b));
  EXPECT_LT(EntryOf(t, a), EntryOf(t, b));  // same index key: table key order
  EXPECT_LT(EntryOf(t, a), EntryOf(t, c));  // 5 < 10 numerically
  EXPECT_LT(EntryOf(t, d), EntryOf(t, a));  // -3 < 5
  // Every entry with n = 5 lies in [with(5), successor(with(5))).
  std::string with5 = IndexPartitionPrefix(7, 3, S("G"));
  storage::AppendKeyValue(&with5, N("5"));
  std::string end5 = storage::PrefixSuccessor(with5);
  for (const auto* item : {&a, &b}) {
    EXPECT_GE(EntryOf(t, *item), with5);
    EXPECT_LT(EntryOf(t, *item), end5);
  }
  EXPECT_GE(EntryOf(t, c), end5);
}

TEST(IndexKeyTest, SparseWhenMissingWrongTypeOrEmpty) {
  const model::SecondaryIndex ix = Table().indexes[0];
  EXPECT_FALSE(IndexKeyOf(ix, {{"g", S("G")}}));                        // no range attribute
  EXPECT_FALSE(IndexKeyOf(ix, {{"g", N("1")}, {"n", N("1")}}));         // wrong type
  EXPECT_FALSE(IndexKeyOf(ix, {{"g", S("")}, {"n", N("1")}}));          // empty string
  EXPECT_TRUE(IndexKeyOf(ix, {{"g", S("G")}, {"n", N("1")}}));
}

TEST(IndexKeyTest, ProjectionKeepsTableAndIndexKeysPlusIncluded) {
  model::TableDescriptor t = Table();
  model::Item item = {{"pk", S("a")}, {"sk", S("b")}, {"g", S("G")},
                      {"n", N("1")},  {"x", S("in")}, {"y", S("out")}};
  model::Item include = Project(t, t.indexes[0], item);
  EXPECT_EQ(include.size(), 5u);
  EXPECT_TRUE(include.count("x"));
  EXPECT_FALSE(include.count("y"));
  EXPECT_TRUE(Projects(t, t.indexes[0], "pk"));
  EXPECT_FALSE(Projects(t, t.indexes[0], "y"));

  t.indexes[0].projection = model::ProjectionType::kKeysOnly;
  model::Item keys = Project(t, t.indexes[0], item);
  EXPECT_EQ(keys.size(), 4u);
  EXPECT_FALSE(keys.count("x"));
  EXPECT_EQ(EntryKeyAttributes(t, t.indexes[0], item), keys);

  t.indexes[0].projection = model::ProjectionType::kAll;
  EXPECT_EQ(Project(t, t.indexes[0], item), item);
}

TEST(IndexKeyTest, CatalogKeepsIndexIdsStatusAndDroppedIds) {
  model::TableDescriptor t = Table();
  t.indexes[0].status = model::IndexStatus::kCreating;
  t.next_index_id = 5;
  t.dropped_index_ids = {4};
  auto decoded = storage::DecodeTableDescriptor(storage::EncodeTableDescriptor(t));
  ASSERT_TRUE(decoded);
  EXPECT_EQ(decoded->indexes[0].id, 3u);
  EXPECT_EQ(decoded->indexes[0].status, model::IndexStatus::kCreating);
  EXPECT_EQ(decoded->next_index_id, 5u);
  EXPECT_EQ(decoded->dropped_index_ids, std::vector<uint32_t>{4});
}

}  // namespace
}  // namespace ttlstore::index
