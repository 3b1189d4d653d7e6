// Binary encoding of a TableDescriptor, the value stored under the table's name in the
// `catalog` family. A sequence of fields, each `tag (varint) . payload (len-prefixed)`; decoders
// skip tags they do not know, so later versions can add fields without a migration.
// Tags are persisted (see docs/formats.md): never reuse or renumber one.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "model/table.h"

namespace ttlstore::storage {

std::string EncodeTableDescriptor(const model::TableDescriptor& table);

// Returns nullopt on corrupt bytes.
std::optional<model::TableDescriptor> DecodeTableDescriptor(std::string_view bytes);

}  // namespace ttlstore::storage
