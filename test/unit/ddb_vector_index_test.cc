// DynamoDB vector indexes' pure logic: the distance math and scores (vector/distance.h), the
// vector attribute's parsing and write checks (index/vector_value.h), the entries' membership
// and projection (index/index_key.h), the descriptor's encoding, and SearchConditionExpression
// parsing (api/search_condition.h). Rules and sources: docs/vector-indexes.md.
#include <cmath>

#include <gtest/gtest.h>

#include "api/search_condition.h"
#include "index/index_key.h"
#include "index/vector_value.h"
#include "model/number.h"
#include "storage/catalog_codec.h"
#include "vector/distance.h"

namespace ttlstore {
namespace {

model::AttributeValue S(const std::string& s) { return model::AttributeValue::String(s); }
model::AttributeValue N(const std::string& n) {
  return model::AttributeValue::Num(model::Number::Parse(n)->ToString());
}
model::AttributeValue Vec(std::initializer_list<const char*> xs) {
  model::List l;
  for (const char* x : xs) l.push_back(N(x));
  return model::AttributeValue::OfList(std::move(l));
}

model::TableDescriptor Table() {
  model::TableDescriptor t;
  t.id = 9;
  t.key.hash = {"id", model::ValueType::kS};
  model::SecondaryIndex v;
  v.name = "vec";
  v.id = 2;
  v.projection = model::ProjectionType::kKeysOnly;
  model::VectorIndexSettings vs;
  vs.attribute = "emb";
  vs.dimensions = 3;
  vs.metric = model::VectorMetric::kCosine;
  vs.has_hash = true;
  vs.inline_filters = {{"lang", model::ValueType::kS}};
  v.key.hash = {"cat", model::ValueType::kS};
  v.vector = vs;
  t.indexes.push_back(v);
  return t;
}

TEST(DdbVectorDistance, EachMetricAndItsScore) {
  const float a[] = {1, 0, 0}, b[] = {0, 1, 0}, c[] = {-2, 0, 0}, z[] = {0, 0, 0};
  using vector::Metric;
  EXPECT_DOUBLE_EQ(vector::Distance(Metric::kCosine, a, a, 3), 0.0);
  EXPECT_DOUBLE_EQ(vector::Distance(Metric::kCosine, a, b, 3), 1.0);
  EXPECT_DOUBLE_EQ(vector::Distance(Metric::kCosine, a, c, 3), 2.0);
  EXPECT_DOUBLE_EQ(vector::Distance(Metric::kCosine, a, z, 3), 1.0);  // cos 0 for a zero vector
  EXPECT_DOUBLE_EQ(vector::Distance(Metric::kEuclidean, a, c, 3), 9.0);  // squared
  EXPECT_DOUBLE_EQ(vector::DynamoScoreOf(Metric::kEuclidean, 9.0), 3.0);
  EXPECT_DOUBLE_EQ(vector::Distance(Metric::kDotProduct, a, c, 3), 3.0);  // 1 - (-2)
  EXPECT_DOUBLE_EQ(vector::DynamoScoreOf(Metric::kDotProduct, 3.0), -2.0);
  EXPECT_DOUBLE_EQ(vector::DynamoScoreOf(Metric::kCosine, 2.0000001), 2.0);
}

TEST(DdbVectorValue, ParsesListsOfNumbersAtFloat32) {
  auto v = index::VectorOf(Vec({"0.5", "-1", "3e2"}), 3);
  ASSERT_TRUE(v);
  EXPECT_EQ(*v, (std::vector<float>{0.5f, -1.0f, 300.0f}));
  EXPECT_FALSE(index::VectorOf(Vec({"1", "2"}), 3));
  EXPECT_FALSE(index::VectorOf(Vec({"1", "2", "1e40"}), 3));  // past float32
  EXPECT_FALSE(index::VectorOf(S("x"), 3));
  model::List mixed = {N("1"), S("2"), N("3")};
  EXPECT_FALSE(index::VectorOf(model::AttributeValue::OfList(mixed), 3));
}

TEST(DdbVectorValue, WriteChecksAndTheirTexts) {
  model::TableDescriptor t = Table();
  EXPECT_TRUE(index::CheckVectorAttributes(t, {{"id", S("a")}}));  // absent: sparse
  EXPECT_TRUE(index::CheckVectorAttributes(t, {{"id", S("a")}, {"emb", Vec({"1", "2", "3"})}}));
  auto wrong_dim = index::CheckVectorAttributes(t, {{"id", S("a")}, {"emb", Vec({"1", "2"})}});
  ASSERT_FALSE(wrong_dim);
  EXPECT_EQ(wrong_dim.error().message(),
            "One or more parameter values were invalid: Vector attribute emb has 2 dimensions, "
            "but vector index vec requires 3");
  auto wrong_type = index::CheckVectorAttributes(t, {{"id", S("a")}, {"emb", S("x")}});
  ASSERT_FALSE(wrong_type);
  EXPECT_NE(wrong_type.error().message().find("Invalid type for parameter emb:"), std::string::npos);
  model::List mixed = {N("1"), S("2"), N("3")};
  auto member = index::CheckVectorAttributes(
      t, {{"id", S("a")}, {"emb", model::AttributeValue::OfList(mixed)}});
  ASSERT_FALSE(member);
  EXPECT_NE(member.error().message().find("Invalid type for parameter emb[1]"), std::string::npos);
  auto filter = index::CheckVectorAttributes(t, {{"id", S("a")}, {"lang", N("1")}});
  ASSERT_FALSE(filter);
  EXPECT_NE(filter.error().message().find("Type mismatch for Index Key lang"), std::string::npos);
}

TEST(DdbVectorEntries, MembershipKeyAndProjection) {
  model::TableDescriptor t = Table();
  const model::SecondaryIndex& ix = t.indexes[0];
  model::Item item = {{"id", S("a")}, {"cat", S("x")}, {"lang", S("en")},
                      {"emb", Vec({"1", "2", "3"})}, {"body", S("b")}};
  auto keys = index::IndexKeyOf(ix, item);
  ASSERT_TRUE(keys);
  ASSERT_EQ(keys->hash.size(), 1u);
  EXPECT_TRUE(keys->range.empty());
  // The entry is in the HASH value's partition.
  std::string entry = index::EntryKey(t.id, ix, *keys, "........a");
  EXPECT_EQ(entry.rfind(index::IndexPartitionPrefix(t.id, ix.id, S("x")), 0), 0u);
  // KEYS_ONLY: table key, HASH, vector, INLINE_FILTER.
  model::Item projected = index::Project(t, ix, item);
  model::Item want = item;
  want.erase("body");
  EXPECT_EQ(projected, want);
  EXPECT_TRUE(index::Projects(t, ix, "emb"));
  EXPECT_TRUE(index::Projects(t, ix, "lang"));
  EXPECT_FALSE(index::Projects(t, ix, "body"));
  // Sparse: no vector, no HASH value, or a vector of another length.
  model::Item no_hash = item;
  no_hash.erase("cat");
  EXPECT_FALSE(index::IndexKeyOf(ix, no_hash));
  model::Item short_vec = item;
  short_vec["emb"] = Vec({"1"});
  EXPECT_FALSE(index::IndexKeyOf(ix, short_vec));
  // Without a HASH element every entry shares one partition.
  model::TableDescriptor t2 = Table();
  t2.indexes[0].vector->has_hash = false;
  t2.indexes[0].key.hash = {};
  auto k2 = index::IndexKeyOf(t2.indexes[0], no_hash);
  ASSERT_TRUE(k2);
  EXPECT_TRUE(k2->hash.empty());
}

TEST(DdbVectorEntries, DescriptorRoundTrip) {
  model::TableDescriptor t = Table();
  t.name = "docs";
  auto decoded = storage::DecodeTableDescriptor(storage::EncodeTableDescriptor(t));
  ASSERT_TRUE(decoded);
  ASSERT_EQ(decoded->indexes.size(), 1u);
  const auto& ix = decoded->indexes[0];
  ASSERT_TRUE(ix.IsVector());
  EXPECT_EQ(ix.vector->attribute, "emb");
  EXPECT_EQ(ix.vector->dimensions, 3u);
  EXPECT_EQ(ix.vector->metric, model::VectorMetric::kCosine);
  EXPECT_TRUE(ix.vector->has_hash);
  EXPECT_EQ(ix.key.hash.name, "cat");
  ASSERT_EQ(ix.vector->inline_filters.size(), 1u);
  EXPECT_EQ(ix.vector->inline_filters[0].name, "lang");
  EXPECT_FALSE(ix.IsLocal());
}

TEST(DdbSearchCondition, EqualitiesOnTheSearchSchema) {
  model::TableDescriptor t = Table();
  const model::SecondaryIndex& ix = t.indexes[0];
  expr::Placeholders ph;
  ph.names["#l"] = "lang";
  ph.values[":c"] = S("x");
  ph.values[":l"] = S("en");
  auto ok = api::ParseSearchCondition("cat = :c AND #l = :l", ix, ph);
  ASSERT_TRUE(ok) << ok.error().message();
  EXPECT_EQ(*ok->hash, S("x"));
  ASSERT_EQ(ok->filters.size(), 1u);
  EXPECT_EQ(ok->filters[0].first, "lang");
  EXPECT_TRUE(ph.used_names.count("#l"));
  EXPECT_TRUE(api::ParseSearchCondition(":c = cat", ix, ph));
  for (const char* bad : {"cat <> :c", "cat < :c", "begins_with(cat, :c)", "cat = :c OR lang = :l",
                          "cat.x = :c", "(cat = :c)", "cat BETWEEN :c AND :l"}) {
    auto r = api::ParseSearchCondition(bad, ix, ph);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().message(), "Invalid SearchConditionExpression: Invalid comparator used in SearchConditionExpression") << bad;
  }
  auto other = api::ParseSearchCondition("body = :c", ix, ph);
  ASSERT_FALSE(other);
  EXPECT_NE(other.error().message().find("Invalid attribute: "),
            std::string::npos);
  ph.values[":n"] = N("1");
  auto type = api::ParseSearchCondition("cat = :n", ix, ph);
  ASSERT_FALSE(type);
  EXPECT_NE(type.error().message().find("does not match schema type"), std::string::npos);
}

}  // namespace
}  // namespace ttlstore
