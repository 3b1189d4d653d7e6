#include "expr/condition_parser.h"

#include "expr/path_parser.h"

namespace ttlstore::expr {

bool IsConditionKeyword(const TokenStream& ts, size_t i) {
  return ts.IsWord(i, "AND") || ts.IsWord(i, "OR") || ts.IsWord(i, "NOT") ||
         ts.IsWord(i, "BETWEEN") || ts.IsWord(i, "IN");
}

namespace {

// Nesting beyond this is refused as a syntax error at the token where it happens. It only
// bounds the recursion (a 4 KB expression could otherwise nest ~2000 levels deep on a server
// thread's stack); no real expression comes close.
constexpr int kMaxNesting = 256;

class Parser {
 public:
  Parser(const TokenStream& ts, std::string_view kind) : ts_(ts), kind_(kind) {}

  Result<ParsedCondition> Run() {
    ASSIGN_OR_RETURN(root, ParseOr());
    if (Kind() != TokenKind::kEnd) return Fail();
    return ParsedCondition{std::move(root), redundant_};
  }

 private:
  TokenKind Kind(size_t ahead = 0) const { return ts_.at(pos_ + ahead).kind; }
  Error Fail() const { return ts_.SyntaxError(kind_, pos_); }

  // A group "( x )" whose whole content is another group "( y )" is redundant.
  void NoteRedundant(size_t open) {
    if (ts_.at(open + 1).kind != TokenKind::kLParen) return;
    int inner = ts_.MatchingParen(open + 1);
    if (inner >= 0 && inner + 1 == ts_.MatchingParen(open)) redundant_ = true;
  }

  // Whether the '(' at `open` starts a parenthesised operand ("(a) = :v", "(a.b).c > :v")
  // rather than a parenthesised condition: decided by what follows the matching ')'.
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

  Result<CondExpr> ParseNot() {
    if (!ts_.IsWord(pos_, "NOT")) return ParsePrimary();
    if (++depth_ > kMaxNesting) return Fail();
    ++pos_;
    ASSIGN_OR_RETURN(inner, ParseNot());
    --depth_;
    return CondExpr::Logical(CondExpr::Kind::kNot, MoveIntoVector(std::move(inner)));
  }

  Result<CondExpr> ParsePrimary() {
    if (Kind() == TokenKind::kLParen && !IsOperandGroup(pos_)) {
      if (++depth_ > kMaxNesting) return Fail();
      NoteRedundant(pos_);
      ++pos_;
      ASSIGN_OR_RETURN(inner, ParseOr());
      if (Kind() != TokenKind::kRParen) return Fail();
      ++pos_;
      --depth_;
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

  Result<Operand> ParseOperand() {
    const TokenKind k = Kind();
    if (k == TokenKind::kLParen) {
      if (++depth_ > kMaxNesting) return Fail();
      NoteRedundant(pos_);
      ++pos_;
      ASSIGN_OR_RETURN(inner, ParseOperand());
      if (Kind() != TokenKind::kRParen) return Fail();
      ++pos_;
      --depth_;
      // A parenthesised path may go on: "(a.b).c" is the path a.b.c.
      if (inner.is_path()) {
        RETURN_IF_ERROR(ParsePathTail(ts_, &pos_, kind_, IsConditionKeyword, &inner.raw));
      }
      return inner;
    }
    if (k == TokenKind::kValueRef) return Operand::OfValue(std::string(ts_.TextOf(pos_++)));
    if (k == TokenKind::kName && !IsConditionKeyword(ts_, pos_) && Kind(1) == TokenKind::kLParen) {
      if (++depth_ > kMaxNesting) return Fail();
      std::string name(ts_.TextOf(pos_));
      pos_ += 2;
      ASSIGN_OR_RETURN(args, ParseOperandList());
      --depth_;
      return Operand::Call(std::move(name), std::move(args));
    }
    ASSIGN_OR_RETURN(raw, ParseRawPath(ts_, &pos_, kind_, IsConditionKeyword));
    return Operand::OfPath(std::move(raw));
  }

  const TokenStream& ts_;
  std::string_view kind_;
  size_t pos_ = 0;
  int depth_ = 0;
  bool redundant_ = false;
};

}  // namespace

Result<ParsedCondition> ParseConditionSyntax(const TokenStream& ts, std::string_view kind) {
  return Parser(ts, kind).Run();
}

}  // namespace ttlstore::expr
