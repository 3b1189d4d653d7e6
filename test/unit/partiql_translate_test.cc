// PartiQL translation: binding, WHERE -> condition text, the Query/Scan choice, single-item keys
// and UPDATE -> update expression text. Pure: no storage, no expression parsing.
#include <gtest/gtest.h>

#include "api/partiql/parser.h"
#include "api/partiql/translate.h"

namespace ttlstore::api::partiql {
namespace {

using model::AttributeValue;
using model::ValueType;

model::KeySchema HashOnly() { return {{"pk", ValueType::kS}, std::nullopt, {}, {}}; }
model::KeySchema Composite() {
  return {{"pk", ValueType::kS}, model::KeyElement{"sk", ValueType::kN}, {}, {}};
}

Statement P(const std::string& text) {
  auto s = Parse(text);
  EXPECT_TRUE(s.ok()) << text << ": " << (s.ok() ? "" : s.error().message());
  return s.ok() ? std::move(*s) : Statement();
}

// Replaces placeholders in `text` by what they stand for ("#_p0" -> "pk", ":_p1" -> "S:x"), so
// expectations read like the statement.
std::string Resolve(std::string text, const expr::Placeholders& ph) {
  // Longest tokens first so ":_p1" does not clobber ":_p10".
  std::vector<std::pair<std::string, std::string>> subs;
  for (const auto& [k, v] : ph.names) subs.push_back({k, v});
  for (const auto& [k, v] : ph.values) {
    std::string shown = std::string(model::TypeName(v.type())) + ":" +
                        (v.IsSet() ? std::to_string(v.set().size()) : v.scalar());
    subs.push_back({k, shown});
  }
  std::sort(subs.begin(), subs.end(),
            [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  for (const auto& [k, v] : subs) {
    for (size_t at = text.find(k); at != std::string::npos; at = text.find(k, at + v.size())) {
      text.replace(at, k.size(), v);
    }
  }
  return text;
}

struct Translated {
  expr::Placeholders ph;
  Params params;
};

std::string Where(const std::string& condition, Params params = {}) {
  Statement s = P("SELECT * FROM t WHERE " + condition);
  expr::Placeholders ph;
  ExpressionWriter w(ph, params);
  auto text = w.Condition(*s.where);
  if (!text) return "ERROR: " + text.error().message();
  return Resolve(*text, ph);
}

TEST(PartiqlBind, LiteralsBecomeAttributeValues) {
  Statement s =
      P("INSERT INTO t VALUE {'s': 'x', 'n': 01.50, 'b': true, 'z': null, "
        "'l': [1, 'a'], 'm': {'k': 2}, 'ss': <<'a', 'b'>>, 'ns': <<1, 2.0>>, 'p': ?}");
  auto item = Bind(s.item, {AttributeValue::Bool(false)});
  ASSERT_TRUE(item.ok()) << item.error().message();
  const model::Map& m = item->map();
  EXPECT_EQ(m.at("s"), AttributeValue::String("x"));
  EXPECT_EQ(m.at("n"), AttributeValue::Num("1.5"));
  EXPECT_EQ(m.at("b"), AttributeValue::Bool(true));
  EXPECT_EQ(m.at("z").type(), ValueType::kNull);
  EXPECT_EQ(m.at("l").list().size(), 2u);
  EXPECT_EQ(m.at("m").map().at("k"), AttributeValue::Num("2"));
  EXPECT_EQ(m.at("ss"), AttributeValue::Set(ValueType::kSS, {"a", "b"}));
  EXPECT_EQ(m.at("ns"), AttributeValue::Set(ValueType::kNS, {"1", "2"}));
  EXPECT_EQ(m.at("p"), AttributeValue::Bool(false));
}

TEST(PartiqlBind, BagErrors) {
  auto bind = [](const std::string& literal, Params params = {}) {
    Statement s = P("INSERT INTO t VALUE {'a': " + literal + "}");
    auto v = Bind(s.item, params);
    return v.ok() ? std::string("ok") : v.error().message();
  };
  EXPECT_EQ(bind("<<1, 'a'>>"),
            "Unsupported data type in Bag. DynamoDB only supports either numbers or strings in "
            "bags");
  EXPECT_EQ(bind("<<true>>"),
            "Unsupported data type in Bag. DynamoDB only supports either numbers or strings in "
            "bags");
  EXPECT_EQ(bind("<<'a', 'a'>>"),
            "One or more parameter values were invalid: Input collection [a, a] contains "
            "duplicates.");
  EXPECT_EQ(bind("<<1, 1.0>>"), "Input collection contains duplicates");
  EXPECT_EQ(bind("<<?, ?>>", {AttributeValue::Binary("x"), AttributeValue::Binary("y")}), "ok");
  EXPECT_EQ(bind("MISSING"), "Unsupported data type: MISSING");
  EXPECT_NE(bind("1e999"), "ok");  // beyond DynamoDB's number range
}

TEST(PartiqlTranslate, Comparisons) {
  EXPECT_EQ(Where("a = 'x'"), "a = S:x");
  EXPECT_EQ(Where("a.b[2] <> 1"), "a.b[2] <> N:1");
  EXPECT_EQ(Where("1 < a"), "N:1 < a");
  EXPECT_EQ(Where("a = ?", {AttributeValue::Bool(true)}), "a = BOOL:");
  EXPECT_EQ(Where("size(l) >= 2"), "size(l) >= N:2");
}

TEST(PartiqlTranslate, LogicAndPredicates) {
  EXPECT_EQ(Where("a = 1 AND (b = 2 OR NOT c = 3)"),
            "(a = N:1) AND ((b = N:2) OR (NOT (c = N:3)))");
  EXPECT_EQ(Where("a BETWEEN 1 AND 5"), "a BETWEEN N:1 AND N:5");
  EXPECT_EQ(Where("a NOT BETWEEN 1 AND 5"), "NOT (a BETWEEN N:1 AND N:5)");
  EXPECT_EQ(Where("a IN [1, 2]"), "a IN (N:1, N:2)");
  EXPECT_EQ(Where("a NOT IN ('x')"), "NOT (a IN (S:x))");
  EXPECT_EQ(Where("a IS MISSING"), "attribute_not_exists(a)");
  EXPECT_EQ(Where("a IS NOT MISSING"), "attribute_exists(a)");
  EXPECT_EQ(Where("a IS NULL"), "attribute_type(a, S:NULL)");
  EXPECT_EQ(Where("a IS NOT STRING"), "NOT (attribute_type(a, S:S))");
  EXPECT_EQ(Where("a IS NUMERIC"), "attribute_type(a, S:N)");
  EXPECT_EQ(Where("begins_with(a, 'p')"), "begins_with(a, S:p)");
  EXPECT_EQ(Where("contains(a, 3)"), "contains(a, N:3)");
  EXPECT_EQ(Where("attribute_type(a, 'SS')"), "attribute_type(a, S:SS)");
  EXPECT_EQ(Where("attribute_exists(a.b)"), "attribute_exists(a.b)");
}

TEST(PartiqlTranslate, ConditionErrors) {
  EXPECT_EQ(Where("a = MISSING"), "ERROR: MISSING must be compared using IS operator");
  EXPECT_EQ(Where("a < true"),
            "ERROR: Incorrect operand type for operator or function; operator or function: <, "
            "operand type: BOOL");
  EXPECT_EQ(Where("a BETWEEN [1] AND 2"),
            "ERROR: Incorrect operand type for operator or function; operator or function: "
            "BETWEEN, operand type: L");
  EXPECT_EQ(Where("foo(a)"), "ERROR: Unrecognized function: foo at 1:23:3");
  EXPECT_EQ(Where("a"),
            "ERROR: WHERE clause must contain an expression that resolves to a boolean");
  EXPECT_EQ(Where("size(a)"),
            "ERROR: WHERE clause must contain an expression that resolves to a boolean");
  EXPECT_EQ(Where("a IN []"),
            "ERROR: IN operator must have a left hand argument of type Variable Reference and "
            "right hand argument of type Seq with at least one member");
  EXPECT_EQ(Where("'x' IS MISSING"),
            "ERROR: The left hand side argument to IS must be a Variable Reference, Literal, or "
            "Path");
  EXPECT_EQ(Where("a + 1 = 2"), "ERROR: Unsupported operator in Condition Expression. Operator: +");
}

TEST(PartiqlTranslate, SameNameSameToken) {
  Statement s = P("SELECT * FROM t WHERE a = 1 OR a.a = 2");
  expr::Placeholders ph;
  Params params;
  ExpressionWriter w(ph, params);
  ASSERT_TRUE(w.Condition(*s.where).ok());
  EXPECT_EQ(ph.names.size(), 1u);
  EXPECT_EQ(ph.values.size(), 2u);
}

struct Plan {
  std::vector<std::string> keys;
  std::string filter;
  bool forward = true;
  std::string error;
};

Plan Select(const std::string& text, const model::KeySchema& schema, Params params = {}) {
  Statement s = P(text);
  expr::Placeholders ph;
  ExpressionWriter w(ph, params);
  auto plan = PlanSelect(s, schema, w);
  Plan out;
  if (!plan) {
    out.error = plan.error().message();
    return out;
  }
  for (const auto& k : plan->key_conditions) out.keys.push_back(Resolve(k, ph));
  out.filter = Resolve(plan->filter, ph);
  out.forward = plan->forward;
  return out;
}

TEST(PartiqlPlanSelect, PartitionEqualityIsAQuery) {
  Plan p = Select("SELECT * FROM t WHERE pk = 'a' AND x > 20", HashOnly());
  ASSERT_EQ(p.keys, std::vector<std::string>{"pk = S:a"});
  EXPECT_EQ(p.filter, "(x > N:20)");
  p = Select("SELECT * FROM t WHERE 'a' = pk", HashOnly());
  EXPECT_EQ(p.keys, std::vector<std::string>{"pk = S:a"});
  EXPECT_EQ(p.filter, "");
  p = Select("SELECT * FROM t WHERE pk = ?", HashOnly(), {AttributeValue::String("p")});
  EXPECT_EQ(p.keys, std::vector<std::string>{"pk = S:p"});
}

TEST(PartiqlPlanSelect, SortKeyConditionsNarrowTheQuery) {
  EXPECT_EQ(Select("SELECT * FROM t WHERE pk = 'a' AND sk >= 3", Composite()).keys,
            std::vector<std::string>{"pk = S:a AND sk >= N:3"});
  EXPECT_EQ(Select("SELECT * FROM t WHERE pk = 'a' AND 3 > sk", Composite()).keys,
            std::vector<std::string>{"pk = S:a AND sk < N:3"});
  Plan p = Select("SELECT * FROM t WHERE pk = 'a' AND sk BETWEEN 1 AND 9 AND sk <> 4", Composite());
  EXPECT_EQ(p.keys, std::vector<std::string>{"pk = S:a AND sk BETWEEN N:1 AND N:9"});
  EXPECT_EQ(p.filter, "(sk <> N:4)");
  // A value of the wrong type cannot narrow a key range; it stays a filter (matching nothing).
  p = Select("SELECT * FROM t WHERE pk = 'a' AND sk = 'x'", Composite());
  EXPECT_EQ(p.keys, std::vector<std::string>{"pk = S:a"});
  EXPECT_EQ(p.filter, "(sk = S:x)");
  model::KeySchema string_sort{
      {"pk", ValueType::kS}, model::KeyElement{"sk", ValueType::kS}, {}, {}};
  p = Select("SELECT * FROM t WHERE pk = 'a' AND begins_with(\"sk\", 'prefix-')", string_sort);
  EXPECT_EQ(p.keys, std::vector<std::string>{"pk = S:a AND begins_with(sk, S:prefix-)"});
  EXPECT_EQ(p.filter, "");
}

TEST(PartiqlPlanSelect, InListQueriesEachPartition) {
  Plan p = Select("SELECT * FROM t WHERE pk IN ['a', 'b'] AND sk = 1", Composite());
  EXPECT_EQ(p.keys, (std::vector<std::string>{"pk = S:a AND sk = N:1", "pk = S:b AND sk = N:1"}));
  EXPECT_EQ(p.filter, "");
  // One partition twice, and more reads than the service decomposes into (a public test suite
  // characterised against the service).
  EXPECT_EQ(Select("SELECT * FROM t WHERE pk IN ['a', 'b', 'a'] AND sk = 1", Composite()).error,
            "Overlapping conditions with range keys are not supported in where clause");
  std::string in = "'v0'";
  for (int i = 1; i < 26; ++i) in += ", 'v" + std::to_string(i) + "'";
  EXPECT_EQ(Select("SELECT * FROM t WHERE pk IN [" + in + "] AND sk IN [1, 2]", Composite()).error,
            "Too many decomposed read operations for a given query.");
}

TEST(PartiqlPlanSelect, NoPartitionEqualityIsAScan) {
  Plan p = Select("SELECT * FROM t WHERE pk = 'a' OR pk = 'b'", HashOnly());
  EXPECT_TRUE(p.keys.empty());
  EXPECT_EQ(p.filter, "((pk = S:a) OR (pk = S:b))");
  p = Select("SELECT * FROM t", HashOnly());
  EXPECT_TRUE(p.keys.empty());
  EXPECT_EQ(p.filter, "");
  p = Select("SELECT * FROM t WHERE begins_with(pk, 'a')", HashOnly());
  EXPECT_TRUE(p.keys.empty());
  EXPECT_EQ(p.filter, "(begins_with(pk, S:a))");
}

TEST(PartiqlPlanSelect, PartitionValueOfTheWrongTypeIsAnError) {
  EXPECT_EQ(Select("SELECT * FROM t WHERE pk = 1", HashOnly()).error,
            "Key attribute's data type should match its data type in table's schema: Key pk");
}

TEST(PartiqlPlanSelect, OrderBy) {
  Plan p = Select("SELECT * FROM t WHERE pk = 'a' ORDER BY sk DESC", Composite());
  EXPECT_FALSE(p.forward);
  EXPECT_EQ(Select("SELECT * FROM t WHERE x = 1 ORDER BY sk", Composite()).error,
            "Must have at least one non-optional hash key condition in WHERE clause when using "
            "ORDER BY clause.");
  EXPECT_EQ(Select("SELECT * FROM t ORDER BY sk", Composite()).error,
            "Must have WHERE clause in the statement when using ORDER BY clause.");
  EXPECT_EQ(Select("SELECT * FROM t WHERE pk = 'a' ORDER BY x", Composite()).error,
            "Variable reference x in ORDER BY clause must be part of the primary key");
}

struct Item {
  model::Item item;
  std::string update;
  std::string condition;
  std::string error;
};

Item ForItem(const std::string& text, const model::KeySchema& schema, Params params = {}) {
  Statement s = P(text);
  expr::Placeholders ph;
  ExpressionWriter w(ph, params);
  auto plan = PlanItem(s, schema, w);
  Item out;
  if (!plan) {
    out.error = plan.error().message();
    return out;
  }
  out.item = plan->item;
  out.update = Resolve(plan->update, ph);
  out.condition = Resolve(plan->condition, ph);
  return out;
}

TEST(PartiqlPlanItem, InsertRefusesAnExistingItem) {
  Item i =
      ForItem("INSERT INTO t VALUE {'pk': ?, 'a': 1}", HashOnly(), {AttributeValue::String("k")});
  EXPECT_EQ(i.item.at("pk"), AttributeValue::String("k"));
  EXPECT_EQ(i.condition, "attribute_not_exists(pk)");
  EXPECT_EQ(ForItem("INSERT INTO t VALUE {'a': 1}", HashOnly()).error,
            "Key attribute should be present in the item: Key pk");
  EXPECT_EQ(ForItem("INSERT INTO t VALUE {'pk': 'a', 'sk': 'x'}", Composite()).error,
            "Key attribute's data type should match its data type in table's schema: Key sk");
}

TEST(PartiqlPlanItem, UpdateRequiresTheItemAndTheRestOfWhere) {
  Item i = ForItem("UPDATE t SET a = 'v', b = b + 1 REMOVE c WHERE pk = 'k' AND sk = 2 AND x > 1",
                   Composite());
  ASSERT_EQ(i.error, "");
  EXPECT_EQ(i.item.size(), 2u);
  EXPECT_EQ(i.item.at("sk"), AttributeValue::Num("2"));
  EXPECT_EQ(i.update, "SET a = S:v, b = b + N:1 REMOVE c");
  EXPECT_EQ(i.condition, "attribute_exists(pk) AND (x > N:1)");
  i = ForItem("UPDATE t SET a = 1 WHERE pk = 'k'", HashOnly());
  EXPECT_EQ(i.condition, "attribute_exists(pk)");
}

TEST(PartiqlPlanItem, UpdateFunctions) {
  Item i = ForItem(
      "UPDATE t SET l = list_append(l, [1]), c = if_not_exists(c, 0), s = set_add(s, <<'x'>>), "
      "d = set_delete(d, <<1, 2>>) WHERE pk = 'k'",
      HashOnly());
  ASSERT_EQ(i.error, "");
  EXPECT_EQ(i.update,
            "SET l = list_append(l, L:), c = if_not_exists(c, N:0) ADD s SS:1 DELETE d NS:2");
  EXPECT_EQ(ForItem("UPDATE t SET s = set_add(x, <<'a'>>) WHERE pk = 'k'", HashOnly()).error,
            "The first argument to SET_ADD must equal the assignment value at 1:18:7");
  EXPECT_EQ(ForItem("UPDATE t SET s = set_add(s, 'a') WHERE pk = 'k'", HashOnly()).error,
            "The second argument to SET_ADD must be a value with type SET at 1:26:1");
  EXPECT_EQ(ForItem("UPDATE t SET s = set_delete(s) WHERE pk = 'k'", HashOnly()).error,
            "SET_DELETE must have exactly two arguments at 1:18:10");
  EXPECT_EQ(ForItem("UPDATE t SET x = 'a' + 1 WHERE pk = 'k'", HashOnly()).error,
            "Incorrect operand type for operator or function; operator or function: +, operand "
            "type: S");
  EXPECT_EQ(ForItem("UPDATE t SET x = nope(1) WHERE pk = 'k'", HashOnly()).error,
            "Unrecognized function: nope at 1:18:4");
}

TEST(PartiqlPlanItem, KeyErrors) {
  const char* no_key = "Where clause does not contain a mandatory equality on all key attributes";
  EXPECT_EQ(ForItem("UPDATE t SET x = 3 WHERE x = 100", HashOnly()).error, no_key);
  EXPECT_EQ(ForItem("UPDATE t SET x = 3", HashOnly()).error, no_key);
  EXPECT_EQ(ForItem("UPDATE t SET x = 3 WHERE pk = 'a' OR pk = 'b'", HashOnly()).error, no_key);
  EXPECT_EQ(ForItem("UPDATE t SET x = 3 WHERE pk IN ['a']", HashOnly()).error, no_key);
  EXPECT_EQ(ForItem("DELETE FROM t WHERE pk = 'a'", Composite()).error, no_key);
  EXPECT_EQ(ForItem("UPDATE t SET x = 3 WHERE pk = 'a' AND pk = 'b'", HashOnly()).error,
            "Multiple conditions on same key pk. Only single item Update/Insert/Delete are "
            "supported");
  EXPECT_EQ(ForItem("DELETE FROM t WHERE pk = 5", HashOnly()).error,
            "Key attribute's data type should match its data type in table's schema: Key pk");
  EXPECT_EQ(ForItem("UPDATE t SET pk = 'q' WHERE pk = 'a'", HashOnly()).error,
            "One or more parameter values were invalid: Cannot update attribute pk. This "
            "attribute is part of the key");
  EXPECT_EQ(ForItem("UPDATE t REMOVE sk WHERE pk = 'a' AND sk = 1", Composite()).error,
            "One or more parameter values were invalid: Cannot update attribute sk. This "
            "attribute is part of the key");
}

TEST(PartiqlPlanItem, DeleteOfAMissingItemIsNotAFailure) {
  Item i = ForItem("DELETE FROM t WHERE pk = 'a'", HashOnly());
  EXPECT_EQ(i.condition, "");
  i = ForItem("DELETE FROM t WHERE pk = 'a' AND y = 99", HashOnly());
  EXPECT_EQ(i.condition, "attribute_not_exists(pk) OR (y = N:99)");
  i = ForItem("DELETE FROM t WHERE pk = 'a' AND y = 99 AND z = 1", HashOnly());
  EXPECT_EQ(i.condition, "attribute_not_exists(pk) OR ((y = N:99) AND (z = N:1))");
  EXPECT_EQ(ForItem("DELETE FROM t WHERE pk = 'a' RETURNING MODIFIED NEW *", HashOnly()).error,
            "Invalid returning clause: RETURNING MODIFIED NEW *. Only RETURNING ALL OLD * is "
            "allowed in DELETE statements.");
}

TEST(PartiqlPlanItem, ExistsAndSingleItemSelect) {
  Item e = ForItem("EXISTS(SELECT * FROM t WHERE pk = 'a' AND x = 1)", HashOnly());
  EXPECT_EQ(e.condition, "attribute_exists(pk) AND (x = N:1)");
  Item s = ForItem("SELECT * FROM t WHERE pk = 'a' AND sk = 1", Composite());
  EXPECT_EQ(s.item.size(), 2u);
  EXPECT_EQ(s.condition, "");
  // Anything beside the key is refused (Prepare words it for the batch or the transaction).
  EXPECT_EQ(ForItem("SELECT * FROM t WHERE pk = 'a' AND sk = 1 AND x = 1", Composite()).error,
            "Where clause does not contain a mandatory equality on all key attributes");
  EXPECT_EQ(ForItem("EXISTS(SELECT * FROM t WHERE pk = 'a')", HashOnly()).error,
            "EXISTS() must contain a single item read with additional condition");
}

TEST(PartiqlProject, NamesValuesByTheirLastStep) {
  model::Item item = {
      {"pk", AttributeValue::String("k")},
      {"m", AttributeValue::OfMap({{"q", AttributeValue::Num("1")}})},
      {"l", AttributeValue::OfList({AttributeValue::Num("1"), AttributeValue::String("b")})}};
  model::Item out = Project(P("SELECT m.q, l[1], pk, nope, l[7], m.z FROM t"), item);
  EXPECT_EQ(out.size(), 3u);
  EXPECT_EQ(out.at("q"), AttributeValue::Num("1"));
  EXPECT_EQ(out.at("l[1]"), AttributeValue::String("b"));
  EXPECT_EQ(out.at("pk"), AttributeValue::String("k"));
  EXPECT_EQ(Project(P("SELECT * FROM t"), item).size(), 3u);
}

}  // namespace
}  // namespace ttlstore::api::partiql
