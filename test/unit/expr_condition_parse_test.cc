// Parsing and checking of ConditionExpression / FilterExpression: what is accepted, and every
// error with DynamoDB's exact wording and precedence.
#include <gtest/gtest.h>

#include "expr/condition.h"

namespace ttlstore::expr {
namespace {

using model::AttributeValue;

struct Values {
  std::map<std::string, std::string> names;
  std::map<std::string, AttributeValue> values;
};

Placeholders Ph(const Values& v) {
  Placeholders ph;
  ph.names = v.names;
  ph.values = v.values;
  return ph;
}

// The error message of parsing `text` as a ConditionExpression ("" if it parsed).
std::string ErrorOf(const std::string& text, const Values& v = {},
                    const std::string& kind = "ConditionExpression") {
  Placeholders ph = Ph(v);
  auto c = Condition::Parse(text, kind, ph);
  return c.ok() ? "" : c.error().message();
}

bool Parses(const std::string& text, const Values& v = {}) {
  std::string e = ErrorOf(text, v);
  EXPECT_EQ(e, "") << text;
  return e.empty();
}

const Values kCommon = {{{"#a", "a"}, {"#n", "name"}},
                        {{":s", AttributeValue::String("x")},
                         {":t", AttributeValue::String("y")},
                         {":n", AttributeValue::Num("1")},
                         {":ten", AttributeValue::Num("10")},
                         {":nine", AttributeValue::Num("9")},
                         {":b", AttributeValue::Bool(true)},
                         {":null", AttributeValue::Null()},
                         {":l", AttributeValue::OfList({})},
                         {":ss", AttributeValue::Set(model::ValueType::kSS, {"a"})}}};

constexpr char kPrefix[] = "Invalid ConditionExpression: ";

std::string Msg(const std::string& rest) { return kPrefix + rest; }

TEST(ExprConditionParse, AcceptsEveryComparatorAndConstruct) {
  for (const char* text :
       {"a = :s", "a <> :s", "a < :s", "a <= :s", "a > :s", "a >= :s", "a BETWEEN :s AND :t",
        "a IN (:s, :t)", "attribute_exists(a)", "attribute_not_exists(a.b[2].c)",
        "attribute_type(a, :s)", "begins_with(a, :s)", "contains(a, :s)", "size(a) > :n",
        "a = :s AND b = :t OR NOT c = :s", "a = b", "#n = :s"}) {
    Values v = kCommon;
    v.values[":s"] = AttributeValue::String("S");
    Parses(text, v);
  }
}

TEST(ExprConditionParse, KeywordsAreCaseInsensitive) {
  Parses("a between :s and :t Or not b in (:s) AnD c = :s", kCommon);
}

TEST(ExprConditionParse, AcceptsParenthesesThatAreNotRedundant) {
  for (const char* text : {"(a = :s)", "(a = :s) AND (b = :s)", "(a = :s AND (b = :s))",
                           "((a = :s) OR (b = :s)) AND c = :s", "NOT (a = :s)", "(a) = :s",
                           "((a) = :s)", "(a)between(:s)and(:t)", "a IN ((:s), :t)",
                           "size((a)) > :n"}) {
    Parses(text, kCommon);
  }
}

TEST(ExprConditionParse, AParenthesisedPathCannotGoOn) {
  // DynamoDB Local (the service's expression front end) fails at the token after the ')',
  // before it would notice redundant parentheses.
  EXPECT_EQ(ErrorOf("(a.b).c = :s", kCommon), Msg("Syntax error; token: \".\", near: \").c\""));
  EXPECT_EQ(ErrorOf("(a)[1] = :s", kCommon), Msg("Syntax error; token: \"[\", near: \")[1\""));
  EXPECT_EQ(ErrorOf("((a)).b = :s", kCommon), Msg("Syntax error; token: \".\", near: \").b\""));
}

TEST(ExprConditionParse, AcceptsNotNotAndBetweenFollowedByAnd) {
  Parses("NOT NOT a = :s", kCommon);
  Parses("a BETWEEN :s AND :t AND begins_with(b, :s)", kCommon);
}

TEST(ExprConditionParse, RejectsEmptyAndBlankExpressions) {
  EXPECT_EQ(ErrorOf(""), Msg("The expression can not be empty;"));
  EXPECT_EQ(ErrorOf("  \t"), Msg("The expression can not be empty;"));
  EXPECT_EQ(ErrorOf("", {}, "FilterExpression"),
            "Invalid FilterExpression: The expression can not be empty;");
}

TEST(ExprConditionParse, RejectsExpressionsOver4KB) {
  std::string text = "a = :s";
  while (text.size() <= 4096) text += " OR a = :s";
  EXPECT_EQ(ErrorOf(text, kCommon),
            Msg("Expression size has exceeded the maximum allowed size; expression size: " +
                std::to_string(text.size())));
}

TEST(ExprConditionParse, SyntaxErrorsQuoteTheTokenAndItsNeighbours) {
  EXPECT_EQ(ErrorOf("things are not gonna be ok"),
            Msg("Syntax error; token: \"are\", near: \"things are not\""));
  EXPECT_EQ(ErrorOf("a > 4"), Msg("Syntax error; token: \"4\", near: \"> 4\""));
  EXPECT_EQ(ErrorOf("a = = :s"), Msg("Syntax error; token: \"=\", near: \"= = :s\""));
  EXPECT_EQ(ErrorOf("a in b"), Msg("Syntax error; token: \"b\", near: \"in b\""));
  EXPECT_EQ(ErrorOf("\xC3\xBC > a"),
            Msg("Syntax error; token: \"\xC3\xBC\", near: \"\xC3\xBC >\""));
}

TEST(ExprConditionParse, SyntaxErrorAtTheEndQuotesEOF) {
  EXPECT_EQ(ErrorOf("a = "), Msg("Syntax error; token: \"<EOF>\", near: \"= \""));
  EXPECT_EQ(ErrorOf("(a = :s"), Msg("Syntax error; token: \"<EOF>\", near: \":s\""));
  EXPECT_EQ(ErrorOf("a."), Msg("Syntax error; token: \"<EOF>\", near: \".\""));
}

TEST(ExprConditionParse, RejectsMalformedConstructs) {
  for (const char* text : {"a BETWEEN :s :t",
                           "a IN (:s,)",
                           "a IN ()",
                           "attribute_exists()",
                           "a.in = :s",
                           "size(a).b > :n",
                           "(size(a))[0] > :n",
                           "a[x] = :s",
                           "a[-1] = :s",
                           "a > :s.b",
                           "#a(b) = :s",
                           "a = :s b = :t",
                           "attribute_exists(\"a\")",
                           "a = :s AND",
                           "NOT",
                           "a <> <> :s",
                           "a BETWEEN :s",
                           ") a = :s",
                           "a = :s)",
                           "a IN :s",
                           "b[:s] > a"}) {
    std::string e = ErrorOf(text, kCommon);
    EXPECT_EQ(e.rfind(Msg("Syntax error; token: "), 0), 0u) << text << " -> " << e;
  }
}

TEST(ExprConditionParse, RejectsPathsDeeperThan32) {
  std::string path = "a";
  for (int i = 0; i < 32; ++i) path += ".a";
  EXPECT_EQ(ErrorOf(path + " = :s", kCommon),
            Msg("The document path has too many nesting levels; nesting levels: 33"));
  std::string ok = "a";
  for (int i = 0; i < 31; ++i) ok += "[0]";
  Parses(ok + " = :s", kCommon);
}

TEST(ExprConditionParse, RejectsRedundantParentheses) {
  for (const char* text :
       {"((a = :s))", "a = :s AND ((b = :s))", "((a)) = :s",
        "a = :s OR ((b = :s OR c = :s)) OR d = :s", "NOT ((a = :s))", "size(((a))) > :n"}) {
    EXPECT_EQ(ErrorOf(text, kCommon), Msg("The expression has redundant parentheses;")) << text;
  }
}

TEST(ExprConditionParse, RejectsUnknownFunctionsCaseSensitively) {
  EXPECT_EQ(ErrorOf("foo(a)"), Msg("Invalid function name; function: foo"));
  EXPECT_EQ(ErrorOf("ATTRIBUTE_EXISTS(a)"),
            Msg("Invalid function name; function: ATTRIBUTE_EXISTS"));
  EXPECT_EQ(ErrorOf("a = :s AND Size(a) > :n", kCommon),
            Msg("Invalid function name; function: Size"));
  EXPECT_EQ(ErrorOf("foo(a) = :s", kCommon), Msg("Invalid function name; function: foo"));
}

TEST(ExprConditionParse, RejectsFunctionsUsedInTheWrongPlace) {
  const std::string m =
      "The function is not allowed to be used this way in an expression; function: ";
  EXPECT_EQ(ErrorOf("attribute_exists(a) = :s", kCommon), Msg(m + "attribute_exists"));
  EXPECT_EQ(ErrorOf("size(a)", kCommon), Msg(m + "size"));
  EXPECT_EQ(ErrorOf("size(a) AND b = :s", kCommon), Msg(m + "size"));
  EXPECT_EQ(ErrorOf("NOT size(a)", kCommon), Msg(m + "size"));
  EXPECT_EQ(ErrorOf("size(contains(a, :s)) > :n", kCommon), Msg(m + "contains"));
  EXPECT_EQ(ErrorOf("a BETWEEN :s AND attribute_exists(b)", kCommon), Msg(m + "attribute_exists"));
  EXPECT_EQ(ErrorOf("a IN (:s, begins_with(b, :s))", kCommon), Msg(m + "begins_with"));
}

TEST(ExprConditionParse, RejectsBareReservedWords) {
  const std::string m = "Attribute name is a reserved keyword; reserved keyword: ";
  EXPECT_EQ(ErrorOf("status = :s", kCommon), Msg(m + "status"));
  EXPECT_EQ(ErrorOf("a.Name = :s", kCommon), Msg(m + "Name"));
  EXPECT_EQ(ErrorOf("size(data) > :n", kCommon), Msg(m + "data"));
  EXPECT_EQ(ErrorOf("status = :s", kCommon, "FilterExpression"),
            "Invalid FilterExpression: " + m + "status");
  Parses("#n = :s", kCommon);  // through a placeholder it is fine
}

TEST(ExprConditionParse, RejectsUndefinedPlaceholders) {
  EXPECT_EQ(ErrorOf("#x = :s", kCommon),
            Msg("An expression attribute name used in the document path is not defined; "
                "attribute name: #x"));
  EXPECT_EQ(ErrorOf("a = :v"),
            Msg("An expression attribute value used in expression is not defined; attribute "
                "value: :v"));
  EXPECT_EQ(
      ErrorOf("#missing = :fv", {{}, {{":fv", AttributeValue::String("x")}}}, "FilterExpression"),
      "Invalid FilterExpression: An expression attribute name used in the document path "
      "is not defined; attribute name: #missing");
}

TEST(ExprConditionParse, FirstUndefinedPlaceholderInTextWins) {
  EXPECT_EQ(ErrorOf(":v = #x"),
            Msg("An expression attribute value used in expression is not defined; attribute "
                "value: :v"));
  EXPECT_EQ(ErrorOf("a = :s AND #x = :v", kCommon),
            Msg("An expression attribute name used in the document path is not defined; "
                "attribute name: #x"));
}

TEST(ExprConditionParse, RejectsWrongOperandCounts) {
  const std::string m =
      "Incorrect number of operands for operator or function; operator or function: ";
  EXPECT_EQ(ErrorOf("attribute_exists(a, b)"), Msg(m + "attribute_exists, number of operands: 2"));
  EXPECT_EQ(ErrorOf("attribute_type(a)"), Msg(m + "attribute_type, number of operands: 1"));
  EXPECT_EQ(ErrorOf("begins_with(a, :s, :t)", kCommon),
            Msg(m + "begins_with, number of operands: 3"));
  EXPECT_EQ(ErrorOf("contains(a)"), Msg(m + "contains, number of operands: 1"));
  EXPECT_EQ(ErrorOf("size(a, b) > :n", kCommon), Msg(m + "size, number of operands: 2"));
}

TEST(ExprConditionParse, RejectsInWithMoreThan100Operands) {
  Values v;
  std::string list;
  for (int i = 0; i < 101; ++i) {
    std::string ref = ":v" + std::to_string(i);
    v.values[ref] = AttributeValue::Num(std::to_string(i));
    if (i < 100) list += (list.empty() ? "" : ", ") + ref;
  }
  Parses("a IN (" + list + ")", v);
  EXPECT_EQ(ErrorOf("a IN (" + list + ", :v100)", v),
            Msg("The IN operator is provided with too many operands; number of operands: 101"));
}

TEST(ExprConditionParse, RejectsIdenticalOperands) {
  const std::string m =
      "The first operand must be distinct from the remaining operands for this "
      "operator or function; operator: ";
  EXPECT_EQ(ErrorOf("a = a"), Msg(m + "=, first operand: [a]"));
  EXPECT_EQ(ErrorOf("#a <> a", kCommon), Msg(m + "<>, first operand: [a]"));
  EXPECT_EQ(ErrorOf("contains(a.b[1], a.b[1])"), Msg(m + "contains, first operand: [a, b, [1]]"));
  Parses(":s = :s", kCommon);
}

TEST(ExprConditionParse, RejectsOperandTypesKnownFromValues) {
  const std::string m = "Incorrect operand type for operator or function; operator or function: ";
  EXPECT_EQ(ErrorOf("begins_with(a, :n)", kCommon), Msg(m + "begins_with, operand type: N"));
  EXPECT_EQ(ErrorOf("begins_with(:ss, a)", kCommon), Msg(m + "begins_with, operand type: SS"));
  EXPECT_EQ(ErrorOf("begins_with(a, size(b))", kCommon), Msg(m + "begins_with, operand type: N"));
  EXPECT_EQ(ErrorOf("size(:b) > :n", kCommon), Msg(m + "size, operand type: BOOL"));
  EXPECT_EQ(ErrorOf("size(size(a)) > :n", kCommon), Msg(m + "size, operand type: N"));
  EXPECT_EQ(ErrorOf("a < :b", kCommon), Msg(m + "<, operand type: BOOL"));
  EXPECT_EQ(ErrorOf(":l >= a", kCommon), Msg(m + ">=, operand type: L"));
  Parses("size(:s) > :n", kCommon);
  Parses("a = :b AND a <> :l", kCommon);
}

TEST(ExprConditionParse, AttributeTypeNeedsAKnownTypeName) {
  const std::string m = "Incorrect operand type for operator or function; operator or function: ";
  EXPECT_EQ(ErrorOf("attribute_type(a, :n)", kCommon), Msg(m + "attribute_type, operand type: N"));
  EXPECT_EQ(ErrorOf("attribute_type(a, b)", kCommon),
            Msg(m + "attribute_type, operand type: {NS,SS,L,BS,N,M,B,BOOL,NULL,S}"));
  Values v = kCommon;
  v.values[":t"] = AttributeValue::String("STRING");
  EXPECT_EQ(ErrorOf("attribute_type(a, :t)", v),
            Msg("Invalid attribute type name found; type: STRING, valid types: "
                "{B,NULL,SS,BOOL,L,BS,N,NS,S,M}"));
  for (const char* t : {"S", "N", "B", "BOOL", "NULL", "M", "L", "SS", "NS", "BS"}) {
    v.values[":t"] = AttributeValue::String(t);
    Parses("attribute_type(a, :t)", v);
  }
}

TEST(ExprConditionParse, ExistenceFunctionsNeedAPath) {
  EXPECT_EQ(ErrorOf("attribute_exists(:s)", kCommon),
            Msg("Operator or function requires a document path; operator or function: "
                "attribute_exists"));
  EXPECT_EQ(ErrorOf("attribute_not_exists(size(:s))", kCommon),
            Msg("Operator or function requires a document path; operator or function: "
                "attribute_not_exists"));
}

TEST(ExprConditionParse, BetweenBoundsMustShareATypeAndBeOrdered) {
  EXPECT_EQ(ErrorOf("a BETWEEN :n AND :s", kCommon),
            Msg("The BETWEEN operator requires same data type for lower and upper bounds; "
                "lower bound operand: AttributeValue: {N:1}, upper bound operand: "
                "AttributeValue: {S:x}"));
  EXPECT_EQ(ErrorOf("a BETWEEN :t AND :s", kCommon),
            Msg("The BETWEEN operator requires upper bound to be greater than or equal to lower "
                "bound; lower bound operand: AttributeValue: {S:y}, upper bound operand: "
                "AttributeValue: {S:x}"));
  // Numbers are ordered by value, not text: 10 > 9.
  EXPECT_EQ(ErrorOf("a BETWEEN :ten AND :nine", kCommon),
            Msg("The BETWEEN operator requires upper bound to be greater than or equal to lower "
                "bound; lower bound operand: AttributeValue: {N:10}, upper bound operand: "
                "AttributeValue: {N:9}"));
  Parses("a BETWEEN :nine AND :ten", kCommon);
  Parses("a BETWEEN :s AND :s", kCommon);
  Values v = {{},
              {{":lo", AttributeValue::Binary("\x02")}, {":hi", AttributeValue::Binary("\x01")}}};
  EXPECT_EQ(ErrorOf("a BETWEEN :lo AND :hi", v),
            Msg("The BETWEEN operator requires upper bound to be greater than or equal to lower "
                "bound; lower bound operand: AttributeValue: {B:Ag==}, upper bound operand: "
                "AttributeValue: {B:AQ==}"));
}

TEST(ExprConditionParse, ErrorKindsArePrioritisedAsTheServiceDoes) {
  // Syntax errors before the redundant parentheses come first; redundant parentheses are
  // reported as soon as they close, so before a syntax error after them (DynamoDB Local).
  EXPECT_EQ(ErrorOf("a = = :v AND ((status = :v))"),
            Msg("Syntax error; token: \"=\", near: \"= = :v\""));
  EXPECT_EQ(ErrorOf("((a = = :v))"), Msg("Syntax error; token: \"=\", near: \"= = :v\""));
  EXPECT_EQ(ErrorOf("((status = :v)) AND"), Msg("The expression has redundant parentheses;"));
  // Redundant parentheses before unknown functions.
  EXPECT_EQ(ErrorOf("((foo(a)))"), Msg("The expression has redundant parentheses;"));
  // Unknown functions before misused ones.
  EXPECT_EQ(ErrorOf("size(a) AND foo(b)"), Msg("Invalid function name; function: foo"));
  // Misused functions before reserved words.
  EXPECT_EQ(ErrorOf("status = :v AND attribute_exists(a) = :v"),
            Msg("The function is not allowed to be used this way in an expression; function: "
                "attribute_exists"));
  // Reserved words before undefined placeholders.
  EXPECT_EQ(ErrorOf(":v < abort"),
            Msg("Attribute name is a reserved keyword; reserved keyword: abort"));
  // Within one condition: undefined placeholders, then counts, then distinctness, then types.
  EXPECT_EQ(ErrorOf("attribute_exists(#x, :v)"),
            Msg("An expression attribute name used in the document path is not defined; "
                "attribute name: #x"));
  EXPECT_EQ(ErrorOf("begins_with(a, a, :n)", kCommon),
            Msg("Incorrect number of operands for operator or function; operator or function: "
                "begins_with, number of operands: 3"));
  // Across conditions, the first condition with any problem decides.
  EXPECT_EQ(ErrorOf("begins_with(a, :n) AND #x = :s", kCommon),
            Msg("Incorrect operand type for operator or function; operator or function: "
                "begins_with, operand type: N"));
}

TEST(ExprConditionParse, RecordsTheUsedPlaceholders) {
  Placeholders ph = Ph({{{"#a", "a"}, {"#unused", "u"}},
                        {{":v", AttributeValue::String("x")},
                         {":w", AttributeValue::String("y")},
                         {":unused", AttributeValue::String("z")}}});
  auto c = Condition::Parse("#a = :v AND b IN (:w, :v)", "ConditionExpression", ph);
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_EQ(ph.used_names, std::set<std::string>{"#a"});
  EXPECT_EQ(ph.used_values, (std::set<std::string>{":v", ":w"}));
}

TEST(ExprConditionParse, AcceptsTheLegacyTranslationsForm) {
  // api/legacy.cc turns Expected into expressions with generated placeholders.
  Values v = {{{"#_l0", "a"}, {"#_l2", "b"}},
              {{":_l1", AttributeValue::String("x")}, {":_l3", AttributeValue::String("y")}}};
  Parses("(#_l0 = :_l1) AND (NOT contains(#_l2, :_l3))", v);
}

}  // namespace
}  // namespace ttlstore::expr
