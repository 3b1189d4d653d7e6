// Evaluation of conditions against items: every comparator, function and type rule.
#include <gtest/gtest.h>

#include "expr/condition.h"

namespace ttlstore::expr {
namespace {

using model::AttributeValue;
using model::ValueType;

AttributeValue S(std::string s) { return AttributeValue::String(std::move(s)); }
AttributeValue N(std::string n) { return AttributeValue::Num(std::move(n)); }
AttributeValue B(std::string b) { return AttributeValue::Binary(std::move(b)); }
AttributeValue L(model::List l) { return AttributeValue::OfList(std::move(l)); }
AttributeValue M(model::Map m) { return AttributeValue::OfMap(std::move(m)); }
AttributeValue Set(ValueType t, std::vector<std::string> m) {
  return AttributeValue::Set(t, std::move(m));
}

model::Item Doc() {
  return {
      {"pk", S("p")},
      {"n", N("10")},
      {"m", N("-2.5")},
      {"s", S("banana")},
      {"b", B(std::string("\x01\x02\x03", 3))},
      {"hi", B("\x80")},
      {"flag", AttributeValue::Bool(true)},
      {"nothing", AttributeValue::Null()},
      {"tags", Set(ValueType::kSS, {"red", "green"})},
      {"nums", Set(ValueType::kNS, {"1", "5"})},
      {"bins", Set(ValueType::kBS, {"\x01", "\x02"})},
      {"letters", L({S("a"), S("b"), N("3")})},
      {"info", M({{"nested", M({{"deep", S("x")}})},
                  {"arr", L({M({{"v", N("1")}}), M({{"v", N("2")}})})}})},
      {"dotted.name", S("yes")},
      {"emoji", S("\xF0\x9F\x98\x80")},
      {"accent", S("\xC3\xA9t\xC3\xA9")},
      {"twin", S("banana")},
  };
}

// Parses `text` with the given :values (and names) and evaluates it against `item`.
bool Holds(const std::string& text, std::map<std::string, AttributeValue> values = {},
           std::map<std::string, std::string> names = {}, const model::Item& item = Doc()) {
  Placeholders ph;
  ph.values = std::move(values);
  ph.names = std::move(names);
  auto c = Condition::Parse(text, "ConditionExpression", ph);
  EXPECT_TRUE(c.ok()) << text << ": " << (c.ok() ? "" : c.error().message());
  return c.ok() && c->Evaluate(item);
}

TEST(ExprCondition, ComparesNumbersByValueNotText) {
  EXPECT_TRUE(Holds("n > :v", {{":v", N("9")}}));
  EXPECT_TRUE(Holds("n < :v", {{":v", N("100")}}));
  EXPECT_TRUE(Holds("n = :v", {{":v", N("10")}}));
  EXPECT_TRUE(Holds("n >= :v AND n <= :v", {{":v", N("10")}}));
  EXPECT_TRUE(Holds("m < :v", {{":v", N("-2.4")}}));
  EXPECT_FALSE(Holds("m > :v", {{":v", N("-2")}}));
}

TEST(ExprCondition, ComparesStringsByUtf8Bytes) {
  EXPECT_TRUE(Holds("s > :v", {{":v", S("apple")}}));
  EXPECT_TRUE(Holds("s < :v", {{":v", S("banana_")}}));
  EXPECT_TRUE(Holds("s <= :v", {{":v", S("banana")}}));
  // U+1F600 (F0 ...) sorts after U+FFFD (EF ...) in UTF-8, though not in UTF-16.
  EXPECT_TRUE(Holds("emoji > :v", {{":v", S("\xEF\xBF\xBD")}}));
}

TEST(ExprCondition, ComparesBinaryAsUnsignedBytes) {
  EXPECT_TRUE(Holds("hi > :v", {{":v", B("\x7f")}}));
  EXPECT_TRUE(Holds("b < :v", {{":v", B("\x01\x03")}}));
}

TEST(ExprCondition, NotEqualsOnAMissingAttributeIsTrue) {
  EXPECT_TRUE(Holds("absent <> :v", {{":v", N("1")}}));
  EXPECT_FALSE(Holds("absent = :v", {{":v", N("1")}}));
  EXPECT_FALSE(Holds("absent < :v", {{":v", N("1")}}));
  EXPECT_FALSE(Holds("absent >= :v", {{":v", N("1")}}));
  EXPECT_TRUE(Holds("absent <> other_absent"));
}

TEST(ExprCondition, MissingAttributesMakeBetweenAndInFalse) {
  EXPECT_FALSE(Holds("absent BETWEEN :a AND :b", {{":a", N("1")}, {":b", N("2")}}));
  EXPECT_FALSE(Holds("absent IN (:a, :b)", {{":a", N("1")}, {":b", N("2")}}));
  EXPECT_FALSE(Holds("n BETWEEN absent AND :b", {{":b", N("20")}}));
}

TEST(ExprCondition, ValuesOfDifferentTypesAreUnequalAndUnordered) {
  EXPECT_FALSE(Holds("s > :v", {{":v", N("1")}}));
  EXPECT_FALSE(Holds("s < :v", {{":v", N("1")}}));
  EXPECT_FALSE(Holds("s = :v", {{":v", N("1")}}));
  EXPECT_TRUE(Holds("s <> :v", {{":v", N("1")}}));
  EXPECT_FALSE(Holds("n = :v", {{":v", S("10")}}));
}

TEST(ExprCondition, SetsCompareAsSetsWhateverTheOrder) {
  EXPECT_TRUE(Holds("tags = :v", {{":v", Set(ValueType::kSS, {"green", "red"})}}));
  EXPECT_FALSE(Holds("tags = :v", {{":v", Set(ValueType::kSS, {"red"})}}));
  EXPECT_TRUE(Holds("tags <> :v", {{":v", Set(ValueType::kSS, {"red", "blue"})}}));
  EXPECT_TRUE(Holds("nums = :v", {{":v", Set(ValueType::kNS, {"5", "1"})}}));
  EXPECT_FALSE(Holds("nums = :v", {{":v", Set(ValueType::kSS, {"5", "1"})}}));
}

TEST(ExprCondition, ListsAndMapsCompareDeeplyForEqualityOnly) {
  EXPECT_TRUE(Holds("letters = :v", {{":v", L({S("a"), S("b"), N("3")})}}));
  EXPECT_FALSE(Holds("letters = :v", {{":v", L({S("b"), S("a"), N("3")})}}));
  EXPECT_TRUE(Holds("info.nested = :v", {{":v", M({{"deep", S("x")}})}}));
  EXPECT_TRUE(Holds("info.nested <> :v", {{":v", M({{"deep", S("y")}})}}));
  // Ordering between two documents is never true.
  EXPECT_FALSE(Holds("letters < info"));
  EXPECT_FALSE(Holds("letters >= info.arr"));
}

TEST(ExprCondition, BooleansAndNullsCompareForEquality) {
  EXPECT_TRUE(Holds("flag = :v", {{":v", AttributeValue::Bool(true)}}));
  EXPECT_FALSE(Holds("flag = :v", {{":v", AttributeValue::Bool(false)}}));
  EXPECT_TRUE(Holds("nothing = :v", {{":v", AttributeValue::Null()}}));
}

TEST(ExprCondition, ComparesTwoPaths) {
  EXPECT_TRUE(Holds("s = twin"));
  EXPECT_FALSE(Holds("s <> twin"));
  EXPECT_TRUE(Holds("n > m"));
  EXPECT_TRUE(Holds("letters[2] < n"));
}

TEST(ExprCondition, BetweenIsInclusive) {
  EXPECT_TRUE(Holds("n BETWEEN :lo AND :hi", {{":lo", N("10")}, {":hi", N("20")}}));
  EXPECT_TRUE(Holds("n BETWEEN :lo AND :hi", {{":lo", N("1")}, {":hi", N("10")}}));
  EXPECT_FALSE(Holds("n BETWEEN :lo AND :hi", {{":lo", N("11")}, {":hi", N("20")}}));
  EXPECT_TRUE(Holds("b BETWEEN :lo AND :hi", {{":lo", B("\x01")}, {":hi", B("\x02")}}));
  EXPECT_FALSE(Holds("s BETWEEN :lo AND :hi", {{":lo", N("1")}, {":hi", N("2")}}));
}

TEST(ExprCondition, InMatchesAnyCandidate) {
  EXPECT_TRUE(Holds("s IN (:a, :b)", {{":a", S("apple")}, {":b", S("banana")}}));
  EXPECT_FALSE(Holds("s IN (:a)", {{":a", S("apple")}}));
  EXPECT_TRUE(Holds("n IN (:a, m, :b)", {{":a", S("10")}, {":b", N("10")}}));
  EXPECT_TRUE(Holds("s IN (absent, twin)"));
}

TEST(ExprCondition, AndBindsTighterThanOrAndNotTighterThanAnd) {
  std::map<std::string, AttributeValue> v = {{":yes", N("10")}, {":no", N("11")}};
  EXPECT_TRUE(Holds("n = :yes OR n = :yes AND n = :no", v));
  EXPECT_FALSE(Holds("(n = :yes OR n = :yes) AND n = :no", v));
  EXPECT_TRUE(Holds("NOT n = :no AND n = :yes", v));
  EXPECT_FALSE(Holds("NOT (n = :yes)", v));
  EXPECT_TRUE(Holds("NOT NOT n = :yes", v));
  EXPECT_TRUE(Holds("n = :no OR n = :no OR n = :yes", v));
}

TEST(ExprCondition, AttributeExistsFollowsNestedPaths) {
  EXPECT_TRUE(Holds("attribute_exists(info.nested.deep)"));
  EXPECT_TRUE(Holds("attribute_exists(info.arr[1].v)"));
  EXPECT_FALSE(Holds("attribute_exists(info.arr[2])"));
  EXPECT_FALSE(Holds("attribute_exists(s.x)"));
  EXPECT_FALSE(Holds("attribute_exists(s[0])"));
  EXPECT_TRUE(Holds("attribute_exists(nothing)"));
  EXPECT_TRUE(Holds("attribute_not_exists(letters[9])"));
  EXPECT_FALSE(Holds("attribute_not_exists(pk)"));
}

TEST(ExprCondition, AMissingItemIsAnEmptyMap) {
  EXPECT_TRUE(Holds("attribute_not_exists(pk)", {}, {}, {}));
  EXPECT_FALSE(Holds("attribute_exists(pk)", {}, {}, {}));
  EXPECT_TRUE(Holds("pk <> :v", {{":v", S("p")}}, {}, {}));
}

TEST(ExprCondition, AttributeTypeMatchesTheTypeName) {
  std::map<std::string, AttributeValue> v = {
      {":ss", S("SS")}, {":null", S("NULL")}, {":s", S("S")}, {":m", S("M")}, {":bool", S("BOOL")}};
  EXPECT_TRUE(Holds("attribute_type(tags, :ss) AND attribute_type(nothing, :null)", v));
  EXPECT_FALSE(Holds("attribute_type(n, :s)", v));
  EXPECT_TRUE(Holds("attribute_type(info.nested, :m) AND attribute_type(flag, :bool)", v));
  EXPECT_FALSE(Holds("attribute_type(absent, :s)", v));
}

TEST(ExprCondition, BeginsWithWorksOnStringsAndBinary) {
  EXPECT_TRUE(Holds("begins_with(s, :p)", {{":p", S("ban")}}));
  EXPECT_TRUE(Holds("begins_with(s, :p)", {{":p", S("banana")}}));
  EXPECT_FALSE(Holds("begins_with(s, :p)", {{":p", S("nan")}}));
  EXPECT_FALSE(Holds("begins_with(s, :p)", {{":p", S("banana!")}}));
  EXPECT_TRUE(Holds("begins_with(b, :p)", {{":p", B("\x01\x02")}}));
  EXPECT_FALSE(Holds("begins_with(b, :p)", {{":p", S("\x01")}}));
  EXPECT_FALSE(Holds("begins_with(letters, :p)", {{":p", S("a")}}));
  EXPECT_FALSE(Holds("begins_with(absent, :p)", {{":p", S("a")}}));
}

TEST(ExprCondition, ContainsIsSubstringForStringsAndBinary) {
  EXPECT_TRUE(Holds("contains(s, :v)", {{":v", S("nan")}}));
  EXPECT_FALSE(Holds("contains(s, :v)", {{":v", S("nab")}}));
  EXPECT_TRUE(Holds("contains(b, :v)", {{":v", B("\x02\x03")}}));
  EXPECT_FALSE(Holds("contains(b, :v)", {{":v", B("\x01\x03")}}));
  EXPECT_FALSE(Holds("contains(s, :v)", {{":v", N("1")}}));
}

TEST(ExprCondition, ContainsIsMembershipForSetsAndLists) {
  EXPECT_TRUE(Holds("contains(tags, :v)", {{":v", S("red")}}));
  EXPECT_FALSE(Holds("contains(tags, :v)", {{":v", S("blue")}}));
  EXPECT_TRUE(Holds("contains(nums, :v)", {{":v", N("5")}}));
  EXPECT_FALSE(Holds("contains(nums, :v)", {{":v", S("5")}}));
  EXPECT_TRUE(Holds("contains(bins, :v)", {{":v", B("\x02")}}));
  EXPECT_TRUE(Holds("contains(letters, :v)", {{":v", N("3")}}));
  EXPECT_FALSE(Holds("contains(letters, :v)", {{":v", S("3")}}));
  EXPECT_FALSE(Holds("contains(info, :v)", {{":v", S("nested")}}));
  EXPECT_TRUE(Holds("NOT contains(tags, :v)", {{":v", S("blue")}}));
}

TEST(ExprCondition, SizeCountsStringsInUtf16UnitsAndBinaryInBytes) {
  EXPECT_TRUE(Holds("size(s) = :v", {{":v", N("6")}}));
  EXPECT_TRUE(Holds("size(emoji) = :v", {{":v", N("2")}}));
  EXPECT_TRUE(Holds("size(accent) = :v", {{":v", N("3")}}));
  EXPECT_TRUE(Holds("size(b) = :v", {{":v", N("3")}}));
}

TEST(ExprCondition, SizeCountsElementsOfSetsListsAndMaps) {
  std::map<std::string, AttributeValue> v = {{":two", N("2")}, {":three", N("3")}};
  EXPECT_TRUE(Holds("size(tags) = :two AND size(letters) = :three AND size(info) = :two", v));
  EXPECT_TRUE(Holds("size(info.arr) < size(letters)", v));
  EXPECT_TRUE(Holds("size(:s) = :three", {{":s", S("abc")}, {":three", N("3")}}));
}

TEST(ExprCondition, SizeOfANumberOrMissingAttributeIsNoValue) {
  EXPECT_FALSE(Holds("size(n) = :v", {{":v", N("2")}}));
  EXPECT_FALSE(Holds("size(absent) >= :v", {{":v", N("0")}}));
  EXPECT_TRUE(Holds("size(absent) <> :v", {{":v", N("0")}}));
}

TEST(ExprCondition, NamePlaceholdersMayHoldDotsAndReservedWords) {
  EXPECT_TRUE(Holds("#d = :y", {{":y", S("yes")}}, {{"#d", "dotted.name"}}));
  model::Item item = {{"status", S("active")}};
  EXPECT_TRUE(Holds("#s = :v", {{":v", S("active")}}, {{"#s", "status"}}, item));
}

TEST(ExprCondition, ParenthesisedOperandsEvaluateAsTheOperand) {
  EXPECT_TRUE(Holds("(info.nested.deep) = :x", {{":x", S("x")}}));
  EXPECT_TRUE(Holds("(letters[0]) = (:a)", {{":a", S("a")}}));
}

TEST(ExprCondition, FilterExpressionsEvaluateTheSameWay) {
  Placeholders ph;
  ph.values = {{":v", N("9")}};
  auto c = Condition::Parse("n > :v", "FilterExpression", ph);
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->Evaluate(Doc()));
  EXPECT_FALSE(c->Evaluate({{"n", N("9")}}));
  EXPECT_FALSE(c->Evaluate({}));
}

}  // namespace
}  // namespace ttlstore::expr
