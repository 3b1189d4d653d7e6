#include "expr/condition_parser.h"

#include <algorithm>

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
    ASSIGN_OR_RETURN(root, ParseOr());
    if (Kind() != TokenKind::kEnd) return Fail();
    return ParsedCondition{std::move(root)};
  }

 private:
  TokenKind Kind(size_t ahead = 0) const { return ts_.at(pos_ + ahead).kind; }
  Error Fail() const { return ts_.SyntaxError(kind_, pos_); }
  Error Redundant() const {
    return InvalidExpression(kind_, "The expression has redundant parentheses;");
  }

  // Condition groups and function calls recurse; nothing that fits kMaxExpressionBytes can
  // nest deeper than kMaxNesting unless it is unbalanced, and that is a syntax error anyway.
  Status Enter() {
    if (++depth_ > kMaxNesting) return Fail();
    return Status::Ok();
  }
  void Leave() { --depth_; }

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

  Result<CondExpr> ParseOr() {
    ASSIGN_OR_RETURN(left, ParseAnd());
    while (ts_.IsWord(pos_, "OR")) {
      ++pos_;
      ASSIGN_OR_RETURN(right, ParseAnd());
      left =
          CondExpr::Logical(CondExpr::Kind::kOr, MoveIntoVector(std::move(left), std::move(right)));
    }
    return left;
  }

  Result<CondExpr> ParseAnd() {
    ASSIGN_OR_RETURN(left, ParseNot());
    while (ts_.IsWord(pos_, "AND")) {
      ++pos_;
      ASSIGN_OR_RETURN(right, ParseNot());
      left = CondExpr::Logical(CondExpr::Kind::kAnd,
                               MoveIntoVector(std::move(left), std::move(right)));
    }
    return left;
  }

  // NOT chains are read in a loop. Past kMaxOperators NOTs the expression is refused whatever
  // else it holds (its operator count is over the limit, and the other checks do not look at
  // NOT nodes), so the tree keeps at most kMaxOperators + 1 of them.
  Result<CondExpr> ParseNot() {
    size_t nots = 0;
    while (ts_.IsWord(pos_, "NOT")) ++pos_, ++nots;
    ASSIGN_OR_RETURN(inner, ParsePrimary());
    for (size_t i = 0; i < std::min(nots, kMaxOperators + 1); ++i) {
      inner = CondExpr::Logical(CondExpr::Kind::kNot, MoveIntoVector(std::move(inner)));
    }
    return inner;
  }

  Result<CondExpr> ParsePrimary() {
    if (Kind() == TokenKind::kLParen && !IsOperandGroup(pos_)) {
      const int wrappers = SkipWrappers();
      ++pos_;
      RETURN_IF_ERROR(Enter());
      ASSIGN_OR_RETURN(inner, ParseOr());
      Leave();
      if (Kind() != TokenKind::kRParen) return Fail();
      ++pos_;
      if (wrappers > 0) return Redundant();
      return inner;
    }
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
      ASSIGN_OR_RETURN(o, ParseOperand());
      list.push_back(std::move(o));
      if (Kind() == TokenKind::kComma) {
        ++pos_;
        continue;
      }
      if (Kind() != TokenKind::kRParen) return Fail();
      ++pos_;
      return list;
    }
  }

  // operand := ( operand ) | :value | name ( operand {, operand} ) | path. Parentheses around
  // an operand can only hold an operand, so a run of them is read in a loop: "((a))" is the
  // operand a, redundant once its second ')' is reached.
  Result<Operand> ParseOperand() {
    size_t parens = 0;
    while (Kind() == TokenKind::kLParen) {
      int close = ts_.MatchingParen(pos_);
      if (close >= 0) {
        TokenKind after = ts_.at(static_cast<size_t>(close) + 1).kind;
        if (after == TokenKind::kDot || after == TokenKind::kLBracket) {
          return ts_.SyntaxError(kind_, static_cast<size_t>(close) + 1);
        }
      }
      ++pos_, ++parens;
    }
    ASSIGN_OR_RETURN(inner, ParseBareOperand());
    for (size_t i = 0; i < parens; ++i) {
      if (Kind() != TokenKind::kRParen) return Fail();
      ++pos_;
      if (i == 1) return Redundant();
    }
    return inner;
  }

  Result<Operand> ParseBareOperand() {
    const TokenKind k = Kind();
    if (k == TokenKind::kValueRef) return Operand::OfValue(std::string(ts_.TextOf(pos_++)));
    if (k == TokenKind::kName && !IsConditionKeyword(ts_, pos_) && Kind(1) == TokenKind::kLParen) {
      RETURN_IF_ERROR(Enter());
      std::string name(ts_.TextOf(pos_));
      pos_ += 2;
      ASSIGN_OR_RETURN(args, ParseOperandList());
      Leave();
      return Operand::Call(std::move(name), std::move(args));
    }
    ASSIGN_OR_RETURN(raw, ParseRawPath(ts_, &pos_, kind_, IsConditionKeyword));
    return Operand::OfPath(std::move(raw));
  }

  const TokenStream& ts_;
  std::string_view kind_;
  size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

Result<ParsedCondition> ParseConditionSyntax(const TokenStream& ts, std::string_view kind) {
  return Parser(ts, kind).Run();
}

}  // namespace ttlstore::expr
