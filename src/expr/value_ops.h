// DynamoDB's operations on values, as used when evaluating conditions and applying updates:
// document-path lookup, comparison, size(), begins_with() and contains().
// CompareScalars (declared in key_condition.h) is defined here too.
#pragma once

#include <optional>

#include "expr/ast.h"
#include "expr/path.h"
#include "model/attribute_value.h"

namespace ttlstore::expr {

// The value at `path` in `item`, or nullptr if any step is missing or of the wrong type
// (a member of a non-map, an index into a non-list or past its end).
const model::AttributeValue* FindPath(const model::Item& item, const Path& path);

// `a op b` with DynamoDB's rules. A missing operand (nullptr) makes every comparison false except
// <>, which is true. Values of different types are unequal and unordered. = and <> compare any
// types deeply (numbers by value, sets as sets); <, <=, >, >= order only N (numerically), S and B
// (by unsigned bytes) and are false for every other type.
bool CompareValues(const model::AttributeValue* a, CompareOp op, const model::AttributeValue* b);

// Deep equality, numbers compared by value.
bool ValuesEqual(const model::AttributeValue& a, const model::AttributeValue& b);

// size(): S in UTF-16 code units (DynamoDB is a Java service and counts as Java's
// String.length() does: one per character of the BMP, two beyond it), B in bytes, sets, lists
// and maps by element count. N, BOOL and NULL have no size (nullopt).
std::optional<size_t> SizeOf(const model::AttributeValue& v);

// begins_with(): a byte prefix test for S on S and B on B; false for anything else.
bool BeginsWith(const model::AttributeValue& v, const model::AttributeValue& prefix);

// contains(): substring for S in S, byte substring for B in B, membership for a set (the operand
// being of the set's element type) and for a list (any element equal to the operand).
bool Contains(const model::AttributeValue& v, const model::AttributeValue& operand);

}  // namespace ttlstore::expr
