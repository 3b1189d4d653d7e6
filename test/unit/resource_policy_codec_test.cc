// The resource-based policies in the table descriptor (tag 27, and field 4 of a stream): they
// round-trip, and a descriptor written before them decodes with none.
#include <gtest/gtest.h>

#include "model/table.h"
#include "storage/catalog_codec.h"

namespace ttlstore::storage {
namespace {

TEST(ResourcePolicyCodec, TableAndStreamPoliciesRoundTrip) {
  model::TableDescriptor t;
  t.id = 3;
  t.name = "Music";
  t.key.hash = {"pk", model::ValueType::kS};
  t.resource_policy = model::ResourcePolicy{"{\"Statement\":[]}", "1700000000000"};
  t.streams.push_back({1000, model::StreamViewType::kKeysOnly, 2000, std::nullopt});
  t.streams.push_back(
      {3000, model::StreamViewType::kNewImage, 0, model::ResourcePolicy{"doc2", "1700000000001"}});
  auto back = DecodeTableDescriptor(EncodeTableDescriptor(t));
  ASSERT_TRUE(back);
  ASSERT_TRUE(back->resource_policy);
  EXPECT_EQ(back->resource_policy->document, t.resource_policy->document);
  EXPECT_EQ(back->resource_policy->revision_id, "1700000000000");
  ASSERT_EQ(back->streams.size(), 2u);
  EXPECT_FALSE(back->streams[0].policy);
  ASSERT_TRUE(back->streams[1].policy);
  EXPECT_EQ(back->streams[1].policy->document, "doc2");
  EXPECT_EQ(back->streams[1].created_ms, 3000);
  // A descriptor written before policies existed has none.
  t.resource_policy.reset();
  t.streams.clear();
  back = DecodeTableDescriptor(EncodeTableDescriptor(t));
  ASSERT_TRUE(back);
  EXPECT_FALSE(back->resource_policy);
}

}  // namespace
}  // namespace ttlstore::storage
