// PartiQL lexer and parser: every construct, and the errors for malformed statements.
#include <gtest/gtest.h>

#include <functional>

#include "api/partiql/lexer.h"
#include "api/partiql/parser.h"

namespace ttlstore::api::partiql {
namespace {

Statement MustParse(const std::string& text) {
  auto s = Parse(text);
  EXPECT_TRUE(s.ok()) << text << " -> " << (s.ok() ? "" : s.error().message());
  return s.ok() ? std::move(*s) : Statement();
}

std::string ParseError(const std::string& text) {
  auto s = Parse(text);
  EXPECT_FALSE(s.ok()) << text;
  if (s.ok()) return "";
  EXPECT_EQ(s.error().code(), ErrorCode::kValidation);
  return s.error().message();
}

bool IsMalformed(const std::string& message) { return message.rfind(kMalformed, 0) == 0; }

TEST(PartiqlLexer, SplitsTokensWithPositions) {
  auto tokens = Lex("SELECT \"a b\", 'it''s' FROM\n  t WHERE x<=1.5e3 -- comment\n/* c */ <<");
  ASSERT_TRUE(tokens.ok());
  const auto& t = *tokens;
  ASSERT_EQ(t.size(), 12u);
  EXPECT_TRUE(t[0].IsKeyword("select"));
  EXPECT_EQ(t[1].kind, Token::Kind::kQuotedIdentifier);
  EXPECT_EQ(t[1].text, "a b");
  EXPECT_TRUE(t[2].IsPunct(","));
  EXPECT_EQ(t[3].kind, Token::Kind::kString);
  EXPECT_EQ(t[3].text, "it's");
  EXPECT_EQ(t[5].text, "t");
  EXPECT_EQ(t[5].pos.line, 2);
  EXPECT_EQ(t[5].pos.column, 3);
  EXPECT_TRUE(t[8].IsPunct("<="));
  EXPECT_EQ(t[9].kind, Token::Kind::kNumber);
  EXPECT_EQ(t[9].text, "1.5e3");
  EXPECT_TRUE(t[10].IsPunct("<<"));
  EXPECT_EQ(t[11].kind, Token::Kind::kEnd);
}

TEST(PartiqlLexer, DoubledQuotesEscapeInIdentifiers) {
  auto tokens = Lex("\"a\"\"b\"");
  ASSERT_TRUE(tokens.ok());
  EXPECT_EQ((*tokens)[0].text, "a\"b");
}

TEST(PartiqlLexer, RejectsUnterminatedLiteralsAndStrayCharacters) {
  for (const char* text :
       {"SELECT * FROM t WHERE a = 'x", "SELECT * FROM \"t", "SELECT # FROM t"}) {
    auto tokens = Lex(text);
    ASSERT_FALSE(tokens.ok()) << text;
    EXPECT_TRUE(IsMalformed(tokens.error().message())) << tokens.error().message();
  }
}

TEST(PartiqlParser, SelectStar) {
  Statement s = MustParse("SELECT * FROM \"Music\"");
  EXPECT_EQ(s.kind, Statement::Kind::kSelect);
  EXPECT_TRUE(s.select_all);
  EXPECT_EQ(s.table, "Music");
  EXPECT_FALSE(s.where.has_value());
  EXPECT_FALSE(s.index.has_value());
}

TEST(PartiqlParser, SelectPathsIndexAndLowerCaseKeywords) {
  Statement s = MustParse("select a, b.c, d[2].e, \"f g\"['h'] from t.\"idx\" where a = 1;");
  ASSERT_EQ(s.projection.size(), 4u);
  EXPECT_EQ(s.table, "t");
  EXPECT_EQ(s.index, "idx");
  ASSERT_EQ(s.projection[2].size(), 3u);
  EXPECT_EQ(s.projection[2][1].index, 2);
  EXPECT_EQ(s.projection[3][0].name, "f g");
  EXPECT_EQ(s.projection[3][1].name, "h");
  EXPECT_EQ(OutputName(s.projection[1]), "c");
  EXPECT_EQ(OutputName(s.projection[3]), "h");
  EXPECT_EQ(OutputName({{"l", -1}, {"", 1}}), "l[1]");
}

TEST(PartiqlParser, RejectsDuplicateSelectNames) {
  EXPECT_EQ(ParseError("SELECT x, a.x FROM t"), "Duplicate identifiers in select clause: x");
}

TEST(PartiqlParser, WherePrecedenceIsOrAndNot) {
  Statement s = MustParse("SELECT * FROM t WHERE a = 1 OR NOT b = 2 AND c <> 3");
  const Expr& w = *s.where;
  ASSERT_EQ(w.kind, Expr::Kind::kOr);
  EXPECT_EQ(w.args[0].kind, Expr::Kind::kCompare);
  const Expr& right = w.args[1];
  ASSERT_EQ(right.kind, Expr::Kind::kAnd);
  EXPECT_EQ(right.args[0].kind, Expr::Kind::kNot);
  EXPECT_EQ(right.args[1].op, "<>");
}

TEST(PartiqlParser, ParenthesesGroup) {
  Statement s = MustParse("SELECT * FROM t WHERE (a = 1 OR b = 2) AND c = 3");
  ASSERT_EQ(s.where->kind, Expr::Kind::kAnd);
  EXPECT_EQ(s.where->args[0].kind, Expr::Kind::kOr);
}

TEST(PartiqlParser, ComparisonOperators) {
  for (const char* op : {"=", "<>", "<", "<=", ">", ">="}) {
    Statement s = MustParse(std::string("SELECT * FROM t WHERE a ") + op + " 1");
    EXPECT_EQ(s.where->op, op);
  }
  EXPECT_EQ(MustParse("SELECT * FROM t WHERE a != 1").where->op, "<>");
}

TEST(PartiqlParser, BetweenInIsAndFunctions) {
  Statement s = MustParse(
      "SELECT * FROM t WHERE a BETWEEN 1 AND 5 AND b NOT IN [1, 2] AND c IN ('x') AND "
      "d IS NOT MISSING AND e IS NULL AND f IS string AND begins_with(\"g\", 'p') AND "
      "size(h) > 2 AND i NOT BETWEEN 'a' AND 'b'");
  ASSERT_TRUE(s.where.has_value());
  std::vector<const Expr*> flat;
  std::function<void(const Expr&)> walk = [&](const Expr& e) {
    if (e.kind == Expr::Kind::kAnd) {
      walk(e.args[0]);
      walk(e.args[1]);
    } else {
      flat.push_back(&e);
    }
  };
  walk(*s.where);
  ASSERT_EQ(flat.size(), 9u);
  EXPECT_EQ(flat[0]->kind, Expr::Kind::kBetween);
  EXPECT_EQ(flat[0]->args.size(), 3u);
  EXPECT_EQ(flat[1]->kind, Expr::Kind::kIn);
  EXPECT_TRUE(flat[1]->negated);
  EXPECT_EQ(flat[1]->args.size(), 3u);
  EXPECT_EQ(flat[2]->kind, Expr::Kind::kIn);
  EXPECT_EQ(flat[3]->kind, Expr::Kind::kIs);
  EXPECT_TRUE(flat[3]->negated);
  EXPECT_EQ(flat[3]->op, "MISSING");
  EXPECT_EQ(flat[4]->op, "NULL");
  EXPECT_EQ(flat[5]->op, "STRING");
  EXPECT_EQ(flat[6]->kind, Expr::Kind::kCall);
  EXPECT_EQ(flat[6]->op, "begins_with");
  EXPECT_EQ(flat[6]->args[0].path[0].name, "g");
  EXPECT_EQ(flat[7]->args[0].kind, Expr::Kind::kCall);
  EXPECT_EQ(flat[8]->kind, Expr::Kind::kBetween);
  EXPECT_TRUE(flat[8]->negated);
}

TEST(PartiqlParser, LiteralsOfEveryKind) {
  Statement s = MustParse(
      "INSERT INTO t VALUE {'s': 'x', 'n': -1.5, 'b': TRUE, 'f': false, 'z': NULL, "
      "'l': [1, 'a', [2]], 'm': {'k': {'q': 1}}, 'ss': <<'a', 'b'>>, 'p': ?, 'q': ?}");
  EXPECT_EQ(s.kind, Statement::Kind::kInsert);
  EXPECT_EQ(s.parameter_count, 2);
  const Value& item = s.item;
  ASSERT_EQ(item.kind, Value::Kind::kMap);
  ASSERT_EQ(item.keys.size(), 10u);
  EXPECT_EQ(item.elements[1].kind, Value::Kind::kNumber);
  EXPECT_EQ(item.elements[1].text, "-1.5");
  EXPECT_TRUE(item.elements[2].boolean);
  EXPECT_FALSE(item.elements[3].boolean);
  EXPECT_EQ(item.elements[4].kind, Value::Kind::kNull);
  EXPECT_EQ(item.elements[5].kind, Value::Kind::kList);
  EXPECT_EQ(item.elements[5].elements.size(), 3u);
  EXPECT_EQ(item.elements[6].kind, Value::Kind::kMap);
  EXPECT_EQ(item.elements[7].kind, Value::Kind::kBag);
  EXPECT_EQ(item.elements[8].parameter, 0);
  EXPECT_EQ(item.elements[9].parameter, 1);
}

TEST(PartiqlParser, ParametersAreNumberedInTextOrder) {
  Statement s = MustParse("UPDATE t SET a = ?, b = b + ? WHERE pk = ? AND sk IN [?, ?]");
  EXPECT_EQ(s.parameter_count, 5);
  EXPECT_EQ(s.set[0].value.value.parameter, 0);
  EXPECT_EQ(s.set[1].value.args[1].value.parameter, 1);
}

TEST(PartiqlParser, InsertErrors) {
  EXPECT_EQ(ParseError("INSERT INTO t VALUE {'pk': 'a', 'pk': 'b'}"),
            "Duplicate keys in tuple. Key: pk");
  EXPECT_EQ(ParseError("INSERT INTO t VALUE {pk: 'a'}"),
            "Tuple keys must be of type String. Actual type: VariableReference");
  EXPECT_EQ(ParseError("INSERT INTO t VALUE {'a': <<>>}"), "Empty bags are not supported");
  EXPECT_EQ(ParseError("INSERT INTO t VALUE 5"),
            "Unsupported format in item expression. Please use struct format {...} to express "
            "item values for insert statement.");
  EXPECT_EQ(ParseError("INSERT INTO t VALUE {'a': 1} RETURNING ALL OLD *"),
            "RETURNING is not supported in INSERT");
  EXPECT_TRUE(IsMalformed(ParseError("INSERT INTO t VALUES {'a': 1}")));
  EXPECT_TRUE(IsMalformed(ParseError("INSERT INTO t VALUE {'a': 1} IF NOT EXISTS")));
  EXPECT_TRUE(IsMalformed(ParseError("INSERT INTO t VALUE {'a' 1}")));
}

TEST(PartiqlParser, UpdateClausesInAnyOrder) {
  Statement s = MustParse(
      "UPDATE \"t\" SET a = 1 REMOVE b, c[0] SET d.e = list_append(d.e, [1]), f = f - 2 "
      "WHERE pk = 'k' RETURNING MODIFIED NEW *");
  EXPECT_EQ(s.kind, Statement::Kind::kUpdate);
  ASSERT_EQ(s.set.size(), 3u);
  ASSERT_EQ(s.remove.size(), 2u);
  EXPECT_EQ(s.remove[1][1].index, 0);
  EXPECT_EQ(s.set[1].value.kind, Expr::Kind::kCall);
  EXPECT_EQ(s.set[2].value.kind, Expr::Kind::kArith);
  EXPECT_EQ(s.set[2].value.op, "-");
  EXPECT_EQ(s.returning, Returning::kModifiedNew);
}

TEST(PartiqlParser, UpdateNeedsSetOrRemove) {
  EXPECT_TRUE(IsMalformed(ParseError("UPDATE t WHERE pk = 1")));
  EXPECT_TRUE(IsMalformed(ParseError("UPDATE t SET a WHERE pk = 1")));
}

TEST(PartiqlParser, ReturningVariants) {
  EXPECT_EQ(MustParse("DELETE FROM t WHERE pk = 1 RETURNING ALL OLD *").returning,
            Returning::kAllOld);
  EXPECT_EQ(MustParse("UPDATE t SET a = 1 WHERE pk = 1 RETURNING ALL NEW *").returning,
            Returning::kAllNew);
  EXPECT_EQ(MustParse("UPDATE t SET a = 1 WHERE pk = 1 RETURNING MODIFIED OLD *").returning,
            Returning::kModifiedOld);
  EXPECT_TRUE(IsMalformed(ParseError("DELETE FROM t WHERE pk = 1 RETURNING ALL OLD")));
  EXPECT_TRUE(IsMalformed(ParseError("DELETE FROM t WHERE pk = 1 RETURNING SOME OLD *")));
}

TEST(PartiqlParser, DeleteAndExists) {
  Statement d = MustParse("DELETE FROM t WHERE pk = 'a' AND sk = 1");
  EXPECT_EQ(d.kind, Statement::Kind::kDelete);
  EXPECT_EQ(MustParse("DELETE FROM t").where.has_value(), false);
  Statement e = MustParse("EXISTS(SELECT * FROM \"t\" WHERE pk = ? AND a > 1)");
  EXPECT_EQ(e.kind, Statement::Kind::kExists);
  EXPECT_EQ(e.table, "t");
  EXPECT_EQ(e.parameter_count, 1);
}

TEST(PartiqlParser, OrderBy) {
  Statement s = MustParse("SELECT * FROM t WHERE pk = 1 ORDER BY sk DESC, pk ASC");
  ASSERT_EQ(s.order_by.size(), 2u);
  EXPECT_TRUE(s.order_by[0].descending);
  EXPECT_FALSE(s.order_by[1].descending);
}

TEST(PartiqlParser, NonDmlStatementsAreRejected) {
  std::string prefix = kMalformed;
  EXPECT_EQ(ParseError("SELECTT * FROMM t"), prefix + "Expected data manipulation");
  EXPECT_EQ(ParseError("DROP TABLE t"), "Unsupported operation: DropTable");
  EXPECT_EQ(ParseError("create index i on t (a)"), "Unsupported operation: CreateIndex");
  EXPECT_EQ(ParseError("DROP t"), prefix + "Expected data manipulation");
  EXPECT_EQ(ParseError(""), prefix + "Expected data manipulation");
}

TEST(PartiqlParser, SyntaxErrorsSayWhere) {
  // The service's fixed phrases where it gives no position (a conformance suite's capture).
  const std::string nwf = kMalformed;
  EXPECT_EQ(ParseError("SELECT * FROM"), nwf + "Unexpected term");
  EXPECT_EQ(ParseError("DELETE FROM"), nwf + "Expected identifier for simple path");
  EXPECT_EQ(ParseError("DELETE FROM WHERE pk = 'a'"), nwf + "Expected identifier for simple path");
  EXPECT_EQ(ParseError("SELECT * FROM t WHERE"), nwf + "Unexpected term");
  EXPECT_EQ(ParseError("SELECT * FROM t WHERE;"), nwf + "Unexpected term");
  EXPECT_EQ(ParseError("SELECT * FROM t WHERE pk = 'a' AND"),
            nwf + "Missing right-hand side expression of infix operator");
  EXPECT_EQ(ParseError("SELECT * FROM t WHERE pk = 1 foo"), nwf + "Unexpected token after expression");
  EXPECT_EQ(ParseError("SELECT * FROM t WHERE pk = 1)"), nwf + "Unexpected token after expression");
  EXPECT_EQ(ParseError("SELECT * FROM t WHERE ORDER BY pk"), nwf + "Unexpected keyword");
  EXPECT_EQ(ParseError("SELECT * FROM t WHERE IS NULL"), nwf + "Unexpected operator");
  EXPECT_EQ(ParseError("SELECT * FROM t WHERE pk = LIKE"), nwf + "Unexpected operator");
  EXPECT_EQ(ParseError("SELECT * FROM t WHERE x IS FOO"), nwf + "Expected type name");
  EXPECT_EQ(ParseError("SELECT * FROM t WHERE x IS INT4"), "Unsupported operation: IsType");
  EXPECT_EQ(ParseError("SELECT * FROM t WHERE x IS DOUBLE PRECISION"),
            "Unsupported operation: IsType");
  EXPECT_EQ(ParseError("SELECT * FROM t s WHERE pk = 1"), "Aliasing is not supported");
  EXPECT_EQ(ParseError("SELECT * FROM t AS s WHERE pk = 1"), "Aliasing is not supported");
  EXPECT_EQ(ParseError("INSERT INTO t s VALUE {'pk': 1}"), nwf + "Unexpected token after expression");
  EXPECT_EQ(ParseError("SELECT * FROM t WHERE pk = 1 # note"), nwf);
  EXPECT_EQ(ParseError("SELECT * FROM t WHERE pk = 1 /* note"), nwf);
  EXPECT_EQ(ParseError("SELECT * FROM t WHERE pk = 1.5e-2147483647"), nwf);
  for (const char* text : {"SELECT * FROM t WHERE",
                           "SELECT * FROM t WHERE pk = 'a' AND",
                           "SELECT * FROM t WHERE pk =",
                           "SELECT * FROM t WHERE pk == 'a'",
                           "SELECT * FROM t WHERE (pk = 'a'",
                           "SELECT * FROM t WHERE pk = 'a')",
                           "SELECT *, x FROM t",
                           "SELECT * FROM t WHERE pk = 'a'; SELECT * FROM t",
                           "SELECT * t",
                           "SELECT * FROM t WHERE a IN",
                           "SELECT * FROM t WHERE a IS 5",
                           "SELECT * FROM t WHERE a BETWEEN 1",
                           "SELECT a[x] FROM t",
                           "SELECT * FROM t WHERE a = -b",
                           "SELECT * FROM t WHERE a = [1, 2",
                           "SELECT * FROM t WHERE a = <<1, 2",
                           "SELECT * FROM t ORDER sk",
                           "EXISTS SELECT * FROM t",
                           "SELECT * FROM t WHERE a = {'x' 1}",
                           "UPDATE t SET a = 1 WHERE",
                           "DELETE t WHERE pk = 1",
                           "SELECT * FROM value"}) {
    EXPECT_TRUE(IsMalformed(ParseError(text))) << text;
  }
}

TEST(PartiqlParser, ProjectionOfALiteralOrFunctionIsAnUnexpectedPathComponent) {
  EXPECT_EQ(ParseError("SELECT 'x' FROM t"), "Unexpected path component at 1:8:3");
  EXPECT_EQ(ParseError("SELECT COUNT(*) FROM t"), "Unexpected path component at 1:8:5");
  EXPECT_EQ(ParseError("SELECT\n a, count(pk) FROM t"), "Unexpected path component at 2:5:5");
}

TEST(PartiqlParser, QuotedNamesMayBeKeywords) {
  Statement s = MustParse("SELECT \"value\" FROM \"select\" WHERE \"from\" = 1");
  EXPECT_EQ(s.projection[0][0].name, "value");
  EXPECT_EQ(s.table, "select");
  EXPECT_EQ(s.where->args[0].path[0].name, "from");
}

TEST(PartiqlParser, EmptyQuotedNameIsRejected) {
  EXPECT_EQ(ParseError("SELECT \"\" FROM t"), "Path component cannot be an empty string");
}

TEST(PartiqlParser, DeepNestingIsRefusedNotCrashed) {
  // Redundant parentheses are read in a loop and accepted at any depth.
  std::string text =
      "SELECT * FROM t WHERE " + std::string(5000, '(') + "a = 1" + std::string(5000, ')');
  MustParse(text);
  // Unmatched ones, and groups that are not redundant, stop at the nesting limit.
  EXPECT_EQ(ParseError("SELECT * FROM t WHERE " + std::string(5000, '(') + "a = 1"),
            std::string(kMalformed) + "Statement is nested too deeply at 1:88");
  std::string deep_list =
      "INSERT INTO t VALUE {'a': " + std::string(5000, '[') + std::string(5000, ']') + "}";
  EXPECT_EQ(ParseError(deep_list), "Nesting Levels have exceeded supported limits");
}

}  // namespace
}  // namespace ttlstore::api::partiql
