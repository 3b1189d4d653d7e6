// Parsing and checking of UpdateExpression: the accepted grammar, TargetPaths, and every error
// with DynamoDB's exact wording and precedence.
#include <gtest/gtest.h>

#include "expr/update.h"

namespace ttlstore::expr {
namespace {

using model::AttributeValue;
using model::ValueType;

const std::map<std::string, AttributeValue> kValues = {
    {":v", AttributeValue::String("x")},
    {":w", AttributeValue::String("y")},
    {":s", AttributeValue::String("s")},
    {":n", AttributeValue::Num("1")},
    {":b", AttributeValue::Binary("b")},
    {":bool", AttributeValue::Bool(true)},
    {":null", AttributeValue::Null()},
    {":l", AttributeValue::OfList({})},
    {":m", AttributeValue::OfMap({})},
    {":ss", AttributeValue::Set(ValueType::kSS, {"a"})},
    {":ns", AttributeValue::Set(ValueType::kNS, {"1"})},
    {":bs", AttributeValue::Set(ValueType::kBS, {"a"})},
};
const std::map<std::string, std::string> kNames = {
    {"#a", "a"}, {"#c", "c"}, {"#d", "[3]"}, {"#st", "status"}};

std::string ErrorOf(const std::string& text, std::map<std::string, AttributeValue> values = kValues,
                    std::map<std::string, std::string> names = kNames) {
  Placeholders ph;
  ph.values = std::move(values);
  ph.names = std::move(names);
  auto u = Update::Parse(text, ph);
  return u.ok() ? "" : u.error().message();
}

std::string Msg(const std::string& rest) { return "Invalid UpdateExpression: " + rest; }

void Parses(const std::string& text) { EXPECT_EQ(ErrorOf(text), "") << text; }

TEST(ExprUpdateParse, AcceptsEveryClauseAndValueForm) {
  for (const char* text :
       {"SET a = :v", "SET a.b[2].c = :v, #c = b", "SET a = b + :n", "SET a = :n - b",
        "SET a = if_not_exists(a, :n)", "SET a = list_append(a, :l)",
        "SET a = list_append(if_not_exists(a, :l), :l)", "SET a = if_not_exists(a, :n) + :n",
        "SET a = (b + :n)", "SET a = (b) + (:n)", "SET a = ((b) + :n)", "SET a = (if_not_exists(a, :n))",
        "SET a = if_not_exists((a), (:n))", "SET a = list_append((a), :l)", "REMOVE a, b.c, d[1]",
        "ADD a :n, b :ss", "DELETE a :ss, b :ns", "SET a = :v REMOVE b ADD c :n DELETE d :bs",
        "DELETE d :bs ADD c :n REMOVE b SET a = :v"}) {
    Parses(text);
  }
}

TEST(ExprUpdateParse, KeywordsAreCaseInsensitive) {
  Parses("set a = :v remove b Add c :n dElEtE d :ss");
}

TEST(ExprUpdateParse, RejectsEmptyExpressions) {
  EXPECT_EQ(ErrorOf(""), Msg("The expression can not be empty;"));
  EXPECT_EQ(ErrorOf(" "), Msg("The expression can not be empty;"));
}

TEST(ExprUpdateParse, RejectsExpressionsOver4KB) {
  std::string text = "SET a = :v";
  while (text.size() <= 4096) text += ", a = :v";
  // No "; expression size: N" for updates (aws/aws-sdk-java-v2#4597, a real-service trace).
  EXPECT_EQ(ErrorOf(text), Msg("Expression size has exceeded the maximum allowed size;"));
}

TEST(ExprUpdateParse, SyntaxErrorsQuoteTheTokenAndItsNeighbours) {
  EXPECT_EQ(ErrorOf("INVALID SYNTAX HERE"),
            Msg("Syntax error; token: \"INVALID\", near: \"INVALID SYNTAX\""));
  EXPECT_EQ(ErrorOf("SET a"), Msg("Syntax error; token: \"<EOF>\", near: \"a\""));
  EXPECT_EQ(ErrorOf("SET a = b + c + d"), Msg("Syntax error; token: \"+\", near: \"c + d\""));
  EXPECT_EQ(ErrorOf("REMOVE a b"), Msg("Syntax error; token: \"b\", near: \"a b\""));
  EXPECT_EQ(ErrorOf("ADD a b"), Msg("Syntax error; token: \"b\", near: \"a b\""));
  EXPECT_EQ(ErrorOf("SET :a = b"), Msg("Syntax error; token: \":a\", near: \"SET :a =\""));
  EXPECT_EQ(ErrorOf("SET set = :v"), Msg("Syntax error; token: \"set\", near: \"SET set =\""));
}

TEST(ExprUpdateParse, RejectsMalformedUpdates) {
  for (const char* text : {"whatever",
                           "set a",
                           "add a",
                           "delete a",
                           "set a=set",
                           "remove a = b",
                           "add a = b",
                           "delete a = b",
                           "delete a b",
                           "delete a if_not_exists(b)",
                           "add a if_not_exists(b)",
                           "set a b",
                           "add :a b",
                           "delete :a b",
                           "remove :a",
                           "set a = b / c",
                           "set a = b * c",
                           "set a[1] = \"eight\"",
                           "set a[1] = 1",
                           "SET if_not_exists(a, b) = a",
                           "set (a = (b + c))",
                           "set a = (b.c).d + e",
                           "set a = (b.c)[0] + e",
                           "SET a = :v,",
                           "SET a = :v REMOVE",
                           "SET a = f()",
                           "SET a = (b + c",
                           "REMOVE a[x]"}) {
    std::string e = ErrorOf(text);
    EXPECT_EQ(e.rfind(Msg("Syntax error; token: "), 0), 0u) << text << " -> " << e;
  }
}

TEST(ExprUpdateParse, RejectsBareReservedWords) {
  const std::string m = "Attribute name is a reserved keyword; reserved keyword: ";
  EXPECT_EQ(ErrorOf("SET status = :v"), Msg(m + "status"));
  EXPECT_EQ(ErrorOf("SET a = if_not_exists(Count, :n)"), Msg(m + "Count"));
  EXPECT_EQ(ErrorOf(" remove Absolute "), Msg(m + "Absolute"));
  Parses("SET #st = :v");
}

TEST(ExprUpdateParse, RejectsUnknownFunctions) {
  // The condition functions have their own message (DynamoDB Local).
  EXPECT_EQ(ErrorOf("SET a = size(b)"),
            Msg("The function is not allowed in an update expression; function: size"));
  EXPECT_EQ(ErrorOf("SET a = list_append(contains(a, :n), :l)"),
            Msg("The function is not allowed in an update expression; function: contains"));
  EXPECT_EQ(ErrorOf("SET a = if_not_exist(a, :n)"),
            Msg("Invalid function name; function: if_not_exist"));
  EXPECT_EQ(ErrorOf("SET a = list_append(a, LIST_APPEND(:l, :l))"),
            Msg("Invalid function name; function: LIST_APPEND"));
}

TEST(ExprUpdateParse, RejectsAClauseUsedTwice) {
  EXPECT_EQ(ErrorOf("SET a = :v SET b = :v"),
            Msg("The \"SET\" section can only be used once in an update expression;"));
  EXPECT_EQ(ErrorOf("REMOVE a SET b = :v REMOVE c"),
            Msg("The \"REMOVE\" section can only be used once in an update expression;"));
  EXPECT_EQ(ErrorOf("add a :n set b = :v ADD c :n"),
            Msg("The \"ADD\" section can only be used once in an update expression;"));
  EXPECT_EQ(ErrorOf("DELETE a :ss DELETE b :ss"),
            Msg("The \"DELETE\" section can only be used once in an update expression;"));
}

TEST(ExprUpdateParse, RejectsUndefinedPlaceholders) {
  EXPECT_EQ(ErrorOf("SET attr1 = :v", {}),
            Msg("An expression attribute value used in expression is not defined; attribute "
                "value: :v"));
  EXPECT_EQ(ErrorOf("SET #x = :v"),
            Msg("An expression attribute name used in the document path is not defined; "
                "attribute name: #x"));
  // Undefined names are reported before undefined values, wherever they are.
  EXPECT_EQ(ErrorOf("SET a = :nope, #x = :v"),
            Msg("An expression attribute name used in the document path is not defined; "
                "attribute name: #x"));
}

TEST(ExprUpdateParse, RejectsOverlappingPaths) {
  const std::string m =
      "Two document paths overlap with each other; must remove or rewrite one of these paths; ";
  EXPECT_EQ(ErrorOf("SET a = :v, a.b = :v"), Msg(m + "path one: [a], path two: [a, b]"));
  EXPECT_EQ(ErrorOf("SET a = :v REMOVE a"), Msg(m + "path one: [a], path two: [a]"));
  EXPECT_EQ(ErrorOf("SET #a = :v, a = :w"), Msg(m + "path one: [a], path two: [a]"));
  EXPECT_EQ(ErrorOf("set #c[3].#d = a, #c[3] = a"),
            Msg(m + "path one: [c, [3], [3]], path two: [c, [3]]"));
  // An overlap is reported even when a conflict comes earlier.
  EXPECT_EQ(ErrorOf("set d[1] = a, d.b = a, c[1].a = a, #c = if_not_exists(a, :v)"),
            Msg(m + "path one: [c, [1], a], path two: [c]"));
}

TEST(ExprUpdateParse, RejectsConflictingPaths) {
  const std::string m =
      "Two document paths conflict with each other; must remove or rewrite one of these paths; ";
  EXPECT_EQ(ErrorOf("remove a.#c set a[1] = b"), Msg(m + "path one: [a, c], path two: [a, [1]]"));
  EXPECT_EQ(ErrorOf("set #c[3].#d = a, #c.#d[3] = if_not_exists(a, :v)"),
            Msg(m + "path one: [c, [3], [3]], path two: [c, [3], [3]]"));
  Parses("SET a.b = :v, a.c = :v, l[0] = :v, l[1] = :v");
}

TEST(ExprUpdateParse, RejectsAddAndDeleteOperandsOfTheWrongType) {
  const std::string m = "Incorrect operand type for operator or function; operator: ";
  EXPECT_EQ(ErrorOf("ADD a :s"), Msg(m + "ADD, operand type: STRING"));
  EXPECT_EQ(ErrorOf("ADD a :b"), Msg(m + "ADD, operand type: BINARY"));
  EXPECT_EQ(ErrorOf("ADD a :bool"), Msg(m + "ADD, operand type: BOOLEAN"));
  EXPECT_EQ(ErrorOf("ADD a :null"), Msg(m + "ADD, operand type: NULL"));
  EXPECT_EQ(ErrorOf("ADD a :l"), Msg(m + "ADD, operand type: LIST"));
  EXPECT_EQ(ErrorOf("ADD a :m"), Msg(m + "ADD, operand type: MAP"));
  EXPECT_EQ(ErrorOf("DELETE a :n"), Msg(m + "DELETE, operand type: NUMBER"));
  EXPECT_EQ(ErrorOf("DELETE a :s"), Msg(m + "DELETE, operand type: STRING"));
  Parses("ADD a :n, b :ss, c :ns, d :bs");
}

TEST(ExprUpdateParse, RejectsMisusedFunctions) {
  EXPECT_EQ(ErrorOf("SET a = if_not_exists(c)"),
            Msg("Incorrect number of operands for operator or function; operator or function: "
                "if_not_exists, number of operands: 1"));
  EXPECT_EQ(ErrorOf("SET a = list_append(a, :l, :l)"),
            Msg("Incorrect number of operands for operator or function; operator or function: "
                "list_append, number of operands: 3"));
  EXPECT_EQ(ErrorOf("SET a = if_not_exists(:v, c)"),
            Msg("Operator or function requires a document path; operator or function: "
                "if_not_exists"));
  EXPECT_EQ(ErrorOf("SET a = if_not_exists(if_not_exists(a, b), c)"),
            Msg("Operator or function requires a document path; operator or function: "
                "if_not_exists"));
}

TEST(ExprUpdateParse, RejectsArithmeticAndListAppendOnWrongValueTypes) {
  const std::string m = "Incorrect operand type for operator or function; operator or function: ";
  EXPECT_EQ(ErrorOf("SET a = list_append(:v, a)"), Msg(m + "list_append, operand type: S"));
  EXPECT_EQ(ErrorOf("SET a = list_append(a, :n)"), Msg(m + "list_append, operand type: N"));
  EXPECT_EQ(ErrorOf("SET a = list_append(:ss, a)"), Msg(m + "list_append, operand type: SS"));
  EXPECT_EQ(ErrorOf("SET a = a + :v"), Msg(m + "+, operand type: S"));
  EXPECT_EQ(ErrorOf("SET a = :b - a"), Msg(m + "-, operand type: B"));
  EXPECT_EQ(ErrorOf("SET a = a + :l"), Msg(m + "+, operand type: L"));
  EXPECT_EQ(ErrorOf("SET a = :n + if_not_exists(b, :v)"), "");  // only :values are typed early
}

TEST(ExprUpdateParse, ErrorKindsArePrioritisedAsTheServiceDoes) {
  // Reserved words before a repeated clause.
  EXPECT_EQ(ErrorOf(" set #c = :v set abOrt = :v "),
            Msg("Attribute name is a reserved keyword; reserved keyword: abOrt"));
  // Unknown functions before a repeated clause.
  EXPECT_EQ(ErrorOf("SET a = foo(:v) SET b = :v"), Msg("Invalid function name; function: foo"));
  // A repeated clause before undefined placeholders.
  EXPECT_EQ(ErrorOf("SET a = :nope SET b = :v"),
            Msg("The \"SET\" section can only be used once in an update expression;"));
  // Undefined placeholders before overlapping paths.
  EXPECT_EQ(ErrorOf("SET a = :nope, a = :v"),
            Msg("An expression attribute value used in expression is not defined; attribute "
                "value: :nope"));
  // Overlaps before operand types, operand types before function misuse.
  EXPECT_EQ(ErrorOf("ADD a :s SET a = :v"),
            Msg("Two document paths overlap with each other; must remove or rewrite one of "
                "these paths; path one: [a], path two: [a]"));
  EXPECT_EQ(ErrorOf("SET a = b + :v ADD c :s"),
            Msg("Incorrect operand type for operator or function; operator: ADD, operand type: "
                "STRING"));
}

TEST(ExprUpdateParse, TargetPathsAreResolvedAndInExpressionOrder) {
  Placeholders ph;
  ph.values = kValues;
  ph.names = kNames;
  auto u = Update::Parse("SET a.b = :v REMOVE c[2] ADD #st :n DELETE #d :ss", ph);
  ASSERT_TRUE(u.ok()) << u.error().message();
  std::vector<std::string> paths;
  for (const Path& p : u->TargetPaths()) paths.push_back(PathToString(p));
  EXPECT_EQ(paths, (std::vector<std::string>{"[a, b]", "[c, [2]]", "[status]", "[[3]]"}));
}

TEST(ExprUpdateParse, RecordsTheUsedPlaceholders) {
  Placeholders ph;
  ph.values = kValues;
  ph.names = kNames;
  auto u = Update::Parse("SET #a = if_not_exists(#c, :v) + :n REMOVE x", ph);
  ASSERT_TRUE(u.ok()) << u.error().message();
  EXPECT_EQ(ph.used_names, (std::set<std::string>{"#a", "#c"}));
  EXPECT_EQ(ph.used_values, (std::set<std::string>{":v", ":n"}));
}

TEST(ExprUpdateParse, AcceptsTheLegacyTranslationsForm) {
  // api/legacy.cc turns AttributeUpdates into expressions with generated placeholders.
  Placeholders ph;
  ph.names = {{"#_l0", "a"}, {"#_l2", "b"}};
  ph.values = {{":_l1", AttributeValue::OfList({})}, {":_l3", AttributeValue::OfList({})}};
  auto u =
      Update::Parse("SET #_l0 = list_append(if_not_exists(#_l0, :_l3), :_l1) REMOVE #_l2 ", ph);
  EXPECT_TRUE(u.ok()) << u.error().message();
}

}  // namespace
}  // namespace ttlstore::expr
