// The vector a Tablestore Vector field reads from a row's column (issue 32): a String holding a
// JSON array of numbers, "[1, 5.1, 4.7, 0.08]", as the service documents ("Write vector data":
// string format), or a Binary of the float32 values little-endian (its binary format, the Java
// SDK's VectorUtils.toBytes). The array must have exactly the field's dimension and every value
// must be a finite float32; anything else gives the row no vector for the field (the field is
// absent from its document, as a value of the wrong type is for other fields).
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "model/cell.h"
#include "model/search_index.h"

namespace ttlstore::search {

// The vector of `cell` for a field of `dim` dimensions, or nullopt.
std::optional<std::vector<float>> ParseVectorCell(const model::CellValue& cell, size_t dim);
// A JSON array of `dim` finite float32 numbers, or nullopt (bounded: at most 64 bytes of text
// per element are looked at).
std::optional<std::vector<float>> ParseVectorJson(std::string_view text, size_t dim);

}  // namespace ttlstore::search
