// The catalog encoding of a Tablestore table's search indexes (model/search_index.h): one
// nested, tagged payload per index inside the table's Tablestore schema (catalog_codec.cc,
// TablestoreTag kTsSearchIndex). Unknown tags are skipped, so fields added later read back as
// their defaults in older descriptors. Tags are persisted (docs/formats.md, "Catalog").
#pragma once

#include <string>
#include <string_view>

#include "model/search_index.h"

namespace ttlstore::storage {

std::string EncodeSearchIndex(const model::SearchIndexMeta& index);
// False on malformed bytes, a missing name or a zero id.
bool DecodeSearchIndex(std::string_view in, model::SearchIndexMeta* index);

}  // namespace ttlstore::storage
