// PartiQL statements built to exhaust the parser: redundant parentheses, NOT chains, operator
// counts, deep literals and unmatched nesting, each parsed on a thread with a small stack whose
// use is measured. The answers are DynamoDB Local's where it gives one (it shares the service's
// PartiQL front end, but dies with a StackOverflowError past ~250 levels, where ttlstore keeps
// answering).
#include <gtest/gtest.h>

#include <iostream>
#include <string>

#include "api/partiql/parser.h"
#include "small_stack.h"

namespace ttlstore::api::partiql {
namespace {

using ttlstore::testing::PeakStackOnSmallThread;

std::string Repeat(std::string_view s, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out += s;
  return out;
}

struct Outcome {
  std::string error;  // "" when it parses
  size_t where_operators = 0;
  size_t peak = 0;
};

Outcome ParseSmall(const std::string& text) {
  Outcome o;
  o.peak = PeakStackOnSmallThread([&] {
    auto s = Parse(text);
    if (s.ok()) {
      o.where_operators = s->where_operators;
    } else {
      o.error = s.error().message();
    }
  });
  return o;
}

const std::string kWhere = "SELECT * FROM t WHERE pk = 'a' AND ";

TEST(PartiqlHostile, NotChainsAreCountedNotNested) {
  for (size_t d : {33ul, 297ul, 298ul, 1000ul, 2000ul}) {
    Outcome o = ParseSmall(kWhere + Repeat("NOT ", d) + "x = 1");
    EXPECT_EQ(o.error, "") << d;
    EXPECT_EQ(o.where_operators, d + 3) << d;  // pk = 'a', AND, the NOTs, x = 1
  }
  Outcome syntax = ParseSmall(kWhere + Repeat("NOT ", 1500) + "x = ");
  EXPECT_EQ(syntax.error.rfind(kMalformed, 0), 0u) << syntax.error;
}

TEST(PartiqlHostile, OperatorsOfWhereAreCounted) {
  EXPECT_EQ(ParseSmall("SELECT * FROM t WHERE " + Repeat("x = 1 AND ", 150) + "x = 1")
                .where_operators,
            301u);
  EXPECT_EQ(ParseSmall("SELECT * FROM t WHERE " + Repeat("attribute_exists(x) OR ", 150) +
                       "x BETWEEN 1 AND 2")
                .where_operators,
            301u);
  EXPECT_EQ(ParseSmall("UPDATE t SET a = 1, b = 2 WHERE pk = 'a'").where_operators, 1u);
}

TEST(PartiqlHostile, RedundantParenthesesAreReadInALoop) {
  for (size_t d : {33ul, 1000ul, 4000ul}) {
    Outcome o = ParseSmall("SELECT * FROM t WHERE " + Repeat("(", d) + "pk = 'a'" +
                           Repeat(")", d));
    EXPECT_EQ(o.error, "") << d;
  }
}

TEST(PartiqlHostile, DeepLiteralsAreRefusedForTheirNesting) {
  for (size_t d : {65ul, 1000ul, 8000ul}) {
    EXPECT_EQ(ParseSmall("INSERT INTO t VALUE {'pk': 'b', 'x': " + Repeat("[", d) + "1" +
                         Repeat("]", d) + "}")
                  .error,
              "Nesting Levels have exceeded supported limits")
        << d;
    EXPECT_EQ(ParseSmall("INSERT INTO t VALUE {'pk': 'b', 'x': " + Repeat("{'a': ", d) + "1" +
                         Repeat("}", d) + "}")
                  .error,
              "Nesting Levels have exceeded supported limits")
        << d;
  }
}

TEST(PartiqlHostile, UnmatchedNestingStopsAtTheLimit) {
  EXPECT_EQ(ParseSmall("SELECT * FROM t WHERE " + Repeat("(", 8000)).error,
            std::string(kMalformed) + "Statement is nested too deeply at 1:88");
  EXPECT_EQ(ParseSmall("SELECT * FROM t WHERE " + Repeat("NOT (", 1600) + "x = 1").error,
            std::string(kMalformed) + "Statement is nested too deeply at 1:352");
  EXPECT_EQ(ParseSmall("SELECT * FROM t WHERE " + Repeat("f(", 4000)).error,
            std::string(kMalformed) + "Statement is nested too deeply at 1:153");
}

// The deepest statements of 8 KB (the API's limit) on the small stack (small_stack.h); stack use is printed.
TEST(PartiqlHostile, TheDeepestStatementsFitASmallStack) {
  const std::pair<const char*, std::string> cases[] = {
      {"8000 unmatched (", "SELECT * FROM t WHERE " + Repeat("(", 8000)},
      {"1600 NOT (", "SELECT * FROM t WHERE " + Repeat("NOT (", 1600) + "x = 1"},
      {"4000 f(", "SELECT * FROM t WHERE " + Repeat("f(", 4000)},
      {"4000 redundant (", "SELECT * FROM t WHERE " + Repeat("(", 4000) + "x = 1" +
                               Repeat(")", 4000)},
      {"2000 NOTs", "SELECT * FROM t WHERE " + Repeat("NOT ", 2000) + "x = 1"},
      {"8000 [", "INSERT INTO t VALUE {'x': " + Repeat("[", 8000)},
      {"64 nested maps", "INSERT INTO t VALUE {'x': " + Repeat("{'a': ", 64) + "1" +
                             Repeat("}", 64) + "}"},
  };
  for (const auto& [name, text] : cases) {
    Outcome o = ParseSmall(text);
    std::cout << "[ stack    ] " << name << ": " << o.peak << " bytes\n";
    EXPECT_LT(o.peak, ttlstore::testing::kSmallStackBytes / 2) << name;
  }
}

}  // namespace
}  // namespace ttlstore::api::partiql
