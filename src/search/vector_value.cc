#include "search/vector_value.h"

#include <charconv>
#include <cmath>
#include <cstring>

namespace ttlstore::search {
namespace {

bool Space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

}  // namespace

std::optional<std::vector<float>> ParseVectorJson(std::string_view in, size_t dim) {
  if (dim == 0 || in.size() > dim * 64 + 64) return std::nullopt;
  std::vector<float> out;
  out.reserve(dim);
  size_t i = 0;
  auto ws = [&] { while (i < in.size() && Space(in[i])) ++i; };
  ws();
  if (i >= in.size() || in[i] != '[') return std::nullopt;
  ++i;
  ws();
  if (i < in.size() && in[i] == ']') return std::nullopt;  // empty: no dimension matches
  while (true) {
    ws();
    if (out.size() == dim) return std::nullopt;  // too many elements
    // JSON numbers only: from_chars also takes "inf", "nan" and hex, which JSON has not.
    size_t j = i;
    if (j < in.size() && in[j] == '-') ++j;
    if (j >= in.size() || !(in[j] >= '0' && in[j] <= '9')) return std::nullopt;
    float v = 0;
    auto [end, ec] = std::from_chars(in.data() + i, in.data() + in.size(), v);
    if (ec != std::errc() || !std::isfinite(v)) return std::nullopt;
    i = size_t(end - in.data());
    out.push_back(v);
    ws();
    if (i >= in.size()) return std::nullopt;
    if (in[i] == ',') { ++i; continue; }
    if (in[i] != ']') return std::nullopt;
    ++i;
    ws();
    if (i != in.size() || out.size() != dim) return std::nullopt;
    return out;
  }
}

std::optional<std::vector<float>> ParseVectorCell(const model::CellValue& cell, size_t dim) {
  if (cell.type == model::CellType::kString) return ParseVectorJson(cell.bytes, dim);
  if (cell.type == model::CellType::kBlob) {
    if (dim == 0 || cell.bytes.size() != dim * sizeof(float)) return std::nullopt;
    std::vector<float> out(dim);
    std::memcpy(out.data(), cell.bytes.data(), cell.bytes.size());  // little-endian machines
    for (float v : out) {
      if (!std::isfinite(v)) return std::nullopt;
    }
    return out;
  }
  return std::nullopt;
}

}  // namespace ttlstore::search
