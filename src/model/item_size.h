// DynamoDB's item-size rule, which drives the 400 KB item limit and consumed capacity.
// From the DynamoDB developer guide ("Item sizes and formats"):
//   - each attribute counts its name's UTF-8 length plus its value's size;
//   - S and B: their length in bytes; N: 1 byte per pair of significant digits, the pairs
//     aligned on the decimal point, plus 1 byte, plus 1 byte for a negative number (the service's
//     measured rule; the guide's "1 byte per two significant digits plus 1" is short by a byte
//     for 3.14159, -42 and 1.5: docs/compatibility.md, "Item size");
//   - BOOL and NULL: 1 byte;
//   - L and M: 3 bytes, plus each element's size, plus 1 byte per element;
//   - sets: the sum of their members' sizes (numbers sized as N above).
#pragma once

#include <cstddef>
#include <cstdint>

#include "model/attribute_value.h"

namespace ttlstore::model {

// Maximum item size, 400 KB (DynamoDB service quota, not adjustable).
inline constexpr size_t kMaxItemBytes = 400 * 1024;

// The version of the rule above that sizes are counted by. A table's stats (its item count and
// size, and its indexes') record the version they were counted with (TableDescriptor::
// size_rule); at start-up, stats counted by an older one are counted again (ops/stats_recount.h).
//   0: N sized as 1 + ceil(significant digits / 2), the guide's reading (before issue 35)
//   2: the rule above
inline constexpr uint32_t kItemSizeRule = 2;

size_t ValueSize(const AttributeValue& value);
size_t ItemSize(const Item& item);

// Documents nest at most 32 levels: a value may sit inside at most 31 maps and lists below its
// top-level attribute. NestingDepth is that count for the deepest value (0 for a scalar, a set
// or an empty map or list).
inline constexpr int kMaxContainerDepth = 31;
int NestingDepth(const AttributeValue& value);
int NestingDepth(const Item& item);

}  // namespace ttlstore::model
