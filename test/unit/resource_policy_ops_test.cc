// PutResourcePolicy's and DeleteResourcePolicy's catalog changes: RevisionId rules,
// ExpectedRevisionId (NO_POLICY, stale ids) with the service's texts, the stream's own slot,
// persistence across a reload, and DeleteTable taking the policies with it.
#include <gtest/gtest.h>

#include "common/clock.h"
#include "ops/resource_policies.h"
#include "ops_test_util.h"

namespace ttlstore::ops {
namespace {

TEST(ResourcePolicyRevision, IncreasesEvenWhenTheClockDoesNot) {
  EXPECT_EQ(NextRevisionId("", 1700000000000), "1700000000000");
  EXPECT_EQ(NextRevisionId("1700000000000", 1700000000000), "1700000000001");
  EXPECT_EQ(NextRevisionId("1700000000005", 1700000000001), "1700000000006");
  EXPECT_EQ(NextRevisionId("1700000000000", 1700000000100), "1700000000100");
}

class ResourcePolicyOpsTest : public OpsTest {};

TEST_F(ResourcePolicyOpsTest, PutGetDeleteWithExpectedRevisions) {
  FakeClock clock(1700000000000);
  TableCatalog catalog(*store_, clock);
  ASSERT_TRUE(catalog.Load());
  model::TableDescriptor spec;
  spec.name = "Music";
  spec.key.hash = {"pk", model::ValueType::kS};
  spec.streams.push_back({1700000000000 - 5, model::StreamViewType::kKeysOnly, 0, std::nullopt});
  ASSERT_TRUE(catalog.Create(spec));
  EXPECT_FALSE(catalog.AnyResourcePolicy());
  PolicyTarget table{"Music", std::nullopt, "arn:table"};

  // NO_POLICY: only when there is none.
  auto r1 = PutResourcePolicy(catalog, clock, table, "doc1", std::string(kNoPolicyRevision));
  ASSERT_TRUE(r1) << r1.error().message();
  EXPECT_EQ(*r1, "1700000000000");
  EXPECT_TRUE(catalog.AnyResourcePolicy());
  auto again = PutResourcePolicy(catalog, clock, table, "doc1", std::string(kNoPolicyRevision));
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code(), ErrorCode::kPolicyNotFound);
  EXPECT_EQ(again.error().message(),
            "Resource-based policy not found for the provided ResourceArn: Requested policy "
            "update expecting none to be present for table Music, but a policy exists with "
            "revision id 1700000000000.");
  // The same document: the same revision, nothing changes.
  EXPECT_EQ(*PutResourcePolicy(catalog, clock, table, "doc1", std::nullopt), *r1);
  // A new document in the same millisecond still gets a new, larger id.
  auto r2 = PutResourcePolicy(catalog, clock, table, "doc2", *r1);
  ASSERT_TRUE(r2);
  EXPECT_EQ(*r2, "1700000000001");
  auto stale = PutResourcePolicy(catalog, clock, table, "doc3", *r1);
  ASSERT_FALSE(stale);
  EXPECT_EQ(stale.error().message(),
            "Resource-based policy not found for the provided ResourceArn: Requested update for "
            "policy with revision id 1700000000000, but the policy associated to target table "
            "Music has revision id 1700000000001.");
  EXPECT_EQ(catalog.Find("Music")->resource_policy->document, "doc2");

  // The stream's slot is its own.
  PolicyTarget stream{"Music", 1700000000000 - 5, "arn:stream"};
  EXPECT_EQ(FindResourcePolicy(*catalog.Find("Music"), stream.stream_created_ms), nullptr);
  ASSERT_TRUE(PutResourcePolicy(catalog, clock, stream, "sdoc", std::nullopt));
  EXPECT_EQ(FindResourcePolicy(*catalog.Find("Music"), stream.stream_created_ms)->document, "sdoc");
  PolicyTarget no_stream{"Music", 42, "arn:stream2"};
  auto missing = PutResourcePolicy(catalog, clock, no_stream, "x", std::nullopt);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code(), ErrorCode::kResourceNotFound);

  // Delete: a stale revision is refused, the right one removes it, a second delete finds none.
  EXPECT_EQ(DeleteResourcePolicy(catalog, table, *r1).error().code(), ErrorCode::kPolicyNotFound);
  auto removed = DeleteResourcePolicy(catalog, table, *r2);
  ASSERT_TRUE(removed);
  EXPECT_EQ(*removed, *r2);
  auto gone = DeleteResourcePolicy(catalog, table, std::nullopt);
  ASSERT_FALSE(gone);
  EXPECT_EQ(gone.error().message(),
            "Resource-based policy not found for the provided ResourceArn: arn:table");
  EXPECT_FALSE(catalog.Find("Music")->resource_policy);
  EXPECT_TRUE(catalog.Find("Music")->streams[0].policy);

  // Survives a reload from the store.
  ASSERT_TRUE(PutResourcePolicy(catalog, clock, table, "doc4", std::nullopt));
  TableCatalog reloaded(*store_, clock);
  ASSERT_TRUE(reloaded.Load());
  EXPECT_EQ(reloaded.Find("Music")->resource_policy->document, "doc4");
  EXPECT_EQ(reloaded.Find("Music")->streams[0].policy->document, "sdoc");

  // A missing table.
  auto none = PutResourcePolicy(catalog, clock, {"Nope", std::nullopt, "a"}, "d", std::nullopt);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().message(), "Requested resource not found: Table: Nope not found");

  // DeleteTable takes the policies with it.
  EXPECT_TRUE(reloaded.AnyResourcePolicy());
  ASSERT_TRUE(catalog.Delete("Music"));
  EXPECT_FALSE(catalog.AnyResourcePolicy());
}

}  // namespace
}  // namespace ttlstore::ops
