// Binary encoding of an item, the value stored under its key in the `items` family.
// Layout (persisted; see docs/formats.md):
//   item  = format (1 byte, 0x01) . count (varint) . { name (len-prefixed) . value }*
//   value = type (1 byte, model::ValueType) . payload
//     S, N, B    : len-prefixed bytes (N as canonical decimal text)
//     BOOL       : 1 byte (0 or 1)
//     NULL       : nothing
//     M          : count (varint) . { name (len-prefixed) . value }*
//     L          : count (varint) . value*
//     SS, NS, BS : count (varint) . member (len-prefixed)*
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "model/attribute_value.h"

namespace ttlstore::storage {

// Format byte of items written by this version.
inline constexpr char kItemFormatV1 = 0x01;

std::string EncodeItem(const model::Item& item);

// Returns nullopt for bytes EncodeItem did not produce (corruption); never crashes.
std::optional<model::Item> DecodeItem(std::string_view bytes);

}  // namespace ttlstore::storage
