// Lexer for DynamoDB's PartiQL subset: turns a statement into tokens with their line:column, so
// that the parser and its error messages can point at the offending place.
//
// Token shapes (PartiQL spec, "Lexical structure"):
//   identifier         [A-Za-z_$][A-Za-z0-9_$]*   (keywords are identifiers; the parser decides)
//   quoted identifier  "..." with "" for a literal quote     -> an attribute or table name
//   string             '...' with '' for a literal quote     -> an S value
//   number             digits [. digits] [e[+-]digits], or . digits
//   punctuation        ( ) [ ] { } , . : ; * ? + - / = <> != < <= > >= << >>
// Whitespace and comments (-- to end of line, /* ... */) separate tokens and are dropped.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace ttlstore::api::partiql {

struct Position {
  int line = 1;
  int column = 1;
};

struct Token {
  enum class Kind { kIdentifier, kQuotedIdentifier, kString, kNumber, kPunct, kEnd };
  Kind kind = Kind::kEnd;
  // Identifier/number text as written, string and quoted-identifier contents unescaped, or the
  // punctuation itself ("<=").
  std::string text;
  Position pos;
  size_t length = 0;  // characters the token spans in the statement (quotes included)

  bool Is(Kind k, std::string_view t) const { return kind == k && text == t; }
  bool IsPunct(std::string_view t) const { return Is(Kind::kPunct, t); }
  // An unquoted identifier equal to `word` ignoring case (keywords are case-insensitive).
  bool IsKeyword(std::string_view word) const;
};

// The prefix of every syntax error, as the service words it.
inline constexpr char kMalformed[] = "Statement wasn't well formed, can't be processed: ";

// Splits `text` into tokens, ending with one kEnd token. Errors (unterminated string or quoted
// identifier, unexpected character) are ValidationExceptions with the kMalformed prefix.
Result<std::vector<Token>> Lex(std::string_view text);

// Whether a number's text (a literal, or a parameter's N) has an exponent the service's PartiQL
// engine can convert: one that fits a 32-bit integer. Beyond it, a literal makes the statement
// "not well formed" (with no detail) and a parameter "cannot be converted to a numeric value"
// (a conformance suite's capture against the service); within it, DynamoDB's own number range
// applies (Number overflow / underflow).
bool ExponentConvertible(std::string_view number_text);

// A position as messages give it, "line:column", or with a token's length, "line:column:length"
// (the service's suffix " at 1:40:6" on some PartiQL errors).
std::string At(Position p);
std::string At(Position p, size_t length);

// How a token is quoted in error messages: 'SELECTT', or "end of statement".
std::string Describe(const Token& token);

}  // namespace ttlstore::api::partiql
