// The tagged fields of the catalog's persisted payloads (catalog_codec.cc, search_index_codec.cc):
// each field is a varint tag and a length-prefixed payload, so a reader skips tags it does not
// know and fields added later read back as their defaults (docs/formats.md, "Catalog").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/coding.h"

namespace ttlstore::storage {

inline void PutField(std::string* out, uint64_t tag, std::string_view payload) {
  PutVarint64(out, tag);
  PutLengthPrefixed(out, payload);
}

inline void PutVarintField(std::string* out, uint64_t tag, uint64_t v) {
  std::string p;
  PutVarint64(&p, v);
  PutField(out, tag, p);
}

// A field's payload that is exactly one varint.
inline bool GetVarintPayload(std::string_view p, uint64_t* v) {
  return GetVarint64(&p, v) && p.empty();
}

}  // namespace ttlstore::storage
