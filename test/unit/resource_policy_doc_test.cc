// The policy document of PutResourcePolicy and CreateTable's ResourcePolicy: what is read from
// it, what is refused and with which text, the 20 KB limit (before parsing) and the depth bound.
#include "api/resource_policy_doc.h"

#include <gtest/gtest.h>

#include <string>

namespace ttlstore::api {
namespace {

std::string Doc(const std::string& statements) {
  return R"({"Version":"2012-10-17","Statement":)" + statements + "}";
}

TEST(ResourcePolicyDoc, ReadsPrincipalsActionsResources) {
  auto st = ParseResourcePolicy(Doc(
      R"([{"Sid":"a","Effect":"Allow","Principal":"*","Action":"dynamodb:GetItem","Resource":"*"},
          {"Effect":"Deny","Principal":{"AWS":["arn:aws:iam::000000000000:user/B","000000000000"]},
           "Action":["dynamodb:PutItem","dynamodb:DeleteItem"],"Resource":["x","y"]},
          {"Effect":"Allow","Principal":{"Service":"redshift.amazonaws.com"},"Action":"*","Resource":"*"}])"));
  ASSERT_TRUE(st) << st.error().message();
  ASSERT_EQ(st->size(), 3u);
  EXPECT_TRUE((*st)[0].any_principal);
  EXPECT_TRUE((*st)[0].statement.allow);
  EXPECT_FALSE((*st)[1].statement.allow);
  EXPECT_EQ((*st)[1].principals.size(), 2u);
  EXPECT_EQ((*st)[1].statement.actions.size(), 2u);
  EXPECT_FALSE((*st)[2].any_principal);  // a service principal names no caller
  EXPECT_TRUE((*st)[2].principals.empty());
}

TEST(ResourcePolicyDoc, SingleStatementObjectAndNoVersion) {
  auto st = ParseResourcePolicy(
      R"({"Statement":{"Effect":"Allow","Principal":{"AWS":"*"},"Action":"dynamodb:*","Resource":"*"}})");
  ASSERT_TRUE(st) << st.error().message();
  ASSERT_EQ(st->size(), 1u);
  EXPECT_TRUE((*st)[0].any_principal);
}

TEST(ResourcePolicyDoc, ConditionsKnownAndUnknown) {
  auto st = ParseResourcePolicy(Doc(
      R"([{"Effect":"Deny","Principal":"*","Action":"dynamodb:PutItem","Resource":"*",
           "Condition":{"ForAnyValue:StringEquals":{"dynamodb:Attributes":["ttl"]}}},
          {"Effect":"Allow","Principal":"*","Action":"*","Resource":"*",
           "Condition":{"IpAddress":{"aws:SourceIp":"10.0.0.0/8"}}}])"));
  ASSERT_TRUE(st) << st.error().message();
  EXPECT_EQ((*st)[0].statement.condition, auth::Statement::AttributeCondition::kAnyOf);
  EXPECT_FALSE((*st)[0].unsupported_condition);
  EXPECT_TRUE((*st)[1].unsupported_condition);
}

TEST(ResourcePolicyDoc, RefusesMalformedDocuments) {
  const char* bad[] = {
      "",
      "not json",
      "[]",
      R"({"Version":"2012-10-17"})",
      R"({"Version":"2099-01-01","Statement":[]})",
      R"({"Statement":[]})",
      R"({"Statement":"x"})",
      R"({"Statement":[1]})",
      R"({"Statement":[{"Effect":"Maybe","Principal":"*","Action":"*","Resource":"*"}]})",
      R"({"Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]})",
      R"({"Statement":[{"Effect":"Allow","Principal":"someone","Action":"*","Resource":"*"}]})",
      R"({"Statement":[{"Effect":"Allow","Principal":"*","Resource":"*"}]})",
      R"({"Statement":[{"Effect":"Allow","Principal":"*","Action":"*"}]})",
      R"({"Statement":[{"Effect":"Allow","Principal":"*","Action":[],"Resource":"*"}]})",
      R"({"Statement":[{"Effect":"Allow","Principal":"*","Action":[1],"Resource":"*"}]})",
      R"({"Statement":[{"Effect":"Allow","NotPrincipal":"*","Action":"*","Resource":"*"}]})",
      R"({"Statement":[{"Effect":"Allow","Principal":"*","NotAction":"*","Resource":"*"}]})",
      R"({"Statement":[{"Effect":"Allow","Principal":"*","Action":"*","Resource":"*","Condition":1}]})",
  };
  for (const char* doc : bad) {
    auto st = ParseResourcePolicy(doc);
    ASSERT_FALSE(st) << doc;
    EXPECT_EQ(st.error().code(), ErrorCode::kValidation) << doc;
    EXPECT_EQ(st.error().message().rfind("One or more parameter values were invalid: ", 0), 0u)
        << st.error().message();
  }
}

TEST(ResourcePolicyDoc, SizeLimitCountsWhitespaceAndComesBeforeParsing) {
  std::string ok = Doc(R"([{"Effect":"Allow","Principal":"*","Action":"*","Resource":"*"}])");
  std::string padded = ok;
  padded.insert(1, kMaxResourcePolicyBytes - ok.size(), ' ');
  ASSERT_EQ(padded.size(), kMaxResourcePolicyBytes);
  EXPECT_TRUE(ParseResourcePolicy(padded));
  padded.insert(1, " ");
  auto st = ParseResourcePolicy(padded);
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message().find("20 KB"), std::string::npos);
  // Far past the limit, and not JSON at all: refused for its size alone.
  EXPECT_NE(ParseResourcePolicy(std::string(1 << 20, '[')).error().message().find("20 KB"),
            std::string::npos);
}

TEST(ResourcePolicyDoc, DepthIsBounded) {
  std::string deep(5000, '[');
  deep = R"({"Statement":)" + deep;
  auto st = ParseResourcePolicy(deep);
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message().find("nested too deeply"), std::string::npos);
  // Deeper than a policy can be, yet valid JSON: also refused.
  std::string nested = R"({"Statement":[{"Effect":"Allow","Principal":"*","Action":"*",)"
                       R"("Resource":"*","Sid":[[[[[[[["x"]]]]]]]]}]})";
  EXPECT_FALSE(ParseResourcePolicy(nested));
}

}  // namespace
}  // namespace ttlstore::api
