#include "expr/lexer.h"

#include <algorithm>
#include <cctype>

namespace ttlstore::expr {
namespace {

// A name starts with a letter: "_abc" or "_f(...)" is a syntax error on the token "_", as the
// service answers (ScyllaDB's Alternator test_update_expression_name_token and
// test_update_expression_unknown_function, run against the service). Placeholders (#_a, :_v)
// may start with anything IsNameChar takes.
bool IsNameStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }
bool IsNameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool IsDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }
bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// Length of the UTF-8 sequence starting with `lead`, so that an unexpected non-ASCII character
// is quoted whole in the error message ("token: "ü"") rather than as a broken byte.
size_t Utf8Length(unsigned char lead) {
  if (lead < 0x80) return 1;
  if ((lead & 0xE0) == 0xC0) return 2;
  if ((lead & 0xF0) == 0xE0) return 3;
  if ((lead & 0xF8) == 0xF0) return 4;
  return 1;
}

}  // namespace

TokenStream::TokenStream(std::string_view text) : text_(text) {
  size_t i = 0;
  const size_t n = text.size();
  while (true) {
    while (i < n && IsSpace(text[i])) ++i;
    if (i >= n) break;
    const char c = text[i];
    size_t j = i + 1;
    TokenKind kind = TokenKind::kInvalid;
    auto run = [&](auto pred) {
      while (j < n && pred(text[j])) ++j;
    };
    switch (c) {
      case '(':
        kind = TokenKind::kLParen;
        break;
      case ')':
        kind = TokenKind::kRParen;
        break;
      case '[':
        kind = TokenKind::kLBracket;
        break;
      case ']':
        kind = TokenKind::kRBracket;
        break;
      case '.':
        kind = TokenKind::kDot;
        break;
      case ',':
        kind = TokenKind::kComma;
        break;
      case '=':
        kind = TokenKind::kEq;
        break;
      case '+':
        kind = TokenKind::kPlus;
        break;
      case '-':
        kind = TokenKind::kMinus;
        break;
      case '<':
        kind = TokenKind::kLt;
        if (j < n && text[j] == '>')
          kind = TokenKind::kNe, ++j;
        else if (j < n && text[j] == '=')
          kind = TokenKind::kLe, ++j;
        break;
      case '>':
        kind = TokenKind::kGt;
        if (j < n && text[j] == '=') kind = TokenKind::kGe, ++j;
        break;
      case '#':
      case ':':
        run(IsNameChar);
        if (j > i + 1)
          kind = c == '#' ? TokenKind::kNameRef : TokenKind::kValueRef;
        else
          j = i + 1;  // a lone '#' or ':' is not a placeholder
        break;
      default:
        if (IsDigit(c)) {
          kind = TokenKind::kNumber;
          run(IsDigit);
        } else if (IsNameStart(c)) {
          kind = TokenKind::kName;
          run(IsNameChar);
        } else {
          j = std::min(n, i + Utf8Length(static_cast<unsigned char>(c)));
        }
    }
    tokens_.push_back({kind, i, j});
    i = j;
  }
  tokens_.push_back({TokenKind::kEnd, n, n});

  match_.assign(tokens_.size(), -1);
  std::vector<size_t> open;
  for (size_t k = 0; k < tokens_.size(); ++k) {
    if (tokens_[k].kind == TokenKind::kLParen) {
      open.push_back(k);
    } else if (tokens_[k].kind == TokenKind::kRParen && !open.empty()) {
      match_[open.back()] = static_cast<int>(k);
      open.pop_back();
    }
  }
}

bool TokenStream::IsWord(size_t i, std::string_view word) const {
  if (at(i).kind != TokenKind::kName) return false;
  std::string_view t = TextOf(i);
  if (t.size() != word.size()) return false;
  for (size_t k = 0; k < t.size(); ++k) {
    if (std::toupper(static_cast<unsigned char>(t[k])) !=
        std::toupper(static_cast<unsigned char>(word[k]))) {
      return false;
    }
  }
  return true;
}

Error TokenStream::SyntaxError(std::string_view kind, size_t i) const {
  const Token& t = at(i);
  const bool eof = t.kind == TokenKind::kEnd;
  size_t near_begin = i > 0 ? at(i - 1).begin : t.begin;
  size_t near_end =
      eof ? text_.size() : (at(i + 1).kind == TokenKind::kEnd ? t.end : at(i + 1).end);
  std::string token = eof ? "<EOF>" : std::string(TextOf(i));
  return Error::Validation("Invalid " + std::string(kind) + ": Syntax error; token: \"" + token +
                           "\", near: \"" +
                           std::string(text_.substr(near_begin, near_end - near_begin)) + "\"");
}

}  // namespace ttlstore::expr
