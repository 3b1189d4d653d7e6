#include "versions/filter.h"

#include <algorithm>
#include <cstring>

namespace ttlstore::versions {
namespace {

// The values a single filter sees for its column: a primary-key cell (one value) or the seen
// versions of an attribute column, newest first. Empty when the row does not have the column.
struct Seen {
  const model::CellValue* pk = nullptr;
  const Column* column = nullptr;
};

Seen Find(const std::string& name, const std::vector<PkCell>& primary_key,
          const std::vector<Column>& columns) {
  Seen seen;
  for (const auto& cell : primary_key) {
    if (cell.name == name) {
      seen.pk = &cell.value;
      return seen;
    }
  }
  auto it = std::lower_bound(columns.begin(), columns.end(), name,
                             [](const Column& c, const std::string& n) { return c.name < n; });
  if (it != columns.end() && it->name == name && !it->versions.empty()) seen.column = &*it;
  return seen;
}

bool SinglePasses(const Filter& f, const std::vector<PkCell>& primary_key,
                  const std::vector<Column>& columns) {
  Seen seen = Find(f.column, primary_key, columns);
  if (seen.pk) return ValueMatches(f, *seen.pk);
  if (!seen.column) return f.pass_if_missing;
  if (f.latest_version_only) return ValueMatches(f, seen.column->versions.front().value);
  for (const auto& v : seen.column->versions) {
    if (ValueMatches(f, v.value)) return true;
  }
  return false;
}

}  // namespace

int CompareSameType(const model::CellValue& a, const model::CellValue& b) {
  switch (a.type) {
    case model::CellType::kInteger:
      return a.integer < b.integer ? -1 : a.integer > b.integer ? 1 : 0;
    case model::CellType::kDouble:
      return a.dbl < b.dbl ? -1 : a.dbl > b.dbl ? 1 : 0;
    case model::CellType::kBoolean:
      return int{a.boolean} - int{b.boolean};
    case model::CellType::kString:
    case model::CellType::kBlob: {
      // std::string compares char_traits<char>, which compares as unsigned char.
      int c = a.bytes.compare(b.bytes);
      return c < 0 ? -1 : c > 0 ? 1 : 0;
    }
    default:
      return 0;
  }
}

bool ValueMatches(const Filter& single, const model::CellValue& value_seen) {
  if (value_seen.type != single.value.type) return false;
  int c = CompareSameType(value_seen, single.value);
  switch (single.comparator) {
    case Comparator::kEqual:
      return c == 0;
    case Comparator::kNotEqual:
      return c != 0;
    case Comparator::kGreaterThan:
      return c > 0;
    case Comparator::kGreaterEqual:
      return c >= 0;
    case Comparator::kLessThan:
      return c < 0;
    case Comparator::kLessEqual:
      return c <= 0;
  }
  return false;
}

// Recursion is bounded by the decoder: a filter holds at most 32 nodes (filter_decode.h).
bool RowPasses(const Filter& filter, const std::vector<PkCell>& primary_key,
               const std::vector<Column>& columns) {
  switch (filter.kind) {
    case Filter::Kind::kPagination:
      return true;
    case Filter::Kind::kSingle:
      return SinglePasses(filter, primary_key, columns);
    case Filter::Kind::kComposite:
      switch (filter.op) {
        case LogicOp::kNot:
          return !filter.children.empty() &&
                 !RowPasses(filter.children.front(), primary_key, columns);
        case LogicOp::kAnd:
          for (const auto& c : filter.children) {
            if (!RowPasses(c, primary_key, columns)) return false;
          }
          return true;
        case LogicOp::kOr:
          for (const auto& c : filter.children) {
            if (RowPasses(c, primary_key, columns)) return true;
          }
          return false;
      }
  }
  return false;
}

void Paginate(const Filter& filter, std::vector<Column>& columns) {
  if (filter.kind != Filter::Kind::kPagination) return;
  size_t offset = static_cast<size_t>(std::max(filter.offset, 0));
  size_t limit = static_cast<size_t>(std::max(filter.limit, 0));
  if (offset >= columns.size()) {
    columns.clear();
    return;
  }
  columns.erase(columns.begin(), columns.begin() + static_cast<std::ptrdiff_t>(offset));
  if (columns.size() > limit) columns.resize(limit);
}

}  // namespace ttlstore::versions
