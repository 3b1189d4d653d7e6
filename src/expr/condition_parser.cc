#include "expr/condition_parser.h"

#include <algorithm>
#include <optional>

#include "expr/condition_check.h"
#include "expr/path_parser.h"

namespace ttlstore::expr {

bool IsConditionKeyword(const TokenStream& ts, size_t i) {
  return ts.IsWord(i, "AND") || ts.IsWord(i, "OR") || ts.IsWord(i, "NOT") ||
         ts.IsWord(i, "BETWEEN") || ts.IsWord(i, "IN");
}

namespace {

class Parser {
 public:
  Parser(const TokenStream& ts, std::string_view kind) : ts_(ts), kind_(kind) {}

  Result<ParsedCondition> Run() {
    ParsedCondition parsed;
    if (!ParseOr(&parsed.root)) return std::move(*error_);
    if (Kind() != TokenKind::kEnd) return Fail();
    return parsed;
  }

 private:
  TokenKind Kind(size_t ahead = 0) const { return ts_.at(pos_ + ahead).kind; }
  Error Fail() const { return ts_.SyntaxError(kind_, pos_); }
  Error Redundant() const {
    return InvalidExpression(kind_, "The expression has redundant parentheses;");
  }

  // Condition groups and function calls recurse (depth_); nothing that fits
  // kMaxExpressionBytes nests deeper than kMaxNesting unless it is unbalanced, and that is a
  // syntax error anyway.

  // A run of k redundant parentheses "((...(x)...))" is skipped without recursing; the parser
  // then sees only the innermost group "(x)". The service reports the redundancy when the
  // first wrapper closes, i.e. right after the innermost group, unless a syntax error comes
  // first (so "((a = = :v))" is a syntax error, "((a = :v)) AND (" is redundant).
  int SkipWrappers() {
    int k = 0;
    while (ts_.IsWrapper(pos_)) ++pos_, ++k;
    return k;
  }

  // Whether the '(' at `open` starts a parenthesised operand ("(a) = :v") rather than a
  // parenthesised condition: decided by what follows the matching ')'. A '.' or '[' there
  // makes it an operand too, which then fails at that token, as in the service: a
  // parenthesised path cannot go on ("(a).b" is a syntax error at ".").
  bool IsOperandGroup(size_t open) const {
    int close = ts_.MatchingParen(open);
    if (close < 0) return false;
    size_t next = static_cast<size_t>(close) + 1;
    switch (ts_.at(next).kind) {
      case TokenKind::kEq:
      case TokenKind::kNe:
      case TokenKind::kLt:
      case TokenKind::kLe:
      case TokenKind::kGt:
      case TokenKind::kGe:
      case TokenKind::kDot:
      case TokenKind::kLBracket:
        return true;
      default:
        return ts_.IsWord(next, "BETWEEN") || ts_.IsWord(next, "IN");
    }
  }

  // The functions that recurse (ParseOr -> ParseAnd -> ParseNot -> ParsePrimary for groups,
  // ParseOperandInto for function calls) build the tree in place through out-parameters and
  // leave everything else to functions that do not recurse, so that a level of nesting costs a
  // few hundred bytes of stack (expr_hostile_test measures it).
  // These return false with error_ set, rather than a Status, to keep their frames small.
  bool ParseOr(CondExpr* out) {
    if (!ParseAnd(out)) return false;
    while (ts_.IsWord(pos_, "OR")) {
      ++pos_;
      StartBinary(CondExpr::Kind::kOr, out);
      if (!ParseAnd(&out->children[1])) return false;
    }
    return true;
  }

  bool ParseAnd(CondExpr* out) {
    if (!ParseNot(out)) return false;
    while (ts_.IsWord(pos_, "AND")) {
      ++pos_;
      StartBinary(CondExpr::Kind::kAnd, out);
      if (!ParseNot(&out->children[1])) return false;
    }
    return true;
  }

