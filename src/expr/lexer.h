// Lexer shared by the condition, key-condition and update parsers: splits expression text into
// tokens that remember their byte offsets, so that a syntax error can quote the text around the
// offending token exactly as DynamoDB does:
//   Invalid UpdateExpression: Syntax error; token: "INVALID", near: "INVALID SYNTAX"
// Keywords (AND, OR, NOT, BETWEEN, IN, SET, REMOVE, ADD, DELETE) are plain kName tokens; each
// parser decides which words it reserves, because the two grammars reserve different ones.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"

namespace ttlstore::expr {

enum class TokenKind {
  kName,      // attribute name or keyword: [A-Za-z_][A-Za-z0-9_]*
  kNameRef,   // #name placeholder: '#' [A-Za-z0-9_]+
  kValueRef,  // :value placeholder: ':' [A-Za-z0-9_]+
  kNumber,    // [0-9]+ (only valid as a list index)
  kLParen,    // (
  kRParen,    // )
  kLBracket,  // [
  kRBracket,  // ]
  kDot,       // .
  kComma,     // ,
  kEq,        // =
  kNe,        // <>
  kLt,        // <
  kLe,        // <=
  kGt,        // >
  kGe,        // >=
  kPlus,      // +
  kMinus,     // -
  kInvalid,   // any other character (one UTF-8 code point)
  kEnd,       // end of input; always the last token
};

struct Token {
  TokenKind kind = TokenKind::kEnd;
  size_t begin = 0;  // byte offsets into the expression text
  size_t end = 0;
};

// The tokens of one expression, plus for every '(' the index of its matching ')' (or -1), which
// the parsers use to tell a parenthesised condition from a parenthesised operand and to detect
// redundant parentheses.
class TokenStream {
 public:
  explicit TokenStream(std::string_view text);

  std::string_view text() const { return text_; }
  size_t size() const { return tokens_.size(); }
  const Token& at(size_t i) const { return tokens_[i < tokens_.size() ? i : tokens_.size() - 1]; }
  std::string_view TextOf(size_t i) const {
    const Token& t = at(i);
    return text_.substr(t.begin, t.end - t.begin);
  }
  // True if token i is a kName spelling `word` in any case (keywords are case-insensitive).
  bool IsWord(size_t i, std::string_view word) const;
  // Index of the ')' matching the '(' at i, or -1 if unbalanced.
  int MatchingParen(size_t i) const { return match_[i]; }
  // True if the '(' at i holds nothing but another group: "( (x) )", a redundant pair.
  bool IsWrapper(size_t i) const {
    if (at(i).kind != TokenKind::kLParen || at(i + 1).kind != TokenKind::kLParen) return false;
    return match_[i] >= 0 && match_[i + 1] >= 0 && match_[i + 1] + 1 == match_[i];
  }

  // "Invalid <kind>: Syntax error; token: "<tok>", near: "<text>"" for the token at i. The near
  // text runs from the start of the token before it to the end of the token after it (to the
  // end of the text when the offending token is <EOF>).
  Error SyntaxError(std::string_view kind, size_t i) const;

 private:
  std::string_view text_;
  std::vector<Token> tokens_;
  std::vector<int> match_;
};

}  // namespace ttlstore::expr
