#include "expr/update_parser.h"

#include "expr/path_parser.h"

namespace ttlstore::expr {

bool IsUpdateKeyword(const TokenStream& ts, size_t i) {
  return ts.IsWord(i, "SET") || ts.IsWord(i, "REMOVE") || ts.IsWord(i, "ADD") ||
         ts.IsWord(i, "DELETE");
}

namespace {

constexpr char kKind[] = "UpdateExpression";
using ActionKind = UpdateAction::Kind;

class Parser {
 public:
  explicit Parser(const TokenStream& ts) : ts_(ts) {}

  Result<ParsedUpdate> Run() {
    ParsedUpdate out;
    bool seen[4] = {false, false, false, false};
    static const char* const kClauses[] = {"SET", "REMOVE", "ADD", "DELETE"};
    while (Kind() != TokenKind::kEnd) {
      int clause = -1;
      for (int c = 0; c < 4; ++c) {
        if (ts_.IsWord(pos_, kClauses[c])) clause = c;
      }
      if (clause < 0) return Fail();
      if (seen[clause] && !out.repeated_clause) out.repeated_clause = kClauses[clause];
      seen[clause] = true;
      ++pos_;
      while (true) {
        ASSIGN_OR_RETURN(action, ParseAction(static_cast<ActionKind>(clause)));
        out.actions.push_back(std::move(action));
        if (Kind() != TokenKind::kComma) break;
        ++pos_;
      }
    }
    return out;
  }

 private:
  TokenKind Kind(size_t ahead = 0) const { return ts_.at(pos_ + ahead).kind; }
  Error Fail() const { return ts_.SyntaxError(kKind, pos_); }

  Result<Operand> ParsePath() {
    ASSIGN_OR_RETURN(raw, ParseRawPath(ts_, &pos_, kKind, IsUpdateKeyword));
    return Operand::OfPath(std::move(raw));
  }

  Result<UpdateAction> ParseAction(ActionKind kind) {
    ASSIGN_OR_RETURN(target, ParsePath());
    switch (kind) {
      case ActionKind::kRemove:
        return UpdateAction::Remove(std::move(target));
      case ActionKind::kSet: {
        if (Kind() != TokenKind::kEq) return Fail();
        ++pos_;
        ASSIGN_OR_RETURN(value, ParseSetValue());
        return UpdateAction::Set(std::move(target), std::move(value));
      }
      default: {
        if (Kind() != TokenKind::kValueRef) return Fail();
        Operand value = Operand::OfValue(std::string(ts_.TextOf(pos_++)));
        return UpdateAction::AddOrDelete(kind, std::move(target), std::move(value));
      }
    }
  }

  Result<SetValue> ParseSetValue() {
    if (Kind() == TokenKind::kLParen) {
      // "(a) + b" parenthesises an operand; "(a + b)" the whole value.
      int close = ts_.MatchingParen(pos_);
      TokenKind after = close < 0 ? TokenKind::kEnd : ts_.at(close + 1).kind;
      if (after != TokenKind::kPlus && after != TokenKind::kMinus) {
        ++pos_;
        ASSIGN_OR_RETURN(value, ParseArithmetic());
        if (Kind() != TokenKind::kRParen) return Fail();
        ++pos_;
        return value;
      }
    }
    return ParseArithmetic();
  }

  Result<SetValue> ParseArithmetic() {
    ASSIGN_OR_RETURN(a, ParseOperandParens());
    if (Kind() != TokenKind::kPlus && Kind() != TokenKind::kMinus)
      return SetValue::Of(std::move(a));
    SetValue::Kind kind =
        Kind() == TokenKind::kPlus ? SetValue::Kind::kPlus : SetValue::Kind::kMinus;
    ++pos_;
    ASSIGN_OR_RETURN(b, ParseOperandParens());
    return SetValue::Arithmetic(kind, std::move(a), std::move(b));
  }

  Result<Operand> ParseOperandParens() {
    if (Kind() != TokenKind::kLParen) return ParseOperand();
    ++pos_;
    ASSIGN_OR_RETURN(inner, ParseOperand());
    if (Kind() != TokenKind::kRParen) return Fail();
    ++pos_;
    return inner;
  }

  Result<Operand> ParseOperand() {
    if (Kind() == TokenKind::kValueRef) return Operand::OfValue(std::string(ts_.TextOf(pos_++)));
    if (Kind() == TokenKind::kName && !IsUpdateKeyword(ts_, pos_) &&
        Kind(1) == TokenKind::kLParen) {
      // Function calls nest at most a few levels in practice; the 4 KB limit bounds the rest.
      std::string name(ts_.TextOf(pos_));
      pos_ += 2;
      std::vector<Operand> args;
      while (true) {
        ASSIGN_OR_RETURN(arg, ParseOperandParens());
        args.push_back(std::move(arg));
        if (Kind() == TokenKind::kComma) {
          ++pos_;
          continue;
        }
        if (Kind() != TokenKind::kRParen) return Fail();
        ++pos_;
        return Operand::Call(std::move(name), std::move(args));
      }
    }
    return ParsePath();
  }

  const TokenStream& ts_;
  size_t pos_ = 0;
};

}  // namespace

Result<ParsedUpdate> ParseUpdateSyntax(const TokenStream& ts) { return Parser(ts).Run(); }

}  // namespace ttlstore::expr
