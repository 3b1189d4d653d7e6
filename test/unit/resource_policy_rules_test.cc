// What a resource-based policy may say about the resource it is attached to: the actions that
// apply to a table or a stream, and Block Public Access (api/resource_policy_rules.h).
#include "api/resource_policy_rules.h"

#include <gtest/gtest.h>

#include <string>

#include "api/resource_policy_doc.h"

namespace ttlstore::api {
namespace {

Status Check(const std::string& statements, PolicyResourceKind kind) {
  auto st = ParseResourcePolicy(R"({"Version":"2012-10-17","Statement":)" + statements + "}");
  if (!st) return st.error();
  return CheckPolicyForResource(*st, kind);
}

TEST(ResourcePolicyRules, ActionsByResourceKind) {
  using K = PolicyResourceKind;
  EXPECT_TRUE(ActionAppliesTo("dynamodb:GetItem", K::kTable));
  EXPECT_TRUE(ActionAppliesTo("DYNAMODB:getitem", K::kTable));
  EXPECT_TRUE(ActionAppliesTo("dynamodb:DescribeTable", K::kTable));
  EXPECT_TRUE(ActionAppliesTo("dynamodb:PutResourcePolicy", K::kTable));
  EXPECT_FALSE(ActionAppliesTo("dynamodb:GetRecords", K::kTable));
  EXPECT_FALSE(ActionAppliesTo("dynamodb:ListStreams", K::kTable));
  EXPECT_FALSE(ActionAppliesTo("dynamodb:ListStreams", K::kStream));
  EXPECT_TRUE(ActionAppliesTo("dynamodb:GetShardIterator", K::kStream));
  EXPECT_TRUE(ActionAppliesTo("dynamodb:GetResourcePolicy", K::kStream));
  EXPECT_FALSE(ActionAppliesTo("dynamodb:GetItem", K::kStream));
  EXPECT_FALSE(ActionAppliesTo("dynamodb:NoSuchAction", K::kTable));
  EXPECT_FALSE(ActionAppliesTo("s3:GetObject", K::kTable));
  EXPECT_FALSE(ActionAppliesTo("dynamodb:", K::kTable));
  // A wildcard is valid when it names at least one action of the kind.
  EXPECT_TRUE(ActionAppliesTo("*", K::kStream));
  EXPECT_TRUE(ActionAppliesTo("dynamodb:*", K::kStream));
  EXPECT_TRUE(ActionAppliesTo("dynamodb:List*", K::kTable));  // ListTagsOfResource
  EXPECT_FALSE(ActionAppliesTo("dynamodb:List*", K::kStream));
  EXPECT_TRUE(ActionAppliesTo("dynamodb:Get?ecords", K::kStream));
}

TEST(ResourcePolicyRules, InvalidActionsListedOnceInOrder) {
  Status s = Check(
      R"([{"Effect":"Deny","Principal":"*","Action":["dynamodb:GetRecords","dynamodb:GetItem","dynamodb:ListStreams"],"Resource":"*"},
          {"Effect":"Deny","Principal":"*","Action":"dynamodb:GetRecords","Resource":"*"}])",
      PolicyResourceKind::kTable);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message(),
            "One or more parameter values were invalid: Invalid policy document: The following "
            "action names are invalid: \"dynamodb:GetRecords\", \"dynamodb:ListStreams\"");
}

TEST(ResourcePolicyRules, BlockPublicAccess) {
  using K = PolicyResourceKind;
  const std::string allow_all =
      R"({"Effect":"Allow","Principal":"*","Action":"dynamodb:GetItem","Resource":"*")";
  EXPECT_FALSE(Check(allow_all + "}", K::kTable).ok());
  EXPECT_FALSE(Check(R"({"Effect":"Allow","Principal":{"AWS":"*"},"Action":"dynamodb:GetItem","Resource":"*"})",
                     K::kTable).ok());
  // Narrowed by a trusted key, in any case; a wildcard value narrows nothing; an untrusted key
  // (dynamodb:Attributes, aws:SourceIp) does not count.
  EXPECT_TRUE(Check(allow_all + R"(,"Condition":{"StringEquals":{"AWS:PrincipalAccount":"000000000000"}}})",
                    K::kTable).ok());
  EXPECT_TRUE(Check(allow_all + R"(,"Condition":{"StringEquals":{"aws:SourceVpce":"vpce-1"}}})",
                    K::kTable).ok());
  EXPECT_FALSE(Check(allow_all + R"(,"Condition":{"StringLike":{"aws:PrincipalArn":"*"}}})",
                     K::kTable).ok());
  EXPECT_FALSE(Check(allow_all + R"(,"Condition":{"ForAllValues:StringEquals":{"dynamodb:Attributes":["a"]}}})",
                     K::kTable).ok());
  // A Deny to everyone, and an Allow to named principals, are not public.
  EXPECT_TRUE(Check(R"({"Effect":"Deny","Principal":"*","Action":"dynamodb:GetItem","Resource":"*"})",
                    K::kTable).ok());
  EXPECT_TRUE(Check(R"({"Effect":"Allow","Principal":{"AWS":"111122223333"},"Action":"dynamodb:*","Resource":"*"})",
                    K::kTable).ok());
}

TEST(ResourcePolicyRules, ServicePrincipals) {
  auto bad = ParseResourcePolicy(
      R"({"Statement":{"Effect":"Allow","Principal":{"Service":["redshift.amazonaws.com","sns.amazonaws.com"]},"Action":"dynamodb:Scan","Resource":"*"}})");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message(),
            "One or more parameter values were invalid: Invalid policy document: Policy contains "
            "invalid service principal");
}

}  // namespace
}  // namespace ttlstore::api
