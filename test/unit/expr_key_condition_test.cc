// KeyConditionExpression parsing against a key schema, sort-key matching, and CompareScalars.
#include <gtest/gtest.h>

#include "expr/key_condition.h"

namespace ttlstore::expr {
namespace {

using model::AttributeValue;
using model::ValueType;
using SortOp = KeyCondition::SortOp;

AttributeValue S(std::string s) { return AttributeValue::String(std::move(s)); }
AttributeValue N(std::string n) { return AttributeValue::Num(std::move(n)); }
AttributeValue B(std::string b) { return AttributeValue::Binary(std::move(b)); }

model::KeySchema Composite(ValueType sort_type = ValueType::kS) {
  model::KeySchema k;
  k.hash = {"pk", ValueType::kS};
  k.range = model::KeyElement{"sk", sort_type};
  return k;
}

model::KeySchema HashOnly() {
  model::KeySchema k;
  k.hash = {"pk", ValueType::kS};
  return k;
}

const std::map<std::string, AttributeValue> kValues = {
    {":pk", S("p")}, {":s", S("m")}, {":lo", S("a")},   {":hi", S("z")},
    {":n", N("5")},  {":b", B("x")}, {":other", S("o")}};

Result<KeyCondition> Parse(const std::string& text, const model::KeySchema& schema = Composite(),
                           std::map<std::string, AttributeValue> values = kValues,
                           std::map<std::string, std::string> names = {{"#pk", "pk"},
                                                                       {"#sk", "sk"}}) {
  Placeholders ph;
  ph.values = std::move(values);
  ph.names = std::move(names);
  return KeyCondition::Parse(text, schema, ph);
}

std::string ErrorOf(const std::string& text, const model::KeySchema& schema = Composite(),
                    std::map<std::string, AttributeValue> values = kValues) {
  auto k = Parse(text, schema, std::move(values));
  return k.ok() ? "" : k.error().message();
}

TEST(ExprKeyCondition, PartitionKeyAlone) {
  auto k = Parse("pk = :pk");
  ASSERT_TRUE(k.ok()) << k.error().message();
  EXPECT_EQ(k->partition, S("p"));
  EXPECT_EQ(k->sort_op, SortOp::kNone);
  auto h = Parse("#pk = :pk", HashOnly());
  ASSERT_TRUE(h.ok()) << h.error().message();
  EXPECT_EQ(h->partition, S("p"));
}

TEST(ExprKeyCondition, EverySortKeyOperator) {
  struct Case {
    const char* text;
    SortOp op;
  };
  for (Case c : {Case{"pk = :pk AND sk = :s", SortOp::kEq},
                 {"pk = :pk AND sk < :s", SortOp::kLt},
                 {"pk = :pk AND sk <= :s", SortOp::kLe},
                 {"pk = :pk AND sk > :s", SortOp::kGt},
                 {"pk = :pk AND sk >= :s", SortOp::kGe},
                 {"pk = :pk AND begins_with(sk, :s)", SortOp::kBeginsWith}}) {
    auto k = Parse(c.text);
    ASSERT_TRUE(k.ok()) << c.text << ": " << k.error().message();
    EXPECT_EQ(k->sort_op, c.op) << c.text;
    EXPECT_EQ(k->sort1, S("m")) << c.text;
  }
}

TEST(ExprKeyCondition, BetweenKeepsBothBounds) {
  auto k = Parse("pk = :pk AND sk BETWEEN :lo AND :hi");
  ASSERT_TRUE(k.ok()) << k.error().message();
  EXPECT_EQ(k->sort_op, SortOp::kBetween);
  EXPECT_EQ(k->sort1, S("a"));
  EXPECT_EQ(k->sort2, S("z"));
}

TEST(ExprKeyCondition, ConditionsMayComeInAnyOrderWithTheValueOnEitherSide) {
  auto k = Parse("sk > :s AND :pk = pk");
  ASSERT_TRUE(k.ok()) << k.error().message();
  EXPECT_EQ(k->partition, S("p"));
  EXPECT_EQ(k->sort_op, SortOp::kGt);
  auto flipped = Parse("pk = :pk AND :s < sk");
  ASSERT_TRUE(flipped.ok());
  EXPECT_EQ(flipped->sort_op, SortOp::kGt);
  auto flipped_le = Parse("pk = :pk AND :s >= sk");
  ASSERT_TRUE(flipped_le.ok());
  EXPECT_EQ(flipped_le->sort_op, SortOp::kLe);
}

TEST(ExprKeyCondition, AcceptsParenthesesThatAreNotRedundant) {
  for (const char* text :
       {"(#pk = :pk) AND (#sk = :s)", "(#pk = :pk AND #sk = :s)", "(#pk = :pk AND (#sk = :s))"}) {
    auto k = Parse(text);
    ASSERT_TRUE(k.ok()) << text << ": " << k.error().message();
    EXPECT_EQ(k->sort_op, SortOp::kEq);
  }
  EXPECT_EQ(ErrorOf("((pk = :pk))"),
            "Invalid KeyConditionExpression: The expression has redundant parentheses;");
}

TEST(ExprKeyCondition, ExpressionLevelErrorsCarryTheKeyConditionPrefix) {
  EXPECT_EQ(ErrorOf(""), "Invalid KeyConditionExpression: The expression can not be empty;");
  EXPECT_EQ(ErrorOf("pk = "),
            "Invalid KeyConditionExpression: Syntax error; token: \"<EOF>\", near: \"= \"");
  EXPECT_EQ(ErrorOf("pk = :nope"),
            "Invalid KeyConditionExpression: An expression attribute value used in expression "
            "is not defined; attribute value: :nope");
  EXPECT_EQ(ErrorOf("pk = :pk AND sk BETWEEN :hi AND :lo"),
            "Invalid KeyConditionExpression: The BETWEEN operator requires upper bound to be "
            "greater than or equal to lower bound; lower bound operand: AttributeValue: {S:z}, "
            "upper bound operand: AttributeValue: {S:a}");
  EXPECT_EQ(ErrorOf("attribute_type(pk, :n)"),
            "Invalid KeyConditionExpression: Incorrect operand type for operator or function; "
            "operator or function: attribute_type, operand type: N");
}

TEST(ExprKeyCondition, RejectsOperatorsAKeyConditionCannotUse) {
  const std::string m = "Invalid operator used in KeyConditionExpression: ";
  EXPECT_EQ(ErrorOf("pk = :pk OR sk = :s"), m + "OR");
  EXPECT_EQ(ErrorOf("NOT pk = :pk"), m + "NOT");
  EXPECT_EQ(ErrorOf("pk IN (:pk, :s)"), m + "IN");
  EXPECT_EQ(ErrorOf("pk <> :pk"), m + "<>");
  EXPECT_EQ(ErrorOf("pk = :pk AND attribute_exists(sk)"), m + "attribute_exists");
  EXPECT_EQ(ErrorOf("attribute_not_exists(pk)"), m + "attribute_not_exists");
  EXPECT_EQ(ErrorOf("pk = :pk AND contains(sk, :s)"), m + "contains");
}

TEST(ExprKeyCondition, RejectsConditionsThatAreNotOnOneTopLevelKeyAttribute) {
  EXPECT_EQ(ErrorOf("pk = :pk AND size(sk) > :n"),
            "KeyConditionExpressions cannot contain nested operations");
  EXPECT_EQ(ErrorOf("pk = :pk AND sk = pk"),
            "Invalid condition in KeyConditionExpression: Multiple attribute names used in one "
            "condition");
  EXPECT_EQ(ErrorOf("pk.a = :pk"),
            "KeyConditionExpressions cannot have conditions on nested attributes");
  EXPECT_EQ(ErrorOf("pk[0] = :pk"),
            "KeyConditionExpressions cannot have conditions on nested attributes");
  EXPECT_EQ(ErrorOf(":pk = :s"),
            "Invalid condition in KeyConditionExpression: No key attribute specified");
  EXPECT_EQ(ErrorOf("pk = :pk AND pk = :s"),
            "Invalid KeyConditionExpression: KeyConditionExpressions must only contain one "
            "condition per key");
  EXPECT_EQ(ErrorOf("begins_with(:s, sk) AND pk = :pk"),
            "Invalid condition in KeyConditionExpression: begins_with operator must have the key "
            "attribute as its first operand");
  EXPECT_EQ(ErrorOf(":s BETWEEN sk AND :hi AND pk = :pk"),
            "Invalid condition in KeyConditionExpression: BETWEEN operator must have the key "
            "attribute as its first operand");
}

TEST(ExprKeyCondition, RejectsMoreThanTwoConditions) {
  // The service's words for an expression (a conformance suite's capture); the legacy
  // KeyConditions map keeps "Conditions can be of length 1 or 2 only" (test_legacy_params).
  EXPECT_EQ(ErrorOf("pk = :pk AND sk = :s AND x = :other"),
            "The number of query conditions (3) exceeds the number of key attributes defined in "
            "the schema (2)");
}

TEST(ExprKeyCondition, ThePartitionKeyMustBeThere) {
  EXPECT_EQ(ErrorOf("sk = :s"), "Query condition missed key schema element: pk");
  EXPECT_EQ(ErrorOf("attr1 = :s"), "Query condition missed key schema element: pk");
  EXPECT_EQ(ErrorOf("a = :s AND b = :s"), "Query condition missed key schema element: pk");
}

TEST(ExprKeyCondition, ASecondConditionMustBeOnTheSortKey) {
  EXPECT_EQ(ErrorOf("pk = :pk AND x = :other"), "Query condition missed key schema element: sk");
  EXPECT_EQ(ErrorOf("pk = :pk AND sk = :s", HashOnly()), "Query key condition not supported");
}

TEST(ExprKeyCondition, ThePartitionKeyNeedsEquality) {
  EXPECT_EQ(ErrorOf("pk < :pk"), "Query key condition not supported");
  EXPECT_EQ(ErrorOf("begins_with(pk, :pk)", HashOnly()), "Query key condition not supported");
  EXPECT_EQ(ErrorOf("pk BETWEEN :lo AND :hi AND sk = :s"), "Query key condition not supported");
}

TEST(ExprKeyCondition, ValuesMustHaveTheKeyType) {
  const std::string m =
      "One or more parameter values were invalid: Condition parameter type does not match schema "
      "type";
  EXPECT_EQ(ErrorOf("pk = :n"), m);
  EXPECT_EQ(ErrorOf("pk = :pk AND sk > :n"), m);
  EXPECT_EQ(ErrorOf("pk = :pk AND sk = :s", Composite(ValueType::kN)), m);
  EXPECT_EQ(ErrorOf(":n > pk", HashOnly()), m);  // the type is checked before the operator
  EXPECT_TRUE(Parse("pk = :pk AND sk = :n", Composite(ValueType::kN)).ok());
  EXPECT_TRUE(Parse("pk = :pk AND begins_with(sk, :b)", Composite(ValueType::kB)).ok());
}

TEST(ExprKeyCondition, BeginsWithOnANumberKeyIsRefused) {
  EXPECT_EQ(ErrorOf("pk = :pk AND begins_with(sk, :n)", Composite(ValueType::kN)),
            "Invalid KeyConditionExpression: Incorrect operand type for operator or function; "
            "operator or function: begins_with, operand type: N");
}

TEST(ExprKeyCondition, RecordsTheUsedPlaceholders) {
  Placeholders ph;
  ph.values = kValues;
  ph.names = {{"#pk", "pk"}, {"#unused", "x"}};
  auto k = KeyCondition::Parse("#pk = :pk AND sk BETWEEN :lo AND :hi", Composite(), ph);
  ASSERT_TRUE(k.ok());
  EXPECT_EQ(ph.used_names, std::set<std::string>{"#pk"});
  EXPECT_EQ(ph.used_values, (std::set<std::string>{":pk", ":lo", ":hi"}));
}

TEST(ExprKeyCondition, AcceptsTheLegacyKeyConditionsForm) {
  auto k = Parse("#_l0 = :_l1 AND begins_with(#_l2, :_l3)", Composite(),
                 {{":_l1", S("p")}, {":_l3", S("ab")}}, {{"#_l0", "pk"}, {"#_l2", "sk"}});
  ASSERT_TRUE(k.ok()) << k.error().message();
  EXPECT_EQ(k->sort_op, SortOp::kBeginsWith);
}

KeyCondition Sort(SortOp op, AttributeValue a, AttributeValue b = {}) {
  KeyCondition k;
  k.sort_op = op;
  k.sort1 = std::move(a);
  k.sort2 = std::move(b);
  return k;
}

TEST(ExprKeyCondition, MatchesSortAppliesEachOperator) {
  EXPECT_TRUE(Sort(SortOp::kNone, {}).MatchesSort(S("anything")));
  EXPECT_TRUE(Sort(SortOp::kEq, S("m")).MatchesSort(S("m")));
  EXPECT_FALSE(Sort(SortOp::kEq, S("m")).MatchesSort(S("n")));
  EXPECT_TRUE(Sort(SortOp::kLt, S("m")).MatchesSort(S("l")));
  EXPECT_FALSE(Sort(SortOp::kLt, S("m")).MatchesSort(S("m")));
  EXPECT_TRUE(Sort(SortOp::kLe, S("m")).MatchesSort(S("m")));
  EXPECT_TRUE(Sort(SortOp::kGt, S("m")).MatchesSort(S("ma")));
  EXPECT_FALSE(Sort(SortOp::kGt, S("m")).MatchesSort(S("m")));
  EXPECT_TRUE(Sort(SortOp::kGe, S("m")).MatchesSort(S("m")));
  EXPECT_TRUE(Sort(SortOp::kBetween, S("b"), S("d")).MatchesSort(S("b")));
  EXPECT_TRUE(Sort(SortOp::kBetween, S("b"), S("d")).MatchesSort(S("d")));
  EXPECT_FALSE(Sort(SortOp::kBetween, S("b"), S("d")).MatchesSort(S("da")));
  EXPECT_TRUE(Sort(SortOp::kBeginsWith, S("ab")).MatchesSort(S("abc")));
  EXPECT_FALSE(Sort(SortOp::kBeginsWith, S("ab")).MatchesSort(S("a")));
  EXPECT_TRUE(Sort(SortOp::kBeginsWith, B("\x01")).MatchesSort(B("\x01\xff")));
}

TEST(ExprKeyCondition, MatchesSortOrdersNumbersByValue) {
  EXPECT_TRUE(Sort(SortOp::kGt, N("9")).MatchesSort(N("10")));
  EXPECT_TRUE(Sort(SortOp::kBetween, N("-1"), N("1")).MatchesSort(N("0")));
  EXPECT_FALSE(Sort(SortOp::kGe, N("0.5")).MatchesSort(N("-5")));
  EXPECT_FALSE(Sort(SortOp::kEq, N("1")).MatchesSort(S("1")));
}

TEST(ExprKeyCondition, CompareScalarsOrdersNumbersNumerically) {
  EXPECT_LT(CompareScalars(N("9"), N("10")), 0);
  EXPECT_GT(CompareScalars(N("-1"), N("-2")), 0);
  EXPECT_EQ(CompareScalars(N("0.5"), N("0.5")), 0);
  EXPECT_LT(CompareScalars(N("-0.001"), N("0")), 0);
  EXPECT_LT(CompareScalars(N("99.5"), N("100")), 0);
}

TEST(ExprKeyCondition, CompareScalarsOrdersStringsAndBinaryByUnsignedBytes) {
  EXPECT_LT(CompareScalars(S("a"), S("b")), 0);
  EXPECT_LT(CompareScalars(S("ab"), S("abc")), 0);
  EXPECT_GT(CompareScalars(S("\xC3\xA9"), S("z")), 0);  // é is above ASCII
  EXPECT_GT(CompareScalars(B("\x80"), B("\x7f")), 0);
  EXPECT_EQ(CompareScalars(B(std::string("\0\x01", 2)), B(std::string("\0\x01", 2))), 0);
  EXPECT_LT(CompareScalars(B(std::string("\0", 1)), B(std::string("\0\0", 2))), 0);
}

}  // namespace
}  // namespace ttlstore::expr
