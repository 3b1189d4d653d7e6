// A measurement, not a check (disabled by default): the build rate of a search index over
// N rows written before it, and Search latencies over it. Run with
//   SEARCH_BENCH_ROWS=200000 ./build/unit_tests --gtest_also_run_disabled_tests \
//     --gtest_filter='SearchBench.*'
// Figures are in docs/search-engine.md.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>

#include "ops/row_ops.h"
#include "ops/table_ops.h"
#include "search/search_engine.h"

namespace ttlstore::search {
namespace {

using model::CellValue;
using model::SearchFieldType;
using Steady = std::chrono::steady_clock;

const char* kWords[] = {"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf",
                        "hotel", "india", "juliet", "kilo", "lima", "mike", "november",
                        "oscar", "papa", "quebec", "romeo", "sierra", "tango", "uniform",
                        "victor", "whiskey", "xray", "yankee", "zulu"};

TEST(SearchBench, DISABLED_BuildAndQuery) {
  int n = 200000;
  if (const char* e = std::getenv("SEARCH_BENCH_ROWS")) n = std::atoi(e);
  auto dir = std::filesystem::temp_directory_path() / ("ttlstore_search_bench_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  SystemClock clock;
  storage::StoreOptions options;
  options.path = (dir / "db").string();
  auto store = std::move(*storage::Store::Open(options));
  ops::TableCatalog catalog(*store, clock);
  ASSERT_TRUE(catalog.Load().ok());
  ops::RowOps rows(*store, clock);
  model::TableDescriptor spec;
  spec.name = "bench";
  spec.key.hash = {"id", model::ValueType::kN};
  spec.tablestore.emplace().primary_key = {{"id", model::PkType::kInteger}};
  ASSERT_TRUE(catalog.Create(spec).ok());
  auto table = [&] { return catalog.Find("bench", ops::Front::kTablestore); };
  std::mt19937_64 rng(7);
  auto t0 = Steady::now();
  for (int i = 0; i < n; ++i) {
    ops::RowChange c;
    c.primary_key = {{"id", CellValue::Integer(i)}};
    c.cells.push_back({ops::CellChange::Kind::kPut, "kw", CellValue::String("k" + std::to_string(rng() % 100)), std::nullopt});
    c.cells.push_back({ops::CellChange::Kind::kPut, "num", CellValue::Integer(int64_t(rng() % 1000000)), std::nullopt});
    std::string text;
    for (int w = 0; w < 8; ++w) text += std::string(kWords[rng() % 26]) + " ";
    c.cells.push_back({ops::CellChange::Kind::kPut, "txt", CellValue::String(text), std::nullopt});
    ASSERT_TRUE(rows.Write(*table(), c).ok());
  }
  double load_s = std::chrono::duration<double>(Steady::now() - t0).count();
  model::SearchIndexMeta meta;
  meta.name = "ix";
  meta.id = *catalog.AllocateId();
  auto field = [](const char* name, SearchFieldType t, bool sort) {
    model::SearchField f;
    f.name = name;
    f.type = t;
    f.sort_and_agg = sort;
    return f;
  };
  meta.fields = {field("kw", SearchFieldType::kKeyword, true), field("num", SearchFieldType::kLong, true),
                 field("txt", SearchFieldType::kText, false)};
  ASSERT_TRUE(catalog.Update("bench", [&](model::TableDescriptor& t) {
    t.tablestore->search_indexes.push_back(meta);
    return Status::Ok();
  }, ops::Front::kTablestore).ok());
  SearchEngine engine(*store, catalog, (dir / "search").string(), clock);
  auto t1 = Steady::now();
  ASSERT_TRUE(engine.Start().ok());
  ASSERT_TRUE(engine.Flush().ok());
  double build_s = std::chrono::duration<double>(Steady::now() - t1).count();
  std::printf("rows loaded: %d in %.1f s; index build: %.1f s, %.0f docs/s\n", n, load_s, build_s,
              n / build_s);
  const auto& ix = table()->tablestore->search_indexes.front();
  auto bench = [&](const char* name, auto make) {
    std::vector<double> lat;
    for (int r = 0; r < 200; ++r) {
      SearchRequest req = make(r);
      req.now_ms = clock.NowMs();
      auto a = Steady::now();
      auto res = engine.Search(table()->id, *table()->tablestore, ix, req);
      lat.push_back(std::chrono::duration<double, std::micro>(Steady::now() - a).count());
      ASSERT_TRUE(res.ok()) << res.error().message();
    }
    std::sort(lat.begin(), lat.end());
    std::printf("%-34s p50 %8.0f us  p99 %8.0f us\n", name, lat[lat.size() / 2], lat[lat.size() * 99 / 100]);
  };
  auto term = [](int r) {
    Query q;
    q.kind = Query::Kind::kTerm;
    q.field = "kw";
    q.terms = {CellValue::String("k" + std::to_string(r % 100))};
    return q;
  };
  auto range = [](int r, int64_t width) {
    Query q;
    q.kind = Query::Kind::kRange;
    q.field = "num";
    int64_t lo = (int64_t(r) * 3331) % 900000;
    q.from = CellValue::Integer(lo);
    q.to = CellValue::Integer(lo + width);
    q.include_lower = true;
    return q;
  };
  bench("term, total count", [&](int r) { SearchRequest s; s.query = term(r); s.total_count = true; return s; });
  bench("term, sorted by long desc", [&](int r) {
    SearchRequest s;
    s.query = term(r);
    SortKey k;
    k.key.kind = model::SearchSortKey::Kind::kField;
    k.key.field = "num";
    k.key.descending = true;
    s.sort = {k};
    return s;
  });
  bench("range 1%, total count", [&](int r) { SearchRequest s; s.query = range(r, 10000); s.total_count = true; return s; });
  bench("term AND range 50%, total count", [&](int r) {
    SearchRequest s;
    s.query.kind = Query::Kind::kBool;
    s.query.must = {term(r), range(0, 500000)};
    s.total_count = true;
    return s;
  });
  bench("match 2 words, total count", [&](int r) {
    SearchRequest s;
    s.query.kind = Query::Kind::kMatch;
    s.query.field = "txt";
    s.query.text = std::string(kWords[r % 26]) + " " + kWords[(r + 5) % 26];
    s.query.match_and = true;
    s.total_count = true;
    return s;
  });
  engine.Stop();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ttlstore::search
