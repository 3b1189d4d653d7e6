// Vector attribute parsing and write checks for DynamoDB vector indexes (vector_value.h).
#include "index/vector_value.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

namespace ttlstore::index {
namespace {

constexpr char kInvalid[] = "One or more parameter values were invalid: ";

// A canonical N text as float32, or nullopt when it is out of float32's finite range.
std::optional<float> ToFloat(const std::string& canonical) {
  errno = 0;
  char* end = nullptr;
  double d = std::strtod(canonical.c_str(), &end);
  if (end == canonical.c_str()) return std::nullopt;
  float f = static_cast<float>(d);
  if (!std::isfinite(f)) return std::nullopt;
  return f;
}

}  // namespace

std::optional<std::vector<float>> VectorOf(const model::AttributeValue& v, uint32_t dimensions) {
  if (v.type() != model::ValueType::kL || v.list().size() != dimensions) return std::nullopt;
  std::vector<float> out;
  out.reserve(dimensions);
  for (const model::AttributeValue& e : v.list()) {
    if (e.type() != model::ValueType::kN) return std::nullopt;
    auto f = ToFloat(e.scalar());
    if (!f) return std::nullopt;
    out.push_back(*f);
  }
  return out;
}

std::optional<std::vector<float>> ItemVector(const model::SecondaryIndex& index,
                                             const model::Item& item) {
  auto it = item.find(index.vector->attribute);
  if (it == item.end()) return std::nullopt;
  return VectorOf(it->second, index.vector->dimensions);
}

Status CheckVectorAttributes(const model::TableDescriptor& table, const model::Item& item) {
  for (const model::SecondaryIndex& ix : table.indexes) {
    if (!ix.IsVector()) continue;
    const model::VectorIndexSettings& vs = *ix.vector;
    for (const model::KeyElement& f : vs.inline_filters) {
      auto a = item.find(f.name);
      if (a != item.end() && a->second.type() != f.type) {
        return Error::Validation(std::string(kInvalid) + "Type mismatch for Index Key " + f.name +
                                 " Expected: " + model::TypeName(f.type) +
                                 " Actual: " + model::TypeName(a->second.type()) +
                                 " IndexName: " + ix.name);
      }
    }
    auto it = item.find(vs.attribute);
    if (it == item.end()) continue;
    const model::AttributeValue& v = it->second;
    if (v.type() != model::ValueType::kL) {
      return Error::Validation(std::string(kInvalid) + "Invalid type for parameter " +
                               vs.attribute + ": vector index " + ix.name +
                               " expects a list (L) of numbers (N), got " +
                               model::TypeName(v.type()));
    }
    for (size_t i = 0; i < v.list().size(); ++i) {
      const model::AttributeValue& e = v.list()[i];
      if (e.type() != model::ValueType::kN) {
        return Error::Validation(std::string(kInvalid) + "Invalid type for parameter " +
                                 vs.attribute + "[" + std::to_string(i) + "]: vector index " +
                                 ix.name + " expects a number (N), got " +
                                 model::TypeName(e.type()));
      }
      if (!ToFloat(e.scalar())) {
        return Error::Validation(std::string(kInvalid) + "Invalid value for parameter " +
                                 vs.attribute + "[" + std::to_string(i) + "]: vector index " +
                                 ix.name + " stores 32-bit floating point numbers, and " +
                                 e.scalar() + " is out of their range");
      }
    }
    if (v.list().size() != vs.dimensions) {
      return Error::Validation(std::string(kInvalid) + "Vector attribute " + vs.attribute +
                               " has " + std::to_string(v.list().size()) +
                               " dimensions, but vector index " + ix.name + " requires " +
                               std::to_string(vs.dimensions));
    }
  }
  return Status::Ok();
}

}  // namespace ttlstore::index
