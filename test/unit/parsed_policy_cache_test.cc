// The parsed-policy cache behind request authorization: a document is parsed once, a changed
// document is a new entry, a document that no longer parses counts as no statements, and the
// cache stays within its capacity.
#include "api/parsed_policy_cache.h"

#include <gtest/gtest.h>

#include <string>

namespace ttlstore::api {
namespace {

std::string Doc(const std::string& action) {
  return R"({"Version":"2012-10-17","Statement":[{"Effect":"Deny","Principal":"*","Action":")" +
         action + R"(","Resource":"*"}]})";
}

TEST(ParsedPolicyCache, ParsesEachDocumentOnce) {
  ParsedPolicyCache cache;
  auto a = cache.Get(Doc("dynamodb:GetItem"));
  auto b = cache.Get(Doc("dynamodb:GetItem"));
  ASSERT_EQ(a->size(), 1u);
  EXPECT_EQ(a.get(), b.get());  // the same parsed statements, not a second parse
  auto c = cache.Get(Doc("dynamodb:PutItem"));
  EXPECT_NE(a.get(), c.get());
  EXPECT_EQ(c->front().statement.actions.front(), "dynamodb:PutItem");
  EXPECT_EQ(cache.size(), 2u);
}

TEST(ParsedPolicyCache, UnparsableDocumentHasNoStatements) {
  ParsedPolicyCache cache;
  EXPECT_TRUE(cache.Get("{not json")->empty());
}

TEST(ParsedPolicyCache, StaysWithinCapacity) {
  ParsedPolicyCache cache(4);
  auto first = cache.Get(Doc("dynamodb:Action0"));
  for (int i = 1; i < 10; ++i) cache.Get(Doc("dynamodb:Action" + std::to_string(i)));
  EXPECT_EQ(cache.size(), 4u);
  // An evicted document is parsed again, and a caller's old pointer stays valid.
  EXPECT_EQ(first->size(), 1u);
  EXPECT_NE(cache.Get(Doc("dynamodb:Action0")).get(), first.get());
}

}  // namespace
}  // namespace ttlstore::api
