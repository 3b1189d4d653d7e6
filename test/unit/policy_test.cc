// IAM-like policies: glob matching, explicit deny wins, implicit deny, attribute conditions, and
// what a request asks for (action, ARNs, written attributes) as api/authorize.cc extracts it.
#include "auth/policy.h"

#include <gtest/gtest.h>

#include "api/authorize.h"

namespace ttlstore::auth {
namespace {

// A statement without a condition.
Statement Plain(bool allow, std::vector<std::string> actions, std::vector<std::string> resources) {
  Statement s;
  s.allow = allow;
  s.actions = std::move(actions);
  s.resources = std::move(resources);
  return s;
}

const std::string kArn = "arn:aws:dynamodb:us-east-1:000000000000:table/";

TEST(Policy, GlobMatch) {
  EXPECT_TRUE(GlobMatch("*", ""));
  EXPECT_TRUE(GlobMatch("dynamodb:*", "dynamodb:GetItem"));
  EXPECT_TRUE(GlobMatch("dynamodb:Get*", "dynamodb:GetItem"));
  EXPECT_FALSE(GlobMatch("dynamodb:Get*", "dynamodb:PutItem"));
  EXPECT_TRUE(GlobMatch("arn:aws:dynamodb:*:*:table/Sess?ons", kArn + "Sessions"));
  EXPECT_FALSE(GlobMatch("arn:aws:dynamodb:*:*:table/Sessions", kArn + "Sessions/index/gsi"));
  EXPECT_TRUE(GlobMatch("a*b*c", "axxbyyc"));
  EXPECT_FALSE(GlobMatch("a*b*c", "axxbyy"));
}

TEST(Policy, ExplicitDenyWinsAndUnlistedKeysAreFree) {
  PolicySet p;
  p.Set("ops", {Plain(true, {"dynamodb:*"}, {"*"}),
                Plain(false, {"dynamodb:UpdateTimeToLive"}, {"*"})});
  EXPECT_EQ(p.Evaluate("ops", {"dynamodb:GetItem", {kArn + "t"}, {}}).verdict, Verdict::kAllow);
  auto d = p.Evaluate("ops", {"dynamodb:UpdateTimeToLive", {kArn + "t"}, {}});
  EXPECT_EQ(d.verdict, Verdict::kExplicitDeny);
  EXPECT_EQ(d.resource, kArn + "t");
  EXPECT_EQ(p.Evaluate("admin", {"dynamodb:UpdateTimeToLive", {kArn + "t"}, {}}).verdict,
            Verdict::kAllow);
}

TEST(Policy, ImplicitDenyOnEveryResourceNotAllowed) {
  PolicySet p;
  p.Set("reader", {Plain(true, {"dynamodb:GetItem", "dynamodb:BatchGetItem"}, {kArn + "Sessions"})});
  EXPECT_EQ(p.Evaluate("reader", {"dynamodb:GetItem", {kArn + "Sessions"}, {}}).verdict,
            Verdict::kAllow);
  EXPECT_EQ(p.Evaluate("reader", {"dynamodb:PutItem", {kArn + "Sessions"}, {}}).verdict,
            Verdict::kImplicitDeny);
  auto d = p.Evaluate("reader", {"dynamodb:BatchGetItem", {kArn + "Sessions", kArn + "Other"}, {}});
  EXPECT_EQ(d.verdict, Verdict::kImplicitDeny);
  EXPECT_EQ(d.resource, kArn + "Other");
}

TEST(Policy, AttributeConditions) {
  Statement deny_ttl{false, {"dynamodb:PutItem", "dynamodb:UpdateItem"}, {"*"},
                     Statement::AttributeCondition::kAnyOf, {"ExpirationTime"}};
  PolicySet p;
  p.Set("app", {Plain(true, {"dynamodb:*"}, {"*"}), deny_ttl});
  using S = std::set<std::string>;
  EXPECT_EQ(p.Evaluate("app", {"dynamodb:PutItem", {kArn + "t"}, S{"pk", "v"}}).verdict,
            Verdict::kAllow);
  EXPECT_EQ(p.Evaluate("app", {"dynamodb:PutItem", {kArn + "t"}, S{"pk", "ExpirationTime"}}).verdict,
            Verdict::kExplicitDeny);
  // Unknown attributes: a Deny with an attribute condition applies (fail closed).
  EXPECT_EQ(p.Evaluate("app", {"dynamodb:UpdateItem", {kArn + "t"}, std::nullopt}).verdict,
            Verdict::kExplicitDeny);
  // ForAllValues as an allow-list.
  PolicySet q;
  q.Set("w", {{true, {"dynamodb:PutItem"}, {"*"}, Statement::AttributeCondition::kAllOf, {"pk", "v"}}});
  EXPECT_EQ(q.Evaluate("w", {"dynamodb:PutItem", {kArn + "t"}, S{"pk", "v"}}).verdict, Verdict::kAllow);
  EXPECT_EQ(q.Evaluate("w", {"dynamodb:PutItem", {kArn + "t"}, S{"pk", "x"}}).verdict,
            Verdict::kImplicitDeny);
  EXPECT_EQ(q.Evaluate("w", {"dynamodb:PutItem", {kArn + "t"}, std::nullopt}).verdict,
            Verdict::kImplicitDeny);
}

TEST(Policy, AccessesOfRequests) {
  auto a = api::AccessesOf("DynamoDB_20120810.UpdateItem",
                           R"({"TableName":"t","Key":{"pk":{"S":"a"}},
                               "UpdateExpression":"SET #e = :v, b.c = :v REMOVE z",
                               "ExpressionAttributeNames":{"#e":"ExpirationTime"},
                               "ExpressionAttributeValues":{":v":{"N":"1"}}})",
                           "us-east-1", "000000000000");
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].action, "dynamodb:UpdateItem");
  EXPECT_EQ(a[0].resources, std::vector<std::string>{kArn + "t"});
  ASSERT_TRUE(a[0].attributes);
  EXPECT_EQ(*a[0].attributes, (std::set<std::string>{"ExpirationTime", "b", "z"}));

  a = api::AccessesOf("DynamoDB_20120810.Query", R"({"TableName":"t","IndexName":"gsi"})",
                      "us-east-1", "000000000000");
  EXPECT_EQ(a[0].resources[0], kArn + "t/index/gsi");

  a = api::AccessesOf("DynamoDB_20120810.BatchWriteItem",
                      R"({"RequestItems":{"a":[{"PutRequest":{"Item":{"pk":{"S":"1"},"x":{"S":"2"}}}}],
                                          "b":[{"DeleteRequest":{"Key":{"pk":{"S":"1"}}}}]}})",
                      "us-east-1", "000000000000");
  EXPECT_EQ(a[0].resources.size(), 2u);
  EXPECT_EQ(*a[0].attributes, (std::set<std::string>{"pk", "x"}));

  a = api::AccessesOf("DynamoDB_20120810.TransactWriteItems",
                      R"({"TransactItems":[{"Put":{"TableName":"a","Item":{"pk":{"S":"1"}}}},
                                           {"Delete":{"TableName":"b","Key":{"pk":{"S":"1"}}}}]})",
                      "us-east-1", "000000000000");
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0].action, "dynamodb:PutItem");
  EXPECT_EQ(a[1].action, "dynamodb:DeleteItem");
  EXPECT_EQ(a[1].resources[0], kArn + "b");

  a = api::AccessesOf("DynamoDB_20120810.ListTables", "{}", "us-east-1", "000000000000");
  EXPECT_EQ(a[0].resources[0], "*");
}

TEST(Policy, PolicyFileParsing) {
  auto p = api::ParsePolicies(R"({"ops":[{"Effect":"Allow","Action":"dynamodb:*","Resource":"*"},
      {"Effect":"Deny","Action":["dynamodb:PutItem"],"Resource":["*"],
       "Condition":{"ForAnyValue:StringEquals":{"dynamodb:Attributes":["ttl"]}}}]})");
  ASSERT_TRUE(p.ok()) << p.error().message();
  EXPECT_TRUE(p->Restricts("ops"));
  EXPECT_FALSE(api::ParsePolicies(R"({"k":[{"Effect":"Maybe","Action":"x","Resource":"*"}]})").ok());
  EXPECT_FALSE(api::ParsePolicies(R"({"k":[{"Effect":"Allow","Resource":"*"}]})").ok());
  EXPECT_FALSE(api::ParsePolicies(
      R"({"k":[{"Effect":"Allow","Action":"x","Resource":"*","Condition":{"StringLike":{"aws:x":"y"}}}]})")
                   .ok());
}

}  // namespace
}  // namespace ttlstore::auth
