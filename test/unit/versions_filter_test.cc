// Filters and column conditions (versions/filter.h) against a brute-force model, over seeded
// random rows with many versions, versions hidden by max versions and cells aged out by the
// TTL, random read specs (columns, column range, time range, max versions) and random filter
// trees. The model re-derives everything from the raw stored row: which versions the options
// leave visible, which the read selects, and what each filter node says, without the
// functions under test.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "versions/filter.h"
#include "versions/visibility.h"

namespace ttlstore::versions {
namespace {

using model::CellType;
using model::CellValue;

constexpr int64_t kNow = 1'700'000'000'000;

// ---- the model --------------------------------------------------------------------------------

// Versions the options leave visible, by brute force: sorted newest first, the first
// max_versions of them, of which those not older than the TTL.
std::vector<Version> ModelVisible(const Column& c, const model::VersionOptions& o, int64_t now) {
  std::vector<Version> vs = c.versions;
  std::sort(vs.begin(), vs.end(),
            [](const Version& a, const Version& b) { return a.timestamp_ms > b.timestamp_ms; });
  std::vector<Version> out;
  for (size_t i = 0; i < vs.size() && i < size_t(o.max_versions); ++i) {
    if (o.time_to_live >= 0 && now - vs[i].timestamp_ms > int64_t{o.time_to_live} * 1000) break;
    out.push_back(vs[i]);
  }
  return out;
}

bool ModelInRange(const ReadSpec& s, const std::string& name) {
  if (s.start_column && !(*s.start_column <= name)) return false;
  if (s.end_column && !(name < *s.end_column)) return false;
  if (s.columns.empty()) return true;
  for (const auto& c : s.columns) {
    if (c == name) return true;
  }
  return false;
}

// name -> the values a read with `s` returns (newest first); absent names are not in the map.
std::map<std::string, std::vector<CellValue>> ModelSeen(const StoredRow& row,
                                                        const model::VersionOptions& o, int64_t now,
                                                        const ReadSpec& s) {
  std::map<std::string, std::vector<CellValue>> out;
  for (const auto& c : row.columns) {
    if (!ModelInRange(s, c.name)) continue;
    std::vector<CellValue> picked;
    for (const auto& v : ModelVisible(c, o, now)) {
      if (v.timestamp_ms < s.start_ms || v.timestamp_ms >= s.end_ms) continue;
      if (s.max_versions > 0 && picked.size() == size_t(s.max_versions)) break;
      picked.push_back(v.value);
    }
    if (!picked.empty()) out[c.name] = picked;
  }
  return out;
}

bool ModelRowExists(const StoredRow& row, const model::VersionOptions& o, int64_t now) {
  if (row.columns.empty()) return true;
  for (const auto& c : row.columns) {
    if (!ModelVisible(c, o, now).empty()) return true;
  }
  return false;
}

// Comparison by a different route than CompareSameType: numbers through long double, strings
// and blobs through unsigned-byte vectors.
std::optional<int> ModelCompare(const CellValue& a, const CellValue& b) {
  if (a.type != b.type) return std::nullopt;
  auto sign = [](auto x, auto y) { return x < y ? -1 : (y < x ? 1 : 0); };
  switch (a.type) {
    case CellType::kInteger:
      return sign(static_cast<long double>(a.integer), static_cast<long double>(b.integer));
    case CellType::kDouble:
      return sign(a.dbl, b.dbl);
    case CellType::kBoolean:
      return sign(a.boolean ? 1 : 0, b.boolean ? 1 : 0);
    default: {
      std::vector<unsigned char> x(a.bytes.begin(), a.bytes.end());
      std::vector<unsigned char> y(b.bytes.begin(), b.bytes.end());
      return sign(x, y);
    }
  }
}

bool ModelMatch(const Filter& f, const CellValue& v) {
  auto c = ModelCompare(v, f.value);
  if (!c) return false;
  switch (f.comparator) {
    case Comparator::kEqual:
      return *c == 0;
    case Comparator::kNotEqual:
      return *c != 0;
    case Comparator::kGreaterThan:
      return *c == 1;
    case Comparator::kGreaterEqual:
      return *c != -1;
    case Comparator::kLessThan:
      return *c == -1;
    case Comparator::kLessEqual:
      return *c != 1;
  }
  return false;
}

bool ModelPasses(const Filter& f, const std::vector<PkCell>& pk,
                 const std::map<std::string, std::vector<CellValue>>& seen) {
  if (f.kind == Filter::Kind::kPagination) return true;
  if (f.kind == Filter::Kind::kComposite) {
    int passed = 0;
    for (const auto& c : f.children) passed += ModelPasses(c, pk, seen) ? 1 : 0;
    if (f.op == LogicOp::kNot) return passed == 0;
    if (f.op == LogicOp::kAnd) return passed == int(f.children.size());
    return passed > 0;
  }
  for (const auto& cell : pk) {
    if (cell.name == f.column) return ModelMatch(f, cell.value);
  }
  auto it = seen.find(f.column);
  if (it == seen.end()) return f.pass_if_missing;
  size_t n = f.latest_version_only ? 1 : it->second.size();
  for (size_t i = 0; i < n; ++i) {
    if (ModelMatch(f, it->second[i])) return true;
  }
  return false;
}

// ---- random inputs ----------------------------------------------------------------------------

const std::vector<std::string> kNames = {"a", "b", "c", "d", "e"};

CellValue RandomValue(std::mt19937& rng) {
  // Mostly small integers so that comparisons hit equality often; other types for the
  // cross-type rule.
  switch (rng() % 8) {
    case 0:
      return CellValue::String(std::string(1, char('a' + rng() % 3)));
    case 1:
      return CellValue::Blob(std::string(1, char(rng() % 2 ? 0x01 : 0xf0)));
    case 2:
      return CellValue::Boolean(rng() % 2);
    case 3:
      return CellValue::Double(double(rng() % 4) - 1.5);
    default:
      return CellValue::Integer(int64_t(rng() % 5) - 2);
  }
}

StoredRow RandomRow(std::mt19937& rng) {
  StoredRow row;
  for (const auto& name : kNames) {
    if (rng() % 4 == 0) continue;
    Column& c = row.FindOrAdd(name);
    int n = 1 + int(rng() % 6);
    for (int i = 0; i < n; ++i) {
      // Up to 20 s old: a 10 s TTL hides about half of them.
      PutVersion(c, kNow - int64_t(rng() % 20'000), RandomValue(rng));
    }
  }
  return row;
}

Filter RandomFilter(std::mt19937& rng, int depth) {
  Filter f;
  if (depth > 0 && rng() % 3 == 0) {
    f.kind = Filter::Kind::kComposite;
    f.op = static_cast<LogicOp>(1 + rng() % 3);
    int n = f.op == LogicOp::kNot ? 1 : 2 + int(rng() % 3);
    for (int i = 0; i < n; ++i) f.children.push_back(RandomFilter(rng, depth - 1));
    return f;
  }
  f.kind = Filter::Kind::kSingle;
  f.comparator = static_cast<Comparator>(1 + rng() % 6);
  f.column = rng() % 8 == 0 ? "id" : kNames[rng() % kNames.size()];
  f.value = f.column == "id" ? CellValue::String(rng() % 2 ? "r" : "s") : RandomValue(rng);
  f.pass_if_missing = rng() % 2;
  f.latest_version_only = rng() % 2;
  return f;
}

ReadSpec RandomSpec(std::mt19937& rng) {
  ReadSpec s;
  s.max_versions = int32_t(rng() % 4);  // 0: no cap
  if (rng() % 3 == 0) {
    s.start_ms = kNow - int64_t(rng() % 20'000);
    s.end_ms = s.start_ms + int64_t(rng() % 15'000);
  }
  if (rng() % 3 == 0) {
    for (const auto& n : kNames) {
      if (rng() % 2) s.columns.push_back(n);
    }
  }
  if (rng() % 3 == 0) s.start_column = kNames[rng() % kNames.size()];
  if (rng() % 3 == 0) s.end_column = kNames[rng() % kNames.size()];
  return s;
}

model::VersionOptions RandomOptions(std::mt19937& rng) {
  model::VersionOptions o;
  o.max_versions = 1 + int32_t(rng() % 4);
  o.time_to_live = rng() % 2 ? -1 : 10;
  return o;
}

// ---- tests -------------------------------------------------------------------------------------

TEST(VersionsFilter, ReadFiltersAgreeWithTheModelOnRandomRows) {
  std::mt19937 rng(20261125);
  int passed = 0, dropped = 0, absent = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    StoredRow row = RandomRow(rng);
    model::VersionOptions o = RandomOptions(rng);
    ReadSpec spec = RandomSpec(rng);
    Filter f = RandomFilter(rng, 3);
    std::vector<PkCell> pk = {{"id", CellValue::String("r")}};

    bool model_exists = ModelRowExists(row, o, kNow);
    ASSERT_EQ(RowVisible(row, o, kNow), model_exists) << "iteration " << iter;
    if (!model_exists) {
      ++absent;
      continue;
    }
    auto seen = ModelSeen(row, o, kNow, spec);
    std::vector<Column> columns = VisibleColumns(row, o, kNow, spec);
    ASSERT_EQ(columns.size(), seen.size()) << "iteration " << iter;
    for (const auto& c : columns) {
      ASSERT_TRUE(seen.count(c.name)) << c.name;
      ASSERT_EQ(c.versions.size(), seen[c.name].size()) << "iteration " << iter << " " << c.name;
    }
    bool expected = ModelPasses(f, pk, seen);
    ASSERT_EQ(RowPasses(f, pk, columns), expected) << "iteration " << iter;
    (expected ? passed : dropped)++;
  }
  // The random inputs exercise every outcome often.
  EXPECT_GT(passed, 3000);
  EXPECT_GT(dropped, 3000);
  EXPECT_GT(absent, 20);
}

TEST(VersionsFilter, ColumnConditionsSeeEveryVisibleVersionAndNothingHidden) {
  // A condition is evaluated against all visible versions (no read spec): the model with an
  // uncapped spec over all columns.
  std::mt19937 rng(7);
  for (int iter = 0; iter < 20000; ++iter) {
    StoredRow row = RandomRow(rng);
    model::VersionOptions o = RandomOptions(rng);
    Filter f = RandomFilter(rng, 3);
    std::vector<PkCell> pk = {{"id", CellValue::String("s")}};
    ReadSpec all;
    all.max_versions = 0;
    std::vector<Column> columns;
    if (RowVisible(row, o, kNow)) columns = VisibleColumns(row, o, kNow, all);
    std::map<std::string, std::vector<CellValue>> seen;
    if (ModelRowExists(row, o, kNow)) seen = ModelSeen(row, o, kNow, all);
    ASSERT_EQ(RowPasses(f, pk, columns), ModelPasses(f, pk, seen)) << "iteration " << iter;
  }
}

Filter Single(const std::string& column, Comparator cmp, CellValue v, bool pass_if_missing = true,
              bool latest_only = true) {
  Filter f;
  f.column = column;
  f.comparator = cmp;
  f.value = std::move(v);
  f.pass_if_missing = pass_if_missing;
  f.latest_version_only = latest_only;
  return f;
}

TEST(VersionsFilter, LatestVersionOnlyAndAnyVersion) {
  // The SDK test's case: 10 versions 0..9 of one column, newest 9.
  Column c{"col", {}};
  for (int i = 0; i < 10; ++i) PutVersion(c, 1000 + i, CellValue::Integer(i));
  std::vector<Column> cols = {c};
  EXPECT_FALSE(RowPasses(Single("col", Comparator::kEqual, CellValue::Integer(1)), {}, cols));
  EXPECT_TRUE(RowPasses(Single("col", Comparator::kGreaterThan, CellValue::Integer(3)), {}, cols));
  EXPECT_TRUE(
      RowPasses(Single("col", Comparator::kEqual, CellValue::Integer(1), true, false), {}, cols));
  EXPECT_FALSE(
      RowPasses(Single("col", Comparator::kEqual, CellValue::Integer(10), true, false), {}, cols));
}

TEST(VersionsFilter, ValuesOfAnotherTypeNeverMatchWhateverTheComparator) {
  const std::vector<CellValue> values = {CellValue::Integer(0), CellValue::String("a"),
                                         CellValue::Double(1.0), CellValue::Boolean(true),
                                         CellValue::Blob(std::string(1, '\0'))};
  for (size_t i = 0; i < values.size(); ++i) {
    for (size_t j = 0; j < values.size(); ++j) {
      for (int cmp = 1; cmp <= 6; ++cmp) {
        Filter f = Single("c", static_cast<Comparator>(cmp), values[j]);
        bool same = i == j;
        bool expect = same && (cmp == 1 || cmp == 4 || cmp == 6);  // =, >=, <= of equal values
        EXPECT_EQ(ValueMatches(f, values[i]), expect) << i << " " << j << " " << cmp;
      }
    }
  }
}

TEST(VersionsFilter, StringsAndBinariesCompareAsUnsignedBytes) {
  Filter f = Single("c", Comparator::kGreaterThan, CellValue::Blob(std::string(1, '\x7f')));
  EXPECT_TRUE(ValueMatches(f, CellValue::Blob(std::string(1, '\x80'))));
  f.value = CellValue::String("ABC");
  EXPECT_TRUE(ValueMatches(f, CellValue::String("ABD")));
  EXPECT_FALSE(ValueMatches(f, CellValue::String("AB")));
}

TEST(VersionsFilter, PaginationSkipsOffsetAndKeepsLimitColumns) {
  std::vector<Column> cols;
  for (const auto& n : kNames) cols.push_back(Column{n, {Version{1, CellValue::Integer(1)}}});
  Filter p;
  p.kind = Filter::Kind::kPagination;
  p.offset = 1;
  p.limit = 2;
  EXPECT_TRUE(RowPasses(p, {}, cols));
  std::vector<Column> page = cols;
  Paginate(p, page);
  ASSERT_EQ(page.size(), 2u);
  EXPECT_EQ(page[0].name, "b");
  EXPECT_EQ(page[1].name, "c");
  page = cols;
  p.offset = 5;
  Paginate(p, page);
  EXPECT_TRUE(page.empty());
  page = cols;
  p.offset = 3;
  p.limit = 100;
  Paginate(p, page);
  ASSERT_EQ(page.size(), 2u);
  EXPECT_EQ(page[0].name, "d");
}

}  // namespace
}  // namespace ttlstore::versions