  // *left becomes `left kind <empty>`; the caller parses the right side into children[1] (no
  // CondExpr in the recursing frames).
  [[gnu::noinline]] static void StartBinary(CondExpr::Kind kind, CondExpr* left) {
    *left = CondExpr::Logical(kind, MoveIntoVector(std::move(*left), CondExpr()));
  }

  // NOT chains are read in a loop. Past kMaxOperators NOTs the expression is refused whatever
  // else it holds (its operator count is over the limit, and the other checks do not look at
  // NOT nodes), so the tree keeps at most kMaxOperators + 1 of them in all.
  bool ParseNot(CondExpr* out) {
    size_t nots = 0;
    while (ts_.IsWord(pos_, "NOT")) ++pos_, ++nots;
    if (!ParsePrimary(out)) return false;
    for (; nots > 0 && nots_kept_ <= kMaxOperators; --nots, ++nots_kept_) Negate(out);
    return true;
  }

  [[gnu::noinline]] static void Negate(CondExpr* c) {
    *c = CondExpr::Logical(CondExpr::Kind::kNot, MoveIntoVector(std::move(*c)));
  }

  bool ParsePrimary(CondExpr* out) {
    if (Kind() != TokenKind::kLParen || IsOperandGroup(pos_)) return ParseComparison(out);
    const int wrappers = SkipWrappers();
    ++pos_;
    if (++depth_ > kMaxNesting) return SetError(&Parser::Fail);
    if (!ParseOr(out)) return false;
    --depth_;
    if (Kind() != TokenKind::kRParen) return SetError(&Parser::Fail);
    ++pos_;
    if (wrappers > 0) return SetError(&Parser::Redundant);
    return true;
  }

  [[gnu::noinline]] bool SetError(Error (Parser::*make)() const) {
    error_ = (this->*make)();
    return false;
  }

  // operand comparator operand, BETWEEN, IN, or a function call on its own.
  [[gnu::noinline]] bool ParseComparison(CondExpr* out) {
    Result<CondExpr> c = ParseComparison();
    if (!c) {
      error_ = std::move(c).error();
      return false;
    }
    *out = std::move(*c);
    return true;
  }

  Result<CondExpr> ParseComparison() {
    ASSIGN_OR_RETURN(left, ParseOperand());
    CompareOp op;
    switch (Kind()) {
      case TokenKind::kEq:
        op = CompareOp::kEq;
        break;
      case TokenKind::kNe:
        op = CompareOp::kNe;
        break;
      case TokenKind::kLt:
        op = CompareOp::kLt;
        break;
      case TokenKind::kLe:
        op = CompareOp::kLe;
        break;
      case TokenKind::kGt:
        op = CompareOp::kGt;
        break;
      case TokenKind::kGe:
        op = CompareOp::kGe;
        break;
      default:
        if (ts_.IsWord(pos_, "BETWEEN")) return ParseBetween(std::move(left));
        if (ts_.IsWord(pos_, "IN")) return ParseIn(std::move(left));
        // A function on its own is a condition; whether it may be one (size may not) is
        // checked after parsing.
        if (left.is_call()) return CondExpr::OfCall(std::move(left));
        return Fail();
    }
    ++pos_;
    ASSIGN_OR_RETURN(right, ParseOperand());
    return CondExpr::Compare(op, std::move(left), std::move(right));
  }

  Result<CondExpr> ParseBetween(Operand value) {
    ++pos_;
    ASSIGN_OR_RETURN(low, ParseOperand());
    if (!ts_.IsWord(pos_, "AND")) return Fail();
    ++pos_;
    ASSIGN_OR_RETURN(high, ParseOperand());
    return CondExpr::Between(std::move(value), std::move(low), std::move(high));
  }

  Result<CondExpr> ParseIn(Operand value) {
    ++pos_;
    if (Kind() != TokenKind::kLParen) return Fail();
    ++pos_;
    std::vector<Operand> operands;
    operands.push_back(std::move(value));
    ASSIGN_OR_RETURN(list, ParseOperandList());
    for (Operand& o : list) operands.push_back(std::move(o));
    return CondExpr::In(std::move(operands));
  }

