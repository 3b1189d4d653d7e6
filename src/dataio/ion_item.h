// Items in Amazon Ion text, as DynamoDB's export writes them and its import reads them: one item
// per line, `$ion_1_0 {Item:{...}}`. The developer guide's type mapping ("Table export output
// format"): S <-> string, N <-> decimal, B <-> blob, BOOL <-> bool, NULL <-> null, L <-> list,
// M <-> struct, SS/NS/BS <-> list annotated $dynamodb_SS / $dynamodb_NS / $dynamodb_BS.
//
// The reader takes the Ion text a person or another tool may write for those types, not only
// what the exporter writes: comments, quoted and 'symbol' field names, long strings ('''a''' '''b'''
// concatenated), every string escape, integers in decimal, hex and binary with `_` separators,
// decimals (1.5, 103., 6d2) and floats (1.5e0) as numbers, typed nulls (null.string) as NULL,
// clobs as binary. Refused, with a message naming the value: timestamps, symbols as values,
// s-expressions, nan and infinities, other annotations. Bounded: at most 32 nested containers
// (DynamoDB's limit) before it recurses, and the caller bounds the line's length.
#pragma once

#include <string>
#include <string_view>

#include "common/result.h"
#include "model/attribute_value.h"

namespace ttlstore::dataio {

// One line of an Ion import file: an optional `$ion_1_0` version marker, then a struct whose
// `Item` field is the item. Errors are Error::Validation with a message for the import's log.
Result<model::Item> ParseIonItemLine(std::string_view line);

// The line the exporter writes for `item` (no trailing newline): `$ion_1_0 {Item:{...}}`.
std::string FormatIonItemLine(const model::Item& item);

// `item` as an Ion struct (`{name:value,...}`), as the exporter writes an image.
std::string FormatIonStruct(const model::Item& item);

}  // namespace ttlstore::dataio
