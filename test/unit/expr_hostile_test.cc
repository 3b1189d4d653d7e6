// Expressions built to exhaust the parser: nesting at depth 33, 1,000, 100,000 and 1,000,000,
// and the deepest constructs that fit the 4 KB limit. Each answer is the service's (observed
// against DynamoDB Local, which shares the service's expression front end), and every parse,
// check, evaluation and destruction runs on a thread with a small stack (1 MiB; 4 MiB under ASan) whose use is measured.
#include <gtest/gtest.h>

#include <iostream>
#include <string>

#include "expr/condition.h"
#include "expr/key_condition.h"
#include "expr/projection.h"
#include "expr/update.h"
#include "small_stack.h"

namespace ttlstore::expr {
namespace {

using model::AttributeValue;
using testing::PeakStackOnSmallThread;

std::string Repeat(std::string_view s, size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (size_t i = 0; i < n; ++i) out += s;
  return out;
}

Placeholders Ph() {
  Placeholders ph;
  ph.values = {{":v", AttributeValue::String("x")},
               {":n", AttributeValue::Num("1")},
               {":l", AttributeValue::OfList({})}};
  return ph;
}

// The error of `text` as a condition of `kind` ("" if it parses), computed on a small stack;
// *peak gets the stack it used.
std::string ConditionError(const std::string& text, size_t* peak = nullptr,
                           const std::string& kind = "ConditionExpression") {
  std::string error;
  size_t used = PeakStackOnSmallThread([&] {
    Placeholders ph = Ph();
    auto c = Condition::Parse(text, kind, ph);
    if (c.ok()) {
      model::Item item = {{"a", AttributeValue::String("x")}};
      c->Evaluate(item);
    } else {
      error = c.error().message();
    }
  });
  if (peak) *peak = used;
  return error;
}

std::string UpdateError(const std::string& text, size_t* peak = nullptr) {
  std::string error;
  size_t used = PeakStackOnSmallThread([&] {
    Placeholders ph = Ph();
    auto u = Update::Parse(text, ph);
    if (u.ok()) {
      model::Item item = {{"pk", AttributeValue::String("k")}};
      Status s = u->Apply(&item);
      if (!s) error = "apply: " + s.error().message();
    } else {
      error = u.error().message();
    }
  });
  if (peak) *peak = used;
  return error;
}

std::string KeyConditionError(const std::string& text) {
  std::string error;
  PeakStackOnSmallThread([&] {
    model::KeySchema schema;
    schema.hash = {"pk", model::ValueType::kS};
    Placeholders ph = Ph();
    auto k = KeyCondition::Parse(text, schema, ph);
    if (!k.ok()) error = k.error().message();
  });
  return error;
}

std::string ProjectionError(const std::string& text) {
  std::string error;
  PeakStackOnSmallThread([&] {
    std::set<std::string> used;
    auto p = Projection::Parse(text, {}, &used);
    if (!p.ok()) error = p.error().message();
  });
  return error;
}

const std::string kRedundant = "The expression has redundant parentheses;";
const std::string kTooMany = "The expression contains too many operators; operator count: 301";
const std::string kTooBig = "Expression size has exceeded the maximum allowed size;";
const size_t kDepths[] = {33, 1000, 100000, 1000000};

std::string Cond(const std::string& m) { return "Invalid ConditionExpression: " + m; }
std::string Upd(const std::string& m) { return "Invalid UpdateExpression: " + m; }

// What a condition of `text.size()` bytes answers when its content is fine but `within` is the
// answer inside the size limit.
std::string CondAt(const std::string& text, const std::string& within) {
  if (text.size() <= kMaxExpressionBytes) return within;
  return Cond(kTooBig + " expression size: " + std::to_string(text.size()));
}

TEST(ExprHostile, NestedParenthesesAreRedundantAtAnyDepthThatFits) {
  for (size_t d : kDepths) {
    std::string group = Repeat("(", d) + "a = :v" + Repeat(")", d);
    EXPECT_EQ(ConditionError(group), CondAt(group, Cond(kRedundant))) << d;
    std::string operand = Repeat("(", d) + "a" + Repeat(")", d) + " = :v";
    EXPECT_EQ(ConditionError(operand), CondAt(operand, Cond(kRedundant))) << d;
    // One ')' short: the inner pairs close first, so the redundancy still comes first.
    std::string unbalanced = Repeat("(", d) + "a = :v" + Repeat(")", d - 1);
    EXPECT_EQ(ConditionError(unbalanced), CondAt(unbalanced, Cond(kRedundant))) << d;
  }
  // The deepest that fits: 2,045 pairs around "a = :v" is 4,096 bytes.
  EXPECT_EQ(ConditionError(Repeat("(", 2045) + "a = :v" + Repeat(")", 2045)), Cond(kRedundant));
  EXPECT_EQ(ConditionError("a IN (" + Repeat("(", 2000) + ":v" + Repeat(")", 2000) + ")"),
            Cond(kRedundant));
  // A syntax error before the redundant pair still wins.
  EXPECT_EQ(ConditionError(Repeat("(", 1000) + "a = = :v" + Repeat(")", 1000)),
            Cond("Syntax error; token: \"=\", near: \"= = :v\""));
}

TEST(ExprHostile, NotChainsCountAsOperators) {
  EXPECT_EQ(ConditionError(Repeat("NOT ", 299) + "a = :v"), "");
  for (size_t d : {300ul, 1000ul, 1022ul, 100000ul, 1000000ul}) {
    std::string text = Repeat("NOT ", d) + "a = :v";
    EXPECT_EQ(ConditionError(text), CondAt(text, Cond(kTooMany))) << d;
  }
  // A syntax error at the end of the chain is reported, not the count.
  EXPECT_EQ(ConditionError(Repeat("NOT ", 1000) + "a = "),
            Cond("Syntax error; token: \"<EOF>\", near: \"= \""));
  // The checks on the condition itself come before the count, the redundancy before both.
  EXPECT_EQ(ConditionError(Repeat("NOT ", 400) + "a = :undefined"),
            Cond("An expression attribute value used in expression is not defined; attribute "
                 "value: :undefined"));
  EXPECT_EQ(ConditionError(Repeat("NOT ", 400) + "foo(a)"), Cond("Invalid function name; function: foo"));
  EXPECT_EQ(ConditionError(Repeat("NOT ", 400) + "a = :v AND ((a = :v))"), Cond(kRedundant));
}

TEST(ExprHostile, NestedConditionsCountAsOperators) {
  // a < :v AND (a < :v AND ( ... )): 2 operators a level (scylladb#14473 reports 301 for it).
  auto nested = [](size_t d) {
    return Repeat("a < :v AND (", d) + "a < :v" + Repeat(")", d);
  };
  EXPECT_EQ(ConditionError(nested(149)), "");
  for (size_t d : {150ul, 300ul, 100000ul}) {
    EXPECT_EQ(ConditionError(nested(d)), CondAt(nested(d), Cond(kTooMany))) << d;
  }
  EXPECT_EQ(ConditionError(Repeat("a < :v AND (", 200) + "a < :v" + Repeat(")", 199)),
            Cond("Syntax error; token: \"<EOF>\", near: \")\""));
  std::string nots = Repeat("NOT(", 818) + "a = :v" + Repeat(")", 818);  // 4,096 bytes
  EXPECT_EQ(ConditionError(nots), Cond(kTooMany));
}

TEST(ExprHostile, NestedFunctionsParseToTheFunctionErrors) {
  for (size_t d : kDepths) {
    std::string f = Repeat("f(", d) + "a" + Repeat(")", d);
    EXPECT_EQ(ConditionError(f), CondAt(f, Cond("Invalid function name; function: f"))) << d;
    std::string size = Repeat("size(", d) + "a" + Repeat(")", d) + " = :v";
    EXPECT_EQ(ConditionError(size),
              CondAt(size, Cond("Incorrect operand type for operator or function; operator or "
                                "function: size, operand type: N")))
        << d;
  }
  EXPECT_EQ(ConditionError(Repeat("f(", 1364) + "a" + Repeat(")", 1364)),
            Cond("Invalid function name; function: f"));
}

TEST(ExprHostile, DeepPathsAreRefusedByTheirDepth) {
  EXPECT_EQ(ConditionError("a" + Repeat("[0]", 1000) + " = :v"),
            Cond("The document path has too many nesting levels; nesting levels: 1001"));
  EXPECT_EQ(ConditionError(Repeat("a.", 1999) + "a = :v"),
            Cond("The document path has too many nesting levels; nesting levels: 2000"));
}

TEST(ExprHostile, UnbalancedNestingIsASyntaxError) {
  // Every '(' unmatched: the parser stops at kMaxNesting levels instead of recursing 4,096 deep.
  std::string text = Repeat("(", 4090) + "a = :v";
  size_t peak = 0;
  EXPECT_EQ(ConditionError(text, &peak).rfind(Cond("Syntax error; token: "), 0), 0u);
  std::string calls = Repeat("f(", 2048);
  EXPECT_EQ(ConditionError(calls).rfind(Cond("Syntax error; token: "), 0), 0u);
  EXPECT_EQ(UpdateError("SET a = " + Repeat("f(", 2044)).rfind(Upd("Syntax error; token: "), 0),
            0u);
}

TEST(ExprHostile, KeyAndFilterConditionsAnswerTheSame) {
  for (size_t d : kDepths) {
    std::string text = Repeat("(", d) + "pk = :v" + Repeat(")", d);
    std::string want = text.size() <= kMaxExpressionBytes
                           ? "Invalid KeyConditionExpression: " + kRedundant
                           : "Invalid KeyConditionExpression: " + kTooBig +
                                 " expression size: " + std::to_string(text.size());
    EXPECT_EQ(KeyConditionError(text), want) << d;
  }
  EXPECT_EQ(KeyConditionError(Repeat("NOT ", 1000) + "pk = :v"),
            "Invalid KeyConditionExpression: " + kTooMany);
  EXPECT_EQ(ConditionError(Repeat("NOT ", 1000) + "a = :v", nullptr, "FilterExpression"),
            "Invalid FilterExpression: " + kTooMany);
}

TEST(ExprHostile, UpdateValuesTakeParenthesesAndRefuseRedundantOnes) {
  EXPECT_EQ(UpdateError("SET a = (:n)"), "");
  EXPECT_EQ(UpdateError("SET a = (:n + :n)"), "");
  EXPECT_EQ(UpdateError("SET a = ((:n) + :n)"), "");
  EXPECT_EQ(UpdateError("SET a = (:n + :n) - :n"),
            Upd("Syntax error; token: \"-\", near: \") - :n\""));
  EXPECT_EQ(UpdateError("SET a = (:n) - (:n) + :n"),
            Upd("Syntax error; token: \"+\", near: \") + :n\""));
  EXPECT_EQ(UpdateError("SET a = :n + (:n - :n)"),
            Upd("Syntax error; token: \"-\", near: \":n - :n\""));
  EXPECT_EQ(UpdateError("SET a = ((:n)) + "), Upd(kRedundant));
  EXPECT_EQ(UpdateError("SET a = = :n, b = ((:n))"),
            Upd("Syntax error; token: \"=\", near: \"= = :n\""));
  EXPECT_EQ(UpdateError("SET a = if_not_exists(a, ((:n)))"), Upd(kRedundant));
  for (size_t d : kDepths) {
    std::string text = "SET a = " + Repeat("(", d) + ":n" + Repeat(")", d);
    std::string want = text.size() <= kMaxExpressionBytes ? Upd(kRedundant) : Upd(kTooBig);
    EXPECT_EQ(UpdateError(text), want) << d;
    std::string arith = "SET a = " + Repeat("(", d) + ":n + :n" + Repeat(")", d);
    EXPECT_EQ(UpdateError(arith), arith.size() <= kMaxExpressionBytes ? Upd(kRedundant)
                                                                       : Upd(kTooBig))
        << d;
    // The first '(' never closes: the service's look-ahead fails at the end, before any
    // redundancy is noticed.
    std::string open = "SET a = " + Repeat("(", d) + ":n" + Repeat(")", d - 1);
    EXPECT_EQ(UpdateError(open), open.size() <= kMaxExpressionBytes
                                     ? Upd("Syntax error; token: \"<EOF>\", near: \")\"")
                                     : Upd(kTooBig))
        << d;
  }
}

TEST(ExprHostile, UpdateFunctionsNestOnlyWhereTheServiceAllowsIt) {
  std::string ifne = "SET a = " + Repeat("if_not_exists(a, ", 220) + ":n" + Repeat(")", 220);
  EXPECT_EQ(UpdateError(ifne), "");  // 3,970 bytes, evaluated 220 levels deep
  EXPECT_EQ(UpdateError("SET a = list_append(list_append(:l, :l), :l)"),
            Upd("The function is not allowed to be used this way in an expression; function: "
                "list_append"));
  EXPECT_EQ(UpdateError("SET a = if_not_exists(a, list_append(:l, :l))"),
            Upd("The function is not allowed to be used this way in an expression; function: "
                "list_append"));
  EXPECT_EQ(UpdateError("SET a = list_append(:l, :l) + :n"),
            Upd("The function is not allowed to be used this way in an expression; function: "
                "list_append"));
  EXPECT_EQ(UpdateError("SET a = list_append(if_not_exists(a, :l), :l)"), "");
  EXPECT_EQ(UpdateError("SET a = if_not_exists(a, :n) + :n"), "");
  for (size_t d : kDepths) {
    std::string text = "SET a = " + Repeat("f(", d) + ":n" + Repeat(")", d);
    EXPECT_EQ(UpdateError(text), text.size() <= kMaxExpressionBytes
                                     ? Upd("Invalid function name; function: f")
                                     : Upd(kTooBig))
        << d;
    std::string plus = "SET a = " + Repeat(":n + ", d) + ":n";
    EXPECT_EQ(UpdateError(plus), plus.size() <= kMaxExpressionBytes
                                     ? Upd("Syntax error; token: \"+\", near: \":n + :n\"")
                                     : Upd(kTooBig))
        << d;
  }
  EXPECT_EQ(UpdateError("SET a = " + Repeat("f(", 1362) + ":n" + Repeat(")", 1362)),
            Upd("Invalid function name; function: f"));
}

TEST(ExprHostile, DeepPathsInUpdatesAndProjections) {
  for (size_t d : kDepths) {
    std::string path = Repeat("a.", d - 1) + "a";
    std::string depth = "The document path has too many nesting levels; nesting levels: " +
                        std::to_string(d);
    std::string update = "SET " + path + " = :n";
    EXPECT_EQ(UpdateError(update), update.size() <= kMaxExpressionBytes ? Upd(depth) : Upd(kTooBig));
    EXPECT_EQ(ProjectionError(path), path.size() <= kMaxExpressionBytes
                                         ? "Invalid ProjectionExpression: " + depth
                                         : "Invalid ProjectionExpression: " + kTooBig);
  }
}

// The worst cases that fit 4 KB, each on the small stack (small_stack.h). Stack use is printed for the record;
// the test asserts it stays under half of it (the server's threads have 8 MiB).
TEST(ExprHostile, TheDeepestExpressionsFitASmallStack) {
  struct Case {
    const char* name;
    std::string text;
    bool update;
  };
  const Case cases[] = {
      {"2045 redundant parens", Repeat("(", 2045) + "a = :v" + Repeat(")", 2045), false},
      {"1364 nested calls", Repeat("f(", 1364) + "a" + Repeat(")", 1364), false},
      {"680 nested size()", Repeat("size(", 680) + "a" + Repeat(")", 680) + " = :v", false},
      {"818 NOT( groups", Repeat("NOT(", 818) + "a = :v" + Repeat(")", 818), false},
      {"1022 NOTs", Repeat("NOT ", 1022) + "a = :v", false},
      {"370 nested ANDs", Repeat("a<:v AND (", 370) + "a<:v" + Repeat(")", 370), false},
      {"512 ORs", Repeat("a=:v OR ", 511) + "a=:v", false},
      {"150 ORs evaluated", Repeat("a=:v OR ", 150) + "a=:v", false},
      {"4090 unmatched (", Repeat("(", 4090) + "a = :v", false},
      {"2048 unmatched f(", Repeat("f(", 2048), false},
      {"update 1362 nested calls", "SET a = " + Repeat("f(", 1362) + ":n" + Repeat(")", 1362),
       true},
      {"update 220 if_not_exists applied",
       "SET a = " + Repeat("if_not_exists(a, ", 220) + ":n" + Repeat(")", 220), true},
      {"update 4088 unmatched (", "SET a = " + Repeat("(", 4088), true},
      {"update 2044 unmatched f(", "SET a = " + Repeat("f(", 2044), true},
  };
  for (const Case& c : cases) {
    ASSERT_LE(c.text.size(), kMaxExpressionBytes) << c.name;
    size_t peak = 0;
    if (c.update) {
      UpdateError(c.text, &peak);
    } else {
      ConditionError(c.text, &peak);
    }
    std::cout << "[ stack    ] " << c.name << ": " << peak << " bytes\n";
    EXPECT_LT(peak, testing::kSmallStackBytes / 2) << c.name;
  }
  // Past the size limit nothing is parsed at all.
  size_t peak = 0;
  EXPECT_EQ(ConditionError(Repeat("(", 1000000) + "a = :v" + Repeat(")", 1000000), &peak),
            Cond(kTooBig + " expression size: 2000006"));
  EXPECT_LT(peak, 64u * 1024);
}

}  // namespace
}  // namespace ttlstore::expr
