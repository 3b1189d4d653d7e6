#include "expr/projection.h"

#include <gtest/gtest.h>

namespace ttlstore::expr {
namespace {

using model::AttributeValue;

Result<Projection> Parse(const std::string& text, std::map<std::string, std::string> names = {}) {
  std::set<std::string> used;
  return Projection::Parse(text, names, &used);
}

model::Item Doc() {
  model::Item item;
  item["a"] = AttributeValue::OfMap(
      {{"b", AttributeValue::OfList({AttributeValue::Num("0"), AttributeValue::Num("1"),
                                     AttributeValue::OfMap({{"c", AttributeValue::String("x")},
                                                            {"d", AttributeValue::String("y")}})})},
       {"e", AttributeValue::Bool(true)}});
  item["top"] = AttributeValue::String("t");
  return item;
}

TEST(Projection, ParsesNestedPathsAndPlaceholders) {
  std::set<std::string> used;
  auto p = Projection::Parse("a.b[2].c, #t", {{"#t", "top"}}, &used);
  ASSERT_TRUE(p.ok());
  ASSERT_EQ(p->paths().size(), 2u);
  EXPECT_EQ(PathToString(p->paths()[0]), "[a, b, [2], c]");
  EXPECT_EQ(PathToString(p->paths()[1]), "[top]");
  EXPECT_EQ(used, std::set<std::string>{"#t"});
}

TEST(Projection, AppliesNestedPathsKeepingOnlyWhatWasAsked) {
  auto p = Parse("a.b[2].c, a.b[0], top, absent, a.nope.x");
  ASSERT_TRUE(p.ok()) << p.error().message();
  model::Item out = p->Apply(Doc());
  model::Item expected;
  expected["a"] = AttributeValue::OfMap(
      {{"b", AttributeValue::OfList({AttributeValue::Num("0"),
                                     AttributeValue::OfMap({{"c", AttributeValue::String("x")}})})}});
  expected["top"] = AttributeValue::String("t");
  EXPECT_EQ(out, expected);
}

TEST(Projection, IndexPastTheEndOrOnANonListSelectsNothing) {
  auto p = Parse("a.b[9], top[0]");
  ASSERT_TRUE(p.ok()) << p.error().message();
  EXPECT_TRUE(p->Apply(Doc()).empty());
}

TEST(Projection, RejectsReservedWordsUsedBare) {
  auto p = Parse("name");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().message(),
            "Invalid ProjectionExpression: Attribute name is a reserved keyword; reserved "
            "keyword: name");
  EXPECT_TRUE(Parse("#n", {{"#n", "name"}}).ok());
}

TEST(Projection, RejectsUndefinedPlaceholders) {
  auto p = Parse("#x");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().message(),
            "Invalid ProjectionExpression: An expression attribute name used in the document "
            "path is not defined; attribute name: #x");
}

TEST(Projection, RejectsSyntaxErrorsQuotingTheToken) {
  auto p = Parse("a, !!");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().message(),
            "Invalid ProjectionExpression: Syntax error; token: \"!\", near: \", !!\"");
  auto first = Parse("!!! INVALID !!!");
  ASSERT_FALSE(first.ok());
  EXPECT_EQ(first.error().message(),
            "Invalid ProjectionExpression: Syntax error; token: \"!\", near: \"!!\"");
  auto eof = Parse("a.");
  ASSERT_FALSE(eof.ok());
  EXPECT_EQ(eof.error().message(),
            "Invalid ProjectionExpression: Syntax error; token: \"<EOF>\", near: \".\"");
  EXPECT_FALSE(Parse("").ok());
  EXPECT_FALSE(Parse("a[x]").ok());
  EXPECT_FALSE(Parse("a,,b").ok());
}

TEST(Projection, RejectsOverlappingAndConflictingPaths) {
  auto overlap = Parse("a.b, a");
  ASSERT_FALSE(overlap.ok());
  EXPECT_EQ(overlap.error().message(),
            "Invalid ProjectionExpression: Two document paths overlap with each other; must "
            "remove or rewrite one of these paths; path one: [a, b], path two: [a]");
  auto conflict = Parse("a.b, a[1]");
  ASSERT_FALSE(conflict.ok());
  EXPECT_EQ(conflict.error().message(),
            "Invalid ProjectionExpression: Two document paths conflict with each other; must "
            "remove or rewrite one of these paths; path one: [a, b], path two: [a, [1]]");
  EXPECT_FALSE(Parse("a, a").ok());
}

TEST(Projection, RejectsExpressionsLongerThan4KB) {
  std::string text = "a";
  while (text.size() <= kMaxExpressionBytes) text += ", a";
  EXPECT_FALSE(Parse(text).ok());
}

TEST(Projection, KnowsTheReservedWordList) {
  EXPECT_TRUE(IsReservedWord("TTL"));
  EXPECT_TRUE(IsReservedWord("status"));
  EXPECT_FALSE(IsReservedWord("UserName"));
}

}  // namespace
}  // namespace ttlstore::expr
