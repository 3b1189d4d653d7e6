#include "expr/update_parser.h"

#include <algorithm>
#include <optional>

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

  Error Redundant() const {
    return InvalidExpression(kKind, "The expression has redundant parentheses;");
  }

  // Where a SET value may end: before ",", the next clause, or the end of the text.
  bool AtValueEnd() const {
    return Kind() == TokenKind::kComma || Kind() == TokenKind::kEnd || IsUpdateKeyword(ts_, pos_);
  }

  // A value that starts with '(' may be "(a + b)" (the whole value) or "(a) + b" (its first
  // operand). The service's parser looks ahead to choose: it takes the reading that survives
  // longer, so "(a + b) - c" fails at "-", not at "+", and when both fail at the same token it
  // reports a syntax error there. Redundant parentheses are reported only once a reading is
  // chosen, so the trials below leave them unreported.
  Result<SetValue> ParseSetValue() {
    if (Kind() != TokenKind::kLParen) return ParseArithmetic();
    const size_t start = pos_;
    const bool reporting = report_redundant_;
    report_redundant_ = false;
    const size_t whole_end = Trial(&Parser::ParseWholeValue, start);
    const size_t arith_end = Trial(&Parser::ParseArithmetic, start);
    report_redundant_ = reporting;
    // The look-ahead settles on a reading as soon as the other one fails, and only then runs
    // it for real (so "((a)) + " is redundant: "(( a ))" is read before the end is reached).
    if (whole_end == kParsed || (arith_end != kParsed && whole_end > arith_end)) {
      return ParseWholeValue();
    }
    if (arith_end == kParsed || arith_end > whole_end) return ParseArithmetic();
    pos_ = whole_end;  // both fail at the same token
    return Fail();
  }

  static constexpr size_t kParsed = static_cast<size_t>(-1);

  // Parses from `start` with `read`; kParsed if that reads a whole value, else the position of
  // the token where it failed. Leaves pos_ at `start`.
  size_t Trial(Result<SetValue> (Parser::*read)(), size_t start) {
    pos_ = start;
    const int depth = depth_;
    Result<SetValue> r = (this->*read)();
    size_t end = r && AtValueEnd() ? kParsed : pos_;
    pos_ = start;
    depth_ = depth;
    return end;
  }

  // ( arith ), with any redundant parentheses around it.
  Result<SetValue> ParseWholeValue() {
    const int wrappers = SkipWrappers();
    ++pos_;  // the '('
    ASSIGN_OR_RETURN(value, ParseArithmetic());
    if (Kind() != TokenKind::kRParen) return Fail();
    ++pos_;
    RETURN_IF_ERROR(CloseWrappers(wrappers));
    return value;
  }

  int SkipWrappers() {
    int k = 0;
    while (ts_.IsWrapper(pos_)) ++pos_, ++k;
    return k;
  }

  // Consumes the ')' of `wrappers` skipped redundant pairs; the first one is the redundancy.
  Status CloseWrappers(int wrappers) {
    for (int i = 0; i < wrappers; ++i) {
      if (report_redundant_) return Redundant();
      ++pos_;  // IsWrapper matched it right here
    }
    return Status::Ok();
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
    Operand o;
    if (!ParseOperandInto(&o)) return std::move(*error_);
    return o;
  }

  // oper := ( oper ) | :value | name ( oper {, oper} ) | path, into *out; false with error_
  // set on failure (no Status in the frame: this is the function that recurses, once per
  // nested call). ( oper ) holds only an operand, so a run of parentheses is read in a loop:
  // "((a))" is the operand a, redundant once its second ')' is reached.
  bool ParseOperandInto(Operand* out) {
    size_t parens = 0;
    while (Kind() == TokenKind::kLParen) ++pos_, ++parens;
    if (Kind() == TokenKind::kName && !IsUpdateKeyword(ts_, pos_) &&
        Kind(1) == TokenKind::kLParen) {
      if (++depth_ > kMaxNesting) return FailAt(pos_);
      StartCall(out);
      pos_ += 2;
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
      if (i == 1 && report_redundant_) return SetError(&Parser::Redundant);
    }
    return true;
  }

  // A syntax error at token i.
  [[gnu::noinline]] bool FailAt(size_t i) {
    error_ = ts_.SyntaxError(kKind, i);
    return false;
  }

  [[gnu::noinline]] bool SetError(Error (Parser::*make)() const) {
    error_ = (this->*make)();
    return false;
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
    Result<Operand> path = ParsePath();
    if (!path) {
      error_ = std::move(path).error();
      return false;
    }
    *out = std::move(*path);
    return true;
  }

  const TokenStream& ts_;
  size_t pos_ = 0;
  int depth_ = 0;
  bool report_redundant_ = true;
  std::optional<Error> error_;  // why ParseOperandInto failed
};

}  // namespace

Result<ParsedUpdate> ParseUpdateSyntax(const TokenStream& ts) { return Parser(ts).Run(); }

}  // namespace ttlstore::expr
