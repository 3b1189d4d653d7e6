// Pieces shared by the condition and update parsers: the expression-text limits, document-path
// syntax, and the "Invalid <kind>: ..." error helper.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "expr/ast.h"
#include "expr/lexer.h"
#include "expr/projection.h"

namespace ttlstore::expr {

// How deep the parsers recurse (function calls inside function calls, condition groups inside
// condition groups). Runs of parentheses around one operand and chains of NOT are read in loops,
// so every level that recurses costs at least three bytes of a balanced expression ("f(" and
// ")"): nothing within kMaxExpressionBytes reaches this depth unless its parentheses do not
// match, and that is a syntax error anyway. The parse at this depth, the checks and the tree's
// destruction fit in far less than a server thread's stack (expr_hostile_test measures it).
inline constexpr int kMaxNesting = static_cast<int>(kMaxExpressionBytes / 3) + 1;

// "Invalid <kind>: <message>", the form of every expression-level error.
Error InvalidExpression(std::string_view kind, std::string_view message);

// The checks DynamoDB makes before parsing: the 4 KB size limit, then non-emptiness
// (whitespace-only counts as empty).
Status CheckExpressionText(std::string_view text, std::string_view kind);

// Which words a grammar reserves as keywords (they cannot be attribute names at all; other
// reserved words parse as names and are rejected after parsing).
using KeywordTest = bool (*)(const TokenStream& ts, size_t i);

// Parses `name ( . name | [ index ] )*` starting at *pos, where a name is a bare word that is
// not a keyword or a #placeholder. On success *pos is past the path. Paths deeper than
// kMaxPathDepth and indexes of more than 9 digits are rejected here.
Result<std::vector<RawElement>> ParseRawPath(const TokenStream& ts, size_t* pos,
                                             std::string_view kind, KeywordTest is_keyword);

// Continues `path` with `( . name | [ index ] )*` (used after a parenthesised path).
Status ParsePathTail(const TokenStream& ts, size_t* pos, std::string_view kind,
                     KeywordTest is_keyword, std::vector<RawElement>* path);

}  // namespace ttlstore::expr