  // operand {, operand} ) -- the opening parenthesis has been consumed.
  Result<std::vector<Operand>> ParseOperandList() {
    std::vector<Operand> list;
    while (true) {
      list.emplace_back();
      if (!ParseOperandInto(&list.back())) return std::move(*error_);
      if (Kind() == TokenKind::kComma) {
        ++pos_;
        continue;
      }
      if (Kind() != TokenKind::kRParen) return Fail();
      ++pos_;
      return list;
    }
  }

  Result<Operand> ParseOperand() {
    Operand o;
    if (!ParseOperandInto(&o)) return std::move(*error_);
    return o;
  }

  // operand := ( operand ) | :value | name ( operand {, operand} ) | path, into *out; false
  // with error_ set on failure. This is what recurses for nested calls, so it keeps nothing
  // but scalars in its frame (no Status, no strings: ASan gives every such local red zones).
  // Parentheses around an operand can only hold an operand, so a run of them is read in a loop:
  // "((a))" is the operand a, redundant once its second ')' is reached.
  bool ParseOperandInto(Operand* out) {
    size_t parens = 0;
    while (Kind() == TokenKind::kLParen) {
      int close = ts_.MatchingParen(pos_);
      if (close >= 0 && IsPathStep(close + 1)) return FailAt(static_cast<size_t>(close) + 1);
      ++pos_, ++parens;
    }
    if (Kind() == TokenKind::kName && !IsConditionKeyword(ts_, pos_) &&
        Kind(1) == TokenKind::kLParen) {
      if (++depth_ > kMaxNesting) return FailAt(pos_);
      StartCall(out);
      pos_ += 2;
      // The arguments, recursively (a call's own parentheses are not a group).
      while (true) {
        if (!ParseOperandInto(NewArg(out))) return false;
        if (Kind() == TokenKind::kComma) {
          ++pos_;
          continue;
        }
        if (Kind() != TokenKind::kRParen) return FailAt(pos_);
        ++pos_;
        break;
      }
      --depth_;
    } else if (!ParseLeafOperand(out)) {
      return false;
    }
    for (size_t i = 0; i < parens; ++i) {
      if (Kind() != TokenKind::kRParen) return FailAt(pos_);
      ++pos_;
      if (i == 1) return SetError(&Parser::Redundant);
    }
    return true;
  }

  // A syntax error at token i.
  [[gnu::noinline]] bool FailAt(size_t i) {
    error_ = ts_.SyntaxError(kind_, i);
    return false;
  }

  bool IsPathStep(size_t i) const {
    return ts_.at(i).kind == TokenKind::kDot || ts_.at(i).kind == TokenKind::kLBracket;
  }

  // A new, empty last argument of `call` (out of line: growing the vector moves Operands).
  [[gnu::noinline]] static Operand* NewArg(Operand* call) { return &call->args.emplace_back(); }

  [[gnu::noinline]] void StartCall(Operand* out) {
    std::string name(ts_.TextOf(pos_));
    *out = Operand::Call(std::move(name), {});
  }

  // A :value or a path.
  [[gnu::noinline]] bool ParseLeafOperand(Operand* out) {
    if (Kind() == TokenKind::kValueRef) {
      *out = Operand::OfValue(std::string(ts_.TextOf(pos_++)));
      return true;
    }
    Result<std::vector<RawElement>> raw = ParseRawPath(ts_, &pos_, kind_, IsConditionKeyword);
    if (!raw) {
      error_ = std::move(raw).error();
      return false;
    }
    *out = Operand::OfPath(std::move(*raw));
    return true;
  }

  const TokenStream& ts_;
  std::string_view kind_;
  size_t pos_ = 0;
  int depth_ = 0;
  size_t nots_kept_ = 0;  // NOT nodes in the tree so far
  std::optional<Error> error_;  // why ParseOr failed
};

}  // namespace

Result<ParsedCondition> ParseConditionSyntax(const TokenStream& ts, std::string_view kind) {
  return Parser(ts, kind).Run();
}

}  // namespace ttlstore::expr
