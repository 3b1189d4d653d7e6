// Multi-attribute GSI keys: the entry key layout and its order (index/index_key.h), the catalog
// fields that persist them (storage/catalog_codec.cc), and KeyConditionExpression's rules for
// them (expr/key_condition.h). docs/compatibility.md, "Multi-attribute GSI keys".
#include <gtest/gtest.h>

#include "common/coding.h"
#include "expr/key_condition.h"
#include "index/index_key.h"
#include "index/index_writer.h"
#include "model/number.h"
#include "storage/catalog_codec.h"
#include "storage/key_codec.h"

namespace ttlstore {
namespace {

using model::AttributeValue;
using model::ValueType;
using SortOp = expr::KeyCondition::SortOp;
using namespace std::string_literals;

AttributeValue S(const std::string& s) { return AttributeValue::String(s); }
AttributeValue N(const std::string& n) {
  return AttributeValue::Num(model::Number::Parse(n)->ToString());
}
AttributeValue B(const std::string& b) { return AttributeValue::Binary(b); }

// Table pk (S); index `m`: partition (h1 S, h2 N), sort (r1 S, r2 N, r3 B).
model::TableDescriptor Table() {
  model::TableDescriptor t;
  t.id = 9;
  t.key.hash = {"pk", ValueType::kS};
  model::SecondaryIndex m;
  m.name = "m";
  m.id = 2;
  m.global = true;
  m.key.hash = {"h1", ValueType::kS};
  m.key.more_hash = {{"h2", ValueType::kN}};
  m.key.range = model::KeyElement{"r1", ValueType::kS};
  m.key.more_range = {{"r2", ValueType::kN}, {"r3", ValueType::kB}};
  m.projection = model::ProjectionType::kKeysOnly;
  t.indexes.push_back(m);
  return t;
}

model::Item Item(const std::string& pk, const std::string& r1, const std::string& r2,
                 const std::string& r3, const std::string& h2 = "1") {
  return {{"pk", S(pk)}, {"h1", S("H")}, {"h2", N(h2)}, {"r1", S(r1)}, {"r2", N(r2)},
          {"r3", B(r3)}, {"other", S("o")}};
}

std::string Entry(const model::TableDescriptor& t, const model::Item& item) {
  auto keys = index::IndexKeyOf(t.indexes[0], item);
  EXPECT_TRUE(keys.has_value());
  if (!keys) return "";
  return index::EntryKey(t.id, t.indexes[0], *keys, storage::ItemKey(t.id, item.at("pk"), nullptr));
}

TEST(GsiMultiAttributeKey, LayoutConcatenatesEveryKeyAttributeInSchemaOrder) {
  model::TableDescriptor t = Table();
  std::string key = Entry(t, Item("p", "a", "12", "\x01"));
  std::string partition;
  storage::AppendKeyValue(&partition, S("H"));
  storage::AppendKeyValue(&partition, N("1"));
  std::string expected = index::IndexPrefix(9, 2);
  PutFixed32BE(&expected, storage::PartitionHash(partition));
  expected += partition;
  storage::AppendKeyValue(&expected, S("a"));
  storage::AppendKeyValue(&expected, N("12"));
  storage::AppendKeyValue(&expected, B("\x01"));
  storage::AppendKeyValue(&expected, S("p"));
  EXPECT_EQ(key, expected);
  AttributeValue h1 = S("H"), h2 = N("1");
  EXPECT_EQ(key.rfind(index::IndexPartitionPrefix(9, 2, {&h1, &h2}), 0), 0u);
  // Another h2 is another partition, with its own hash.
  EXPECT_NE(index::EntryHash(key), index::EntryHash(Entry(t, Item("p", "a", "12", "\x01", "2"))));
}

TEST(GsiMultiAttributeKey, SingleAttributeLayoutIsUnchanged) {
  AttributeValue g = S("G");
  EXPECT_EQ(index::IndexPartitionPrefix(7, 3, {&g}),
            index::IndexPrefix(7, 3) + storage::PartitionPrefix(0, g).substr(4));
}

TEST(GsiMultiAttributeKey, EntriesSortBySortAttributesLeftToRightEachInItsTypesOrder) {
  model::TableDescriptor t = Table();
  // In the expected order: r1 by bytes ("a" < "ab" < "b"), then r2 numerically, then r3 by
  // unsigned bytes (0x00 0x01 < 0x01 < 0xff), then the table key.
  std::vector<model::Item> ordered = {
      Item("z", "a", "-1", "\xff"),      Item("y", "a", "2.5", "\x00\x01"s),
      Item("x", "a", "2.5", "\x01"),     Item("w", "a", "9", "\x01"),
      Item("v", "a", "10", "\x01"),      Item("a", "ab", "-100", "\x01"),
      Item("b", "ab", "-100", "\x01"),   Item("c", "b", "-1000", "\x00"s)};
  for (size_t i = 1; i < ordered.size(); ++i) {
    EXPECT_LT(Entry(t, ordered[i - 1]), Entry(t, ordered[i])) << i;
  }
  // An equality prefix on (r1, r2) is one key range.
  AttributeValue h1 = S("H"), h2 = N("1");
  std::string prefix = index::IndexPartitionPrefix(9, 2, {&h1, &h2});
  storage::AppendKeyValue(&prefix, S("a"));
  storage::AppendKeyValue(&prefix, N("2.5"));
  std::string end = storage::PrefixSuccessor(prefix);
  for (size_t i = 0; i < ordered.size(); ++i) {
    std::string e = Entry(t, ordered[i]);
    EXPECT_EQ(e >= prefix && e < end, i == 1 || i == 2) << i;
  }
}

TEST(GsiMultiAttributeKey, AnItemMissingOrMistypingAnyKeyAttributeIsNotIndexed) {
  const model::SecondaryIndex ix = Table().indexes[0];
  model::Item full = Item("p", "a", "1", "\x01");
  EXPECT_TRUE(index::IndexKeyOf(ix, full));
  for (const char* attr : {"h1", "h2", "r1", "r2", "r3"}) {
    model::Item missing = full;
    missing.erase(attr);
    EXPECT_FALSE(index::IndexKeyOf(ix, missing)) << attr;
    model::Item mistyped = full;
    mistyped[attr] = attr == std::string("r1") || attr == std::string("h1") ? N("1") : S("x");
    EXPECT_FALSE(index::IndexKeyOf(ix, mistyped)) << attr;
  }
  model::Item long_sort = full;
  long_sort["r1"] = S(std::string(1024, 'x'));
  long_sort["r3"] = B("y");  // 1025 bytes of S and B sort values together
  EXPECT_FALSE(index::IndexKeyOf(ix, long_sort));
}

TEST(GsiMultiAttributeKey, WritesRefuseAWrongTypeOrAnOverLongKeyAsTheServiceDoes) {
  model::TableDescriptor t = Table();
  model::Item item = Item("p", "a", "1", "\x01");
  EXPECT_TRUE(index::ValidateIndexKeys(t, item).ok());
  item["r2"] = S("x");
  EXPECT_EQ(index::ValidateIndexKeys(t, item).error().message(),
            "One or more parameter values were invalid: Type mismatch for Index Key r2 Expected: "
            "N Actual: S IndexName: m");
  item = Item("p", std::string(1000, 'a'), "1", std::string(25, 'b'));
  EXPECT_EQ(index::ValidateIndexKeys(t, item).error().message(),
            "One or more parameter values were invalid: Aggregated size of all range keys has "
            "exceeded the size limit of 1024 bytes");
  item.erase("r2");  // sparse: still checked, as the present attributes are
  EXPECT_FALSE(index::ValidateIndexKeys(t, item).ok());
}

TEST(GsiMultiAttributeKey, CatalogKeepsTheExtraKeyAttributes) {
  model::TableDescriptor t = Table();
  auto decoded = storage::DecodeTableDescriptor(storage::EncodeTableDescriptor(t));
  ASSERT_TRUE(decoded);
  const model::KeySchema& k = decoded->indexes[0].key;
  ASSERT_EQ(k.HashElements().size(), 2u);
  ASSERT_EQ(k.RangeElements().size(), 3u);
  EXPECT_EQ(k.more_hash[0].name, "h2");
  EXPECT_EQ(k.more_hash[0].type, ValueType::kN);
  EXPECT_EQ(k.more_range[1].name, "r3");
  EXPECT_EQ(k.more_range[1].type, ValueType::kB);
  EXPECT_TRUE(k.Contains("r2"));
  EXPECT_FALSE(k.Contains("pk"));
}

// --- KeyConditionExpression -----------------------------------------------------------------

Result<expr::KeyCondition> Parse(const std::string& text) {
  expr::Placeholders ph;
  ph.values = {{":h1", S("H")}, {":h2", N("1")}, {":s", S("a")}, {":t", S("b")},
               {":n", N("5")},  {":m", N("7")},  {":b", B("x")}, {":e", S("")}};
  return expr::KeyCondition::Parse(text, Table().indexes[0].key, ph);
}

std::string ErrorOf(const std::string& text) {
  auto k = Parse(text);
  return k.ok() ? "" : k.error().message();
}

TEST(GsiMultiAttributeKeyCondition, AllowedShapes) {
  auto k = Parse("h2 = :h2 AND h1 = :h1");
  ASSERT_TRUE(k.ok()) << k.error().message();
  EXPECT_EQ(k->partition, S("H"));
  EXPECT_EQ(k->more_partition, std::vector<AttributeValue>{N("1")});
  EXPECT_EQ(k->sort_op, SortOp::kNone);
  EXPECT_TRUE(k->sort_prefix.empty());

  k = Parse("h1 = :h1 AND h2 = :h2 AND r1 BETWEEN :s AND :t");
  ASSERT_TRUE(k.ok()) << k.error().message();
  EXPECT_EQ(k->sort_op, SortOp::kBetween);
  EXPECT_EQ(k->sort2, S("b"));

  k = Parse("r2 > :n AND h1 = :h1 AND r1 = :s AND h2 = :h2");
  ASSERT_TRUE(k.ok()) << k.error().message();
  EXPECT_EQ(k->sort_prefix, std::vector<AttributeValue>{S("a")});
  EXPECT_EQ(k->sort_op, SortOp::kGt);
  EXPECT_EQ(k->sort1, N("5"));

  k = Parse("h1 = :h1 AND h2 = :h2 AND r1 = :s AND r2 = :n AND begins_with(r3, :b)");
  ASSERT_TRUE(k.ok()) << k.error().message();
  EXPECT_EQ(k->sort_prefix.size(), 2u);
  EXPECT_EQ(k->sort_op, SortOp::kBeginsWith);
}

TEST(GsiMultiAttributeKeyCondition, RefusedShapes) {
  const std::string missed = "Query condition missed key schema element: ";
  const std::string unsupported = "Query key condition not supported";
  EXPECT_EQ(ErrorOf("h1 = :h1"), missed + "h2");
  EXPECT_EQ(ErrorOf("h1 = :h1 AND h2 > :h2"), unsupported);
  EXPECT_EQ(ErrorOf("h1 = :h1 AND h2 = :h2 AND r2 = :n"), missed + "r1");
  EXPECT_EQ(ErrorOf("h1 = :h1 AND h2 = :h2 AND r1 = :s AND r3 = :b"), missed + "r2");
  EXPECT_EQ(ErrorOf("h1 = :h1 AND h2 = :h2 AND r1 < :s AND r2 = :n"), unsupported);
  EXPECT_EQ(ErrorOf("h1 = :h1 AND h2 = :h2 AND begins_with(r1, :s) AND r2 = :n"), unsupported);
  EXPECT_EQ(ErrorOf("h1 = :h1 AND h2 = :h2 AND v = :s"), missed + "r1");
  EXPECT_EQ(ErrorOf("h1 = :h1 AND h2 = :h2 AND r1 = :s AND r2 = :n AND r3 = :b AND x = :s"),
            unsupported);
  EXPECT_EQ(ErrorOf("h1 = :h1 AND h2 = :s"),
            "One or more parameter values were invalid: Condition parameter type does not match "
            "schema type");
  EXPECT_EQ(ErrorOf("h1 = :h1 AND h2 = :h2 AND r1 = :e"),
            "One or more parameter values are not valid. The AttributeValue for a key attribute "
            "cannot contain an empty string value. Key: r1");
  EXPECT_EQ(ErrorOf("h1 = :h1 AND h2 = :h2 AND r1 = :s AND r1 = :t"),
            "Invalid KeyConditionExpression: KeyConditionExpressions must only contain one "
            "condition per key");
  EXPECT_EQ(ErrorOf("h1 = :h1 OR h2 = :h2"),
            "Invalid operator used in KeyConditionExpression: OR");
}

TEST(GsiMultiAttributeKeyCondition, MatchesChecksEveryConditionedAttribute) {
  model::KeySchema key = Table().indexes[0].key;
  auto k = Parse("h1 = :h1 AND h2 = :h2 AND r1 = :s AND r2 >= :n");
  ASSERT_TRUE(k.ok());
  EXPECT_TRUE(k->Matches(key, Item("p", "a", "5", "\x01")));
  EXPECT_TRUE(k->Matches(key, Item("p", "a", "6", "\x01")));
  EXPECT_FALSE(k->Matches(key, Item("p", "a", "4", "\x01")));
  EXPECT_FALSE(k->Matches(key, Item("p", "b", "6", "\x01")));
  EXPECT_FALSE(k->Matches(key, Item("p", "a", "6", "\x01", "2")));
}

}  // namespace
}  // namespace ttlstore
