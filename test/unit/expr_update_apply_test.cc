// Applying UpdateExpressions to items: each clause, DynamoDB's path rules, and every run-time
// error.
#include <gtest/gtest.h>

#include "expr/update.h"
#include "model/number.h"

namespace ttlstore::expr {
namespace {

using model::AttributeValue;
using model::ValueType;

AttributeValue S(std::string s) { return AttributeValue::String(std::move(s)); }
AttributeValue N(std::string n) { return AttributeValue::Num(std::move(n)); }
AttributeValue L(model::List l) { return AttributeValue::OfList(std::move(l)); }
AttributeValue M(model::Map m) { return AttributeValue::OfMap(std::move(m)); }
AttributeValue SS(std::vector<std::string> m) {
  return AttributeValue::Set(ValueType::kSS, std::move(m));
}
AttributeValue NS(std::vector<std::string> m) {
  return AttributeValue::Set(ValueType::kNS, std::move(m));
}

constexpr char kInvalidPath[] =
    "The document path provided in the update expression is invalid for update";
constexpr char kMissing[] =
    "The provided expression refers to an attribute that does not exist in the item";
constexpr char kWrongType[] = "An operand in the update expression has an incorrect data type";

model::Item Doc() {
  return {
      {"pk", S("p")},
      {"tally", N("10")},
      {"f", N("0.1")},
      {"label", S("x")},
      {"letters", L({S("a"), S("b"), S("c"), S("d")})},
      {"blank", L({})},
      {"mymap", M({{"nested", S("old")}, {"keep", S("stay")}, {"num", N("1")}})},
      {"tags", SS({"a", "b"})},
      {"nums", NS({"1", "2"})},
  };
}

// Parses `text` and applies it to `*item`; returns "" or the error message.
std::string UpdateItem(const std::string& text, model::Item* item,
                       std::map<std::string, AttributeValue> values = {},
                       std::map<std::string, std::string> names = {}) {
  Placeholders ph;
  ph.values = std::move(values);
  ph.names = std::move(names);
  auto u = Update::Parse(text, ph);
  if (!u.ok()) return "parse: " + u.error().message();
  Status s = u->Apply(item);
  return s.ok() ? "" : s.error().message();
}

TEST(ExprUpdate, SetCreatesAndOverwritesTopLevelAttributes) {
  model::Item item = Doc();
  ASSERT_EQ(UpdateItem("SET label = :v, fresh = :n", &item, {{":v", S("y")}, {":n", N("100")}}),
            "");
  EXPECT_EQ(item["label"], S("y"));
  EXPECT_EQ(item["fresh"], N("100"));
}

TEST(ExprUpdate, UpsertStartsFromTheKeyAttributesOnly) {
  model::Item item = {{"pk", S("new")}};
  ASSERT_EQ(UpdateItem("SET #d = :v", &item, {{":v", S("created")}}, {{"#d", "data"}}), "");
  EXPECT_EQ(item, (model::Item{{"pk", S("new")}, {"data", S("created")}}));
}

TEST(ExprUpdate, SetNestedMemberNeedsAnExistingMap) {
  model::Item item = Doc();
  ASSERT_EQ(UpdateItem("SET mymap.nested = :v, mymap.added = :v", &item, {{":v", S("new")}}), "");
  EXPECT_EQ(item["mymap"].map().at("nested"), S("new"));
  EXPECT_EQ(item["mymap"].map().at("added"), S("new"));
  EXPECT_EQ(item["mymap"].map().at("keep"), S("stay"));
  EXPECT_EQ(UpdateItem("SET nope.nested.deep = :v", &item, {{":v", S("x")}}), kInvalidPath);
  EXPECT_EQ(UpdateItem("SET label.x = :v", &item, {{":v", S("x")}}), kInvalidPath);
  EXPECT_EQ(UpdateItem("SET mymap.absent.x = :v", &item, {{":v", S("x")}}), kInvalidPath);
  EXPECT_EQ(UpdateItem("SET mymap[0] = :v", &item, {{":v", S("x")}}), kInvalidPath);
}

TEST(ExprUpdate, SetListElementReplacesOrAppendsPastTheEnd) {
  model::Item item = Doc();
  ASSERT_EQ(UpdateItem("SET letters[1] = :v", &item, {{":v", S("B")}}), "");
  EXPECT_EQ(item["letters"], L({S("a"), S("B"), S("c"), S("d")}));
  ASSERT_EQ(UpdateItem("SET letters[10] = :v", &item, {{":v", S("e")}}), "");
  EXPECT_EQ(item["letters"], L({S("a"), S("B"), S("c"), S("d"), S("e")}));
  ASSERT_EQ(UpdateItem("SET blank[0] = :v", &item, {{":v", S("first")}}), "");
  EXPECT_EQ(item["blank"], L({S("first")}));
  EXPECT_EQ(UpdateItem("SET label[0] = :v", &item, {{":v", S("x")}}), kInvalidPath);
  EXPECT_EQ(UpdateItem("SET absent[0] = :v", &item, {{":v", S("x")}}), kInvalidPath);
}

TEST(ExprUpdate, SetThroughListElementsAndMaps) {
  model::Item item = {{"a", L({M({{"b", N("1")}})})}};
  ASSERT_EQ(UpdateItem("SET a[0].b = a[0].b + :one, a[0].c = :one", &item, {{":one", N("1")}}), "");
  EXPECT_EQ(item["a"], L({M({{"b", N("2")}, {"c", N("1")}})}));
  EXPECT_EQ(UpdateItem("SET a[3].b = :one", &item, {{":one", N("1")}}), kInvalidPath);
}

TEST(ExprUpdate, ArithmeticIsExactDecimal) {
  model::Item item = Doc();
  ASSERT_EQ(UpdateItem("SET tally = tally + :inc, f = f + :f, g = :a - :b", &item,
                       {{":inc", N("5")}, {":f", N("0.2")}, {":a", N("1")}, {":b", N("3")}}),
            "");
  EXPECT_EQ(item["tally"], N("15"));
  EXPECT_EQ(item["f"], N("0.3"));
  EXPECT_EQ(item["g"], N("-2"));
}

TEST(ExprUpdate, ArithmeticOnAMissingAttributeFails) {
  model::Item item = Doc();
  EXPECT_EQ(UpdateItem("SET a = absent + :n", &item, {{":n", N("1")}}), kMissing);
  EXPECT_EQ(UpdateItem("SET a = :n - absent", &item, {{":n", N("1")}}), kMissing);
}

TEST(ExprUpdate, ArithmeticOnANonNumberFails) {
  model::Item item = Doc();
  EXPECT_EQ(UpdateItem("SET a = label + :n", &item, {{":n", N("1")}}), kWrongType);
  EXPECT_EQ(UpdateItem("SET a = :n - tags", &item, {{":n", N("1")}}), kWrongType);
}

TEST(ExprUpdate, ArithmeticOverflowReportsTheNumberError) {
  std::string max =
      model::Number::Parse("9.9999999999999999999999999999999999999E+125")->ToString();
  model::Item item = {{"big", N(max)}};
  EXPECT_EQ(UpdateItem("SET big = big + big", &item),
            "Number overflow. Attempting to store a number with magnitude larger than supported "
            "range");
}

TEST(ExprUpdate, SetFromAMissingAttributeFails) {
  model::Item item = Doc();
  EXPECT_EQ(UpdateItem("SET c = absent", &item), kMissing);
  EXPECT_EQ(UpdateItem("SET c = mymap.absent", &item), kMissing);
}

TEST(ExprUpdate, EveryValueIsReadFromTheItemBeforeTheUpdate) {
  model::Item item = {{"a", N("1")}, {"b", N("2")}};
  ASSERT_EQ(UpdateItem("SET a = b, b = a", &item), "");
  EXPECT_EQ(item, (model::Item{{"a", N("2")}, {"b", N("1")}}));
  ASSERT_EQ(UpdateItem("SET c = a REMOVE a", &item), "");
  EXPECT_EQ(item, (model::Item{{"b", N("1")}, {"c", N("2")}}));
}

TEST(ExprUpdate, IfNotExistsKeepsAnExistingValue) {
  model::Item item = Doc();
  ASSERT_EQ(UpdateItem("SET label = if_not_exists(label, :d), newone = if_not_exists(newone, :d)",
                       &item, {{":d", S("default")}}),
            "");
  EXPECT_EQ(item["label"], S("x"));
  EXPECT_EQ(item["newone"], S("default"));
}

TEST(ExprUpdate, IfNotExistsMayFallBackToAnotherAttribute) {
  model::Item item = {{"myval", S("original")}};
  ASSERT_EQ(UpdateItem("SET #bk = if_not_exists(#bk, #mv)", &item, {},
                       {{"#bk", "backup"}, {"#mv", "myval"}}),
            "");
  EXPECT_EQ(item["backup"], S("original"));
  EXPECT_EQ(UpdateItem("SET x = if_not_exists(y, z)", &item), kMissing);
}

TEST(ExprUpdate, IfNotExistsInArithmeticCountsFromADefault) {
  model::Item item = {};
  ASSERT_EQ(UpdateItem("SET hits = if_not_exists(hits, :zero) + :one", &item,
                       {{":zero", N("0")}, {":one", N("1")}}),
            "");
  ASSERT_EQ(UpdateItem("SET hits = if_not_exists(hits, :zero) + :one", &item,
                       {{":zero", N("0")}, {":one", N("1")}}),
            "");
  EXPECT_EQ(item["hits"], N("2"));
}

TEST(ExprUpdate, ListAppendJoinsListsInOrder) {
  model::Item item = {{"vals", L({S("a"), S("b")})}};
  ASSERT_EQ(UpdateItem("SET vals = list_append(vals, :tail), front = list_append(:head, vals)",
                       &item, {{":tail", L({S("c"), S("d")})}, {":head", L({S("z")})}}),
            "");
  EXPECT_EQ(item["vals"], L({S("a"), S("b"), S("c"), S("d")}));
  EXPECT_EQ(item["front"], L({S("z"), S("a"), S("b")}));
}

TEST(ExprUpdate, ListAppendAroundIfNotExistsCreatesTheList) {
  model::Item item = {};
  ASSERT_EQ(UpdateItem("SET l = list_append(if_not_exists(l, :empty), :v)", &item,
                       {{":empty", L({})}, {":v", L({N("9")})}}),
            "");
  EXPECT_EQ(item["l"], L({N("9")}));
}

TEST(ExprUpdate, ListAppendOnANonListOrMissingAttributeFails) {
  model::Item item = Doc();
  EXPECT_EQ(UpdateItem("SET x = list_append(tags, :l)", &item, {{":l", L({})}}), kWrongType);
  EXPECT_EQ(UpdateItem("SET x = list_append(:l, label)", &item, {{":l", L({})}}), kWrongType);
  EXPECT_EQ(UpdateItem("SET x = list_append(absent, :l)", &item, {{":l", L({})}}), kMissing);
}

TEST(ExprUpdate, RemoveDeletesAttributesAndMembers) {
  model::Item item = Doc();
  ASSERT_EQ(UpdateItem("REMOVE label, mymap.nested", &item), "");
  EXPECT_EQ(item.count("label"), 0u);
  EXPECT_EQ(item["mymap"], M({{"keep", S("stay")}, {"num", N("1")}}));
}

TEST(ExprUpdate, RemoveOfSomethingMissingIsANoOp) {
  model::Item item = Doc();
  ASSERT_EQ(UpdateItem("REMOVE ghost, mymap.nonexistent, letters[9]", &item), "");
  EXPECT_EQ(item, Doc());
}

TEST(ExprUpdate, RemoveNeedsTheParentToExist) {
  model::Item item = Doc();
  EXPECT_EQ(UpdateItem("REMOVE nope.a", &item), kInvalidPath);
  EXPECT_EQ(UpdateItem("REMOVE label.a", &item), kInvalidPath);
  EXPECT_EQ(UpdateItem("REMOVE mymap[1]", &item), kInvalidPath);
  EXPECT_EQ(UpdateItem("REMOVE letters.a", &item), kInvalidPath);
}

TEST(ExprUpdate, RemoveListElementShiftsTheRest) {
  model::Item item = Doc();
  ASSERT_EQ(UpdateItem("REMOVE letters[1]", &item), "");
  EXPECT_EQ(item["letters"], L({S("a"), S("c"), S("d")}));
  ASSERT_EQ(UpdateItem("REMOVE letters[2]", &item), "");
  EXPECT_EQ(item["letters"], L({S("a"), S("c")}));
}

TEST(ExprUpdate, RemoveSeveralElementsUsesTheOriginalPositions) {
  model::Item item = Doc();
  ASSERT_EQ(UpdateItem("REMOVE letters[1], letters[2]", &item), "");
  EXPECT_EQ(item["letters"], L({S("a"), S("d")}));
  item = Doc();
  ASSERT_EQ(UpdateItem("REMOVE letters[0], letters[3], letters[2]", &item), "");
  EXPECT_EQ(item["letters"], L({S("b")}));
}

TEST(ExprUpdate, SetAndRemoveInOneListUseOriginalPositions) {
  model::Item item = Doc();
  ASSERT_EQ(UpdateItem("SET letters[2] = :v REMOVE letters[0]", &item, {{":v", S("C")}}), "");
  EXPECT_EQ(item["letters"], L({S("b"), S("C"), S("d")}));
}

TEST(ExprUpdate, AddSumsNumbersAndCreatesMissingOnes) {
  model::Item item = Doc();
  ASSERT_EQ(
      UpdateItem("ADD #c :v, fresh :v, mymap.num :v", &item, {{":v", N("3")}}, {{"#c", "tally"}}),
      "");
  EXPECT_EQ(item["tally"], N("13"));
  EXPECT_EQ(item["fresh"], N("3"));
  EXPECT_EQ(item["mymap"].map().at("num"), N("4"));
  ASSERT_EQ(UpdateItem("ADD tally :v", &item, {{":v", N("-13.5")}}), "");
  EXPECT_EQ(item["tally"], N("-0.5"));
}

TEST(ExprUpdate, AddUnitesSetsAndCreatesMissingOnes) {
  model::Item item = Doc();
  ASSERT_EQ(UpdateItem("ADD tags :t, nums :n, newset :t", &item,
                       {{":t", SS({"b", "c", "d"})}, {":n", NS({"3"})}}),
            "");
  EXPECT_EQ(item["tags"], SS({"a", "b", "c", "d"}));
  EXPECT_EQ(item["nums"], NS({"1", "2", "3"}));
  EXPECT_EQ(item["newset"], SS({"b", "c", "d"}));
}

TEST(ExprUpdate, AddToAValueOfAnotherTypeFails) {
  model::Item item = Doc();
  EXPECT_EQ(UpdateItem("ADD label :n", &item, {{":n", N("1")}}), kWrongType);
  EXPECT_EQ(UpdateItem("ADD tags :n", &item, {{":n", N("1")}}), kWrongType);
  EXPECT_EQ(UpdateItem("ADD tally :t", &item, {{":t", SS({"a"})}}), kWrongType);
  EXPECT_EQ(UpdateItem("ADD tags :ns", &item, {{":ns", NS({"1"})}}), kWrongType);
  EXPECT_EQ(UpdateItem("ADD letters :t", &item, {{":t", SS({"a"})}}), kWrongType);
}

TEST(ExprUpdate, AddNeedsTheParentToExist) {
  model::Item item = Doc();
  EXPECT_EQ(UpdateItem("ADD nope.count_ :n", &item, {{":n", N("1")}}), kInvalidPath);
}

TEST(ExprUpdate, DeleteRemovesSetMembers) {
  model::Item item = {{"tags", SS({"a", "b", "c"})}};
  ASSERT_EQ(UpdateItem("DELETE #t :v", &item, {{":v", SS({"b", "z"})}}, {{"#t", "tags"}}), "");
  EXPECT_EQ(item["tags"], SS({"a", "c"}));
}

TEST(ExprUpdate, DeleteOfEveryMemberRemovesTheAttribute) {
  model::Item item = Doc();
  ASSERT_EQ(UpdateItem("DELETE tags :v", &item, {{":v", SS({"a", "b"})}}), "");
  EXPECT_EQ(item.count("tags"), 0u);
}

TEST(ExprUpdate, DeleteFromAMissingAttributeIsANoOp) {
  model::Item item = Doc();
  ASSERT_EQ(UpdateItem("DELETE ghost :v", &item, {{":v", SS({"a"})}}), "");
  EXPECT_EQ(item, Doc());
}

TEST(ExprUpdate, DeleteFromAValueOfAnotherTypeFails) {
  model::Item item = Doc();
  EXPECT_EQ(UpdateItem("DELETE nums :v", &item, {{":v", SS({"1"})}}), kWrongType);
  EXPECT_EQ(UpdateItem("DELETE label :v", &item, {{":v", SS({"x"})}}), kWrongType);
  EXPECT_EQ(UpdateItem("DELETE mymap.absent.x :v", &item, {{":v", SS({"x"})}}), kInvalidPath);
}

TEST(ExprUpdate, AllClausesTogether) {
  model::Item item = Doc();
  ASSERT_EQ(UpdateItem("SET label = :v REMOVE letters[0] ADD tally :one DELETE tags :a", &item,
                       {{":v", S("z")}, {":one", N("1")}, {":a", SS({"a"})}}),
            "");
  EXPECT_EQ(item["label"], S("z"));
  EXPECT_EQ(item["letters"], L({S("b"), S("c"), S("d")}));
  EXPECT_EQ(item["tally"], N("11"));
  EXPECT_EQ(item["tags"], SS({"b"}));
}

TEST(ExprUpdate, ApplyIsRepeatableOnFreshCopies) {
  // Apply is const and keeps no state, so a retried transaction can apply it again.
  Placeholders ph;
  ph.values = {{":one", N("1")}};
  auto u = Update::Parse("ADD tally :one", ph);
  ASSERT_TRUE(u.ok());
  for (int i = 0; i < 2; ++i) {
    model::Item item = Doc();
    ASSERT_TRUE(u->Apply(&item).ok());
    EXPECT_EQ(item["tally"], N("11"));
  }
}

}  // namespace
}  // namespace ttlstore::expr
