// Search indexes end to end below the protocol: a real Store, catalog and RowOps writing a few
// thousand random rows, a SearchEngine building and following the index, and every query kind,
// sort, page and ParallelScan checked against a brute-force evaluation of the same rows
// (search/search_engine.h). Also: the build of rows written before the index, restart with
// queued changes (the applier's resume), TTL hiding and purge, validation errors, tokens.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <set>

#include "check/consistency.h"
#include "search/agg_types.h"
#include "ops/row_ops.h"
#include "ops/table_ops.h"
#include "search/query_builder.h"
#include "search/search_engine.h"
#include "search/terms.h"
#include "versions/row_key.h"

namespace ttlstore::search {
namespace {

using model::CellValue;
using model::SearchFieldType;
using model::SearchSortKey;

constexpr int64_t kNow = 1'700'000'040'000;
constexpr int kRows = 3000;
const char* kWords[] = {"alpha", "bravo", "charlie", "delta", "echo", "foxtrot",
                        "golf", "hotel", "india", "juliet", "kilo", "lima"};

// The brute-force side: each row as plain values.
struct Row {
  int64_t id = 0;
  std::optional<std::string> kw;
  std::optional<int64_t> num;
  std::optional<double> dbl;
  std::optional<bool> flag;
  std::optional<std::string> txt;
  std::optional<int64_t> dt;
  std::vector<std::string> tags;
  int64_t ts = 0;
};

std::vector<std::string> Words(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      cur.push_back(char(std::tolower(c)));
    } else if (!cur.empty()) {
      out.push_back(cur);
      cur.clear();
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

Query Leaf(Query::Kind k, const std::string& field) {
  Query q;
  q.kind = k;
  q.field = field;
  return q;
}
Query Term(const std::string& field, CellValue v) {
  Query q = Leaf(Query::Kind::kTerm, field);
  q.terms = {std::move(v)};
  return q;
}
Query Range(const std::string& field, std::optional<CellValue> from, bool incl_from,
            std::optional<CellValue> to, bool incl_to) {
  Query q = Leaf(Query::Kind::kRange, field);
  q.from = std::move(from);
  q.to = std::move(to);
  q.include_lower = incl_from;
  q.include_upper = incl_to;
  return q;
}
Query Text(Query::Kind k, const std::string& field, const std::string& text) {
  Query q = Leaf(k, field);
  q.text = text;
  return q;
}

class SearchEngineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("ttlstore_search_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    storage::StoreOptions options;
    options.path = (dir_ / "db").string();
    auto s = storage::Store::Open(options);
    ASSERT_TRUE(s.ok()) << s.error().message();
    store_ = std::move(*s);
    catalog_ = std::make_unique<ops::TableCatalog>(*store_, clock_);
    ASSERT_TRUE(catalog_->Load().ok());
    rows_ = std::make_unique<ops::RowOps>(*store_, clock_);
    model::TableDescriptor spec;
    spec.name = "docs";
    spec.key.hash = {"id", model::ValueType::kN};
    auto& ts = spec.tablestore.emplace();
    ts.primary_key = {{"id", model::PkType::kInteger}};
    ts.options.max_versions = 1;
    ASSERT_TRUE(catalog_->Create(spec).ok());
  }
  void TearDown() override {
    engine_.reset();
    rows_.reset();
    catalog_.reset();
    store_.reset();
    std::filesystem::remove_all(dir_);
  }

  ops::TablePtr Table() { return catalog_->Find("docs", ops::Front::kTablestore); }
  const model::SearchIndexMeta& Index() { return Table()->tablestore->search_indexes.front(); }

  void AddIndex(int32_t ttl = -1) {
    auto id = catalog_->AllocateId();
    ASSERT_TRUE(id.ok());
    model::SearchIndexMeta meta;
    meta.name = "ix";
    meta.id = *id;
    meta.time_to_live = ttl;
    auto field = [](std::string name, SearchFieldType t, bool sort, bool array = false) {
      model::SearchField f;
      f.name = std::move(name);
      f.type = t;
      f.sort_and_agg = sort;
      f.is_array = array;
      return f;
    };
    meta.fields = {field("kw", SearchFieldType::kKeyword, true),
                   field("num", SearchFieldType::kLong, true),
                   field("dbl", SearchFieldType::kDouble, true),
                   field("flag", SearchFieldType::kBoolean, true),
                   field("txt", SearchFieldType::kText, false),
                   field("dt", SearchFieldType::kDate, true),
                   field("tags", SearchFieldType::kKeyword, false, true),
                   field("id", SearchFieldType::kLong, true)};
    auto r = catalog_->Update(
        "docs",
        [&](model::TableDescriptor& t) {
          t.tablestore->search_indexes.push_back(meta);
          return Status::Ok();
        },
        ops::Front::kTablestore);
    ASSERT_TRUE(r.ok());
  }

  void StartEngine() {
    engine_ = std::make_unique<SearchEngine>(*store_, *catalog_, (dir_ / "search").string(), clock_);
    ASSERT_TRUE(engine_->Start().ok());
  }

  Row RandomRow(int64_t id) {
    Row r;
    r.id = id;
    auto maybe = [&](int pct) { return int(rng_() % 100) < pct; };
    if (maybe(85)) {
      char b[8];
      std::snprintf(b, sizeof b, "k%02d", int(rng_() % 30));
      r.kw = b;
    }
    if (maybe(80)) r.num = int64_t(rng_() % 2001) - 1000;
    if (maybe(80)) r.dbl = (double(rng_() % 200001) - 100000) / 997.0;
    if (maybe(90)) r.flag = rng_() % 2 == 0;
    if (maybe(90)) {
      std::string t;
      int n = 3 + int(rng_() % 4);
      for (int i = 0; i < n; ++i) {
        std::string w = kWords[rng_() % 12];
        if (rng_() % 3 == 0) w[0] = char(std::toupper(w[0]));
        t += (i ? (rng_() % 2 ? " " : ", ") : "") + w;
      }
      r.txt = t;
    }
    if (maybe(75)) r.dt = kNow - int64_t(rng_() % 1000) * 3'600'000;
    int tags = int(rng_() % 4);
    for (int i = 0; i < tags; ++i) r.tags.push_back("t" + std::to_string(rng_() % 10));
    r.ts = kNow - int64_t(rng_() % 7200) * 1000;  // up to 2 hours old
    return r;
  }

  void Write(const Row& r) {
    ops::RowChange change;
    change.kind = ops::RowChange::Kind::kPut;
    change.primary_key = {{"id", CellValue::Integer(r.id)}};
    auto put = [&](const char* c, CellValue v) {
      change.cells.push_back({ops::CellChange::Kind::kPut, c, std::move(v), r.ts});
    };
    if (r.kw) put("kw", CellValue::String(*r.kw));
    if (r.num) put("num", CellValue::Integer(*r.num));
    if (r.dbl) put("dbl", CellValue::Double(*r.dbl));
    if (r.flag) put("flag", CellValue::Boolean(*r.flag));
    if (r.txt) put("txt", CellValue::String(*r.txt));
    if (r.dt) put("dt", CellValue::Integer(*r.dt));
    if (!r.tags.empty() || rng_() % 2) {
      std::string json = "[";
      for (size_t i = 0; i < r.tags.size(); ++i) json += (i ? ",\"" : "\"") + r.tags[i] + "\"";
      put("tags", CellValue::String(json + "]"));
    }
    put("other", CellValue::String("x"));
    ASSERT_TRUE(rows_->Write(*Table(), change).ok());
    model_[r.id] = r;
  }
  void Delete(int64_t id) {
    ops::RowChange change;
    change.kind = ops::RowChange::Kind::kDelete;
    change.primary_key = {{"id", CellValue::Integer(id)}};
    ASSERT_TRUE(rows_->Write(*Table(), change).ok());
    model_.erase(id);
  }

  int64_t IdOf(const std::string& row_key) {
    std::vector<versions::PkCell> pk;
    EXPECT_TRUE(versions::DecodeRowKey(row_key, Table()->tablestore->primary_key, &pk));
    return pk.empty() ? -1 : pk[0].value.integer;
  }

  // Every hit of `req` over all pages (limit `page`), in order.
  std::vector<int64_t> AllPages(SearchRequest req, int page) {
    req.limit = page;
    std::vector<int64_t> ids;
    for (int guard = 0; guard < 10000; ++guard) {
      auto r = engine_->Search(Table()->id, *Table()->tablestore, Index(), req);
      EXPECT_TRUE(r.ok()) << r.error().message();
      if (!r.ok()) break;
      for (const auto& h : r->hits) ids.push_back(IdOf(h.row_key));
      if (r->next_token.empty()) break;
      req.token = r->next_token;
      req.offset = 0;
    }
    return ids;
  }

  std::set<int64_t> Expected(const std::function<bool(const Row&)>& pred, int64_t now_ms = kNow,
                             int64_t ttl_s = -1) {
    std::set<int64_t> out;
    for (const auto& [id, r] : model_) {
      if (ttl_s >= 0 && now_ms - r.ts > ttl_s * 1000) continue;
      if (pred(r)) out.insert(id);
    }
    return out;
  }

  void ExpectQuery(const std::string& what, const Query& q, const std::function<bool(const Row&)>& pred) {
    SearchRequest req;
    req.query = q;
    req.now_ms = kNow;
    req.total_count = true;
    req.limit = 1;
    auto first = engine_->Search(Table()->id, *Table()->tablestore, Index(), req);
    ASSERT_TRUE(first.ok()) << what << ": " << first.error().message();
    std::set<int64_t> want = Expected(pred);
    EXPECT_FALSE(want.empty()) << what << ": a query that matches nothing proves little";
    EXPECT_EQ(first->total_hits, int64_t(want.size())) << what;
    std::vector<int64_t> got = AllPages(req, 701);
    std::set<int64_t> got_set(got.begin(), got.end());
    EXPECT_EQ(got.size(), got_set.size()) << what << ": a row returned twice";
    EXPECT_EQ(got_set, want) << what;
    // Sorted by primary key (the default): ids ascending.
    EXPECT_TRUE(std::is_sorted(got.begin(), got.end())) << what;
  }

  void LoadRows(int from, int to) {
    for (int i = from; i < to; ++i) Write(RandomRow(i));
  }

  std::filesystem::path dir_;
  FakeClock clock_{kNow};
  std::unique_ptr<storage::Store> store_;
  std::unique_ptr<ops::TableCatalog> catalog_;
  std::unique_ptr<ops::RowOps> rows_;
  std::unique_ptr<SearchEngine> engine_;
  std::map<int64_t, Row> model_;
  std::mt19937_64 rng_{42};
};

TEST_F(SearchEngineTest, EveryQueryKindMatchesBruteForce) {
  LoadRows(0, kRows / 2);  // before the index: the build indexes these
  AddIndex();
  StartEngine();
  LoadRows(kRows / 2, kRows);  // after: the queue brings these
  for (int i = 0; i < 200; ++i) Write(RandomRow(int64_t(rng_() % kRows)));  // rewrites
  for (int i = 0; i < 100; ++i) Delete(int64_t(rng_() % kRows));
  ASSERT_TRUE(engine_->Flush().ok());
  ASSERT_FALSE(Index().building);

  ExpectQuery("match all", Query{}, [](const Row&) { return true; });
  ExpectQuery("term keyword", Term("kw", CellValue::String("k07")),
              [](const Row& r) { return r.kw == "k07"; });
  ExpectQuery("term long", Term("num", CellValue::Integer(-17)),
              [](const Row& r) { return r.num == -17; });
  ExpectQuery("term bool", Term("flag", CellValue::Boolean(false)),
              [](const Row& r) { return r.flag == false; });
  ExpectQuery("term pk", Term("id", CellValue::Integer(42)),
              [](const Row& r) { return r.id == 42; });
  {
    Query q = Leaf(Query::Kind::kTerms, "tags");
    q.terms = {CellValue::String("t3"), CellValue::String("t5")};
    ExpectQuery("terms array", q, [](const Row& r) {
      return std::count(r.tags.begin(), r.tags.end(), "t3") + std::count(r.tags.begin(), r.tags.end(), "t5") > 0;
    });
  }
  for (bool lo_in : {false, true}) {
    for (bool hi_in : {false, true}) {
      ExpectQuery("range long", Range("num", CellValue::Integer(-100), lo_in, CellValue::Integer(250), hi_in),
                  [&](const Row& r) {
                    return r.num && (lo_in ? *r.num >= -100 : *r.num > -100) &&
                           (hi_in ? *r.num <= 250 : *r.num < 250);
                  });
      ExpectQuery("range double", Range("dbl", CellValue::Double(-3.5), lo_in, CellValue::Integer(40), hi_in),
                  [&](const Row& r) {
                    return r.dbl && (lo_in ? *r.dbl >= -3.5 : *r.dbl > -3.5) &&
                           (hi_in ? *r.dbl <= 40 : *r.dbl < 40);
                  });
      ExpectQuery("range keyword", Range("kw", CellValue::String("k05"), lo_in, CellValue::String("k12"), hi_in),
                  [&](const Row& r) {
                    return r.kw && (lo_in ? *r.kw >= "k05" : *r.kw > "k05") &&
                           (hi_in ? *r.kw <= "k12" : *r.kw < "k12");
                  });
    }
  }
  int64_t d = kNow - 300 * 3'600'000;
  ExpectQuery("range date open upper", Range("dt", CellValue::Integer(d), true, std::nullopt, false),
              [&](const Row& r) { return r.dt && *r.dt >= d; });
  ExpectQuery("range long open lower", Range("num", std::nullopt, false, CellValue::Integer(0), false),
              [&](const Row& r) { return r.num && *r.num < 0; });
  ExpectQuery("range double both open", Range("dbl", std::nullopt, false, std::nullopt, false),
              [&](const Row& r) { return r.dbl.has_value(); });
  ExpectQuery("prefix", Text(Query::Kind::kPrefix, "kw", "k1"),
              [](const Row& r) { return r.kw && r.kw->starts_with("k1"); });
  ExpectQuery("wildcard ?", Text(Query::Kind::kWildcard, "kw", "k?5"),
              [](const Row& r) { return r.kw && (*r.kw == "k05" || *r.kw == "k15" || *r.kw == "k25"); });
  ExpectQuery("wildcard *", Text(Query::Kind::kWildcard, "kw", "*7"),
              [](const Row& r) { return r.kw && r.kw->ends_with("7"); });
  ExpectQuery("exists", Leaf(Query::Kind::kExists, "num"), [](const Row& r) { return r.num.has_value(); });
  ExpectQuery("exists array", Leaf(Query::Kind::kExists, "tags"), [](const Row& r) { return !r.tags.empty(); });
  auto has_word = [](const Row& r, const std::string& w) {
    if (!r.txt) return false;
    auto ws = Words(*r.txt);
    return std::find(ws.begin(), ws.end(), w) != ws.end();
  };
  ExpectQuery("match or", Text(Query::Kind::kMatch, "txt", "ALPHA bravo"),
              [&](const Row& r) { return has_word(r, "alpha") || has_word(r, "bravo"); });
  {
    Query q = Text(Query::Kind::kMatch, "txt", "alpha bravo");
    q.match_and = true;
    ExpectQuery("match and", q, [&](const Row& r) { return has_word(r, "alpha") && has_word(r, "bravo"); });
    q.match_and = false;
    q.text = "alpha bravo charlie";
    q.minimum_should_match = 2;
    ExpectQuery("match msm 2", q, [&](const Row& r) {
      return int(has_word(r, "alpha")) + int(has_word(r, "bravo")) + int(has_word(r, "charlie")) >= 2;
    });
  }
  ExpectQuery("match phrase", Text(Query::Kind::kMatchPhrase, "txt", "Bravo, charlie"), [](const Row& r) {
    if (!r.txt) return false;
    auto ws = Words(*r.txt);
    for (size_t i = 0; i + 1 < ws.size(); ++i) {
      if (ws[i] == "bravo" && ws[i + 1] == "charlie") return true;
    }
    return false;
  });
  {
    Query b;
    b.kind = Query::Kind::kBool;
    b.must = {Term("flag", CellValue::Boolean(true))};
    b.must_not = {Range("num", std::nullopt, false, CellValue::Integer(0), false)};
    b.filter = {Leaf(Query::Kind::kExists, "kw")};
    b.should = {Term("kw", CellValue::String("k01")), Term("kw", CellValue::String("k02")),
                Text(Query::Kind::kPrefix, "kw", "k1")};
    b.minimum_should_match = 1;
    ExpectQuery("bool must/must_not/filter/should", b, [](const Row& r) {
      return r.flag == true && !(r.num && *r.num < 0) && r.kw &&
             (*r.kw == "k01" || *r.kw == "k02" || r.kw->starts_with("k1"));
    });
    Query c;
    c.kind = Query::Kind::kBool;
    c.should = {Term("flag", CellValue::Boolean(true)),
                Range("num", CellValue::Integer(0), false, std::nullopt, false),
                Text(Query::Kind::kMatch, "txt", "alpha")};
    c.minimum_should_match = 2;
    ExpectQuery("bool should msm 2", c, [&](const Row& r) {
      return int(r.flag == true) + int(r.num && *r.num > 0) + int(has_word(r, "alpha")) >= 2;
    });
    Query only_not;
    only_not.kind = Query::Kind::kBool;
    only_not.must_not = {Leaf(Query::Kind::kExists, "dt")};
    ExpectQuery("bool only must_not", only_not, [](const Row& r) { return !r.dt; });
    Query optional_should;
    optional_should.kind = Query::Kind::kBool;
    optional_should.must = {Term("flag", CellValue::Boolean(false))};
    optional_should.should = {Term("kw", CellValue::String("k03"))};
    ExpectQuery("bool should optional beside must", optional_should,
                [](const Row& r) { return r.flag == false; });
  }
  // `ttlstore check` agrees: every row has its document, nothing else is there.
  engine_->Stop();
  auto report = check::CheckStore(*store_, kNow, (dir_ / "search").string());
  ASSERT_TRUE(report.ok()) << report.error().message();
  for (const auto& p : report->problems) ADD_FAILURE() << p;
  EXPECT_EQ(report->search_documents, model_.size());
  EXPECT_EQ(report->search_queue_entries, 0u);
  // A change the engine has not applied is named by the queue: still consistent; a document
  // removed behind the engine's back is reported.
  Write(RandomRow(1));
  report = check::CheckStore(*store_, kNow, (dir_ / "search").string());
  ASSERT_TRUE(report.ok());
  EXPECT_TRUE(report->ok());
  EXPECT_EQ(report->search_queue_entries, 1u);
  {
    Xapian::WritableDatabase db((dir_ / "search" / std::to_string(Index().id)).string());
    db.delete_document(UniqueTerm(*versions::EncodeRowKey(Table()->id, Table()->tablestore->primary_key,
                                                          {{"id", CellValue::Integer(model_.rbegin()->first)}})));
    db.commit();
  }
  report = check::CheckStore(*store_, kNow, (dir_ / "search").string());
  ASSERT_TRUE(report.ok());
  EXPECT_FALSE(report->ok());
}

// The expected order of the rows under `sort` (missing values last unless given).
std::vector<int64_t> ExpectedOrder(const std::map<int64_t, Row>& rows,
                                   const std::vector<std::pair<std::string, bool>>& keys) {
  std::vector<const Row*> v;
  for (const auto& [id, r] : rows) v.push_back(&r);
  auto value = [](const Row& r, const std::string& k) -> std::optional<double> {
    if (k == "num" && r.num) return double(*r.num);
    if (k == "dbl" && r.dbl) return *r.dbl;
    if (k == "dt" && r.dt) return double(*r.dt);
    if (k == "id") return double(r.id);
    if (k == "kw" && r.kw) return double(std::stoi(r.kw->substr(1)));
    return std::nullopt;
  };
  std::stable_sort(v.begin(), v.end(), [&](const Row* a, const Row* b) {
    for (const auto& [k, desc] : keys) {
      auto x = value(*a, k), y = value(*b, k);
      if (x.has_value() != y.has_value()) return x.has_value();  // missing last
      if (!x || *x == *y) continue;
      return desc ? *x > *y : *x < *y;
    }
    return a->id < b->id;
  });
  std::vector<int64_t> out;
  for (const Row* r : v) out.push_back(r->id);
  return out;
}

TEST_F(SearchEngineTest, SortsPagesCountsAndParallelScans) {
  AddIndex();
  StartEngine();
  LoadRows(0, kRows);
  ASSERT_TRUE(engine_->Flush().ok());
  auto field = [](const std::string& f, bool desc) {
    SortKey k;
    k.key.kind = SearchSortKey::Kind::kField;
    k.key.field = f;
    k.key.descending = desc;
    return k;
  };
  struct Case {
    std::vector<SortKey> sort;
    std::vector<std::pair<std::string, bool>> keys;
  };
  SortKey pk_desc;
  pk_desc.key.kind = SearchSortKey::Kind::kPrimaryKey;
  pk_desc.key.descending = true;
  std::vector<Case> cases = {
      {{field("num", false)}, {{"num", false}}},
      {{field("num", true)}, {{"num", true}}},
      {{field("dbl", true)}, {{"dbl", true}}},
      {{field("dt", false)}, {{"dt", false}}},
      {{pk_desc}, {{"id", true}}},
      {{field("kw", false), field("num", true)}, {{"kw", false}, {"num", true}}},
      {{field("kw", true), pk_desc}, {{"kw", true}, {"id", true}}},
  };
  for (const auto& c : cases) {
    SearchRequest req;
    req.now_ms = kNow;
    req.sort = c.sort;
    std::vector<int64_t> got = AllPages(req, 97);
    EXPECT_EQ(got, ExpectedOrder(model_, c.keys)) << c.sort.size() << " " << c.sort[0].key.field;
  }
  // A missing value given: rows without `num` sort as if num = 0.
  {
    SearchRequest req;
    req.now_ms = kNow;
    SortKey k = field("num", false);
    k.missing_value = CellValue::Integer(0);
    req.sort = {k};
    std::vector<int64_t> got = AllPages(req, 500);
    ASSERT_EQ(got.size(), model_.size());
    std::vector<int64_t> nums;
    for (int64_t id : got) nums.push_back(model_[id].num.value_or(0));
    EXPECT_TRUE(std::is_sorted(nums.begin(), nums.end()));
  }
  // Offset pages without a token, and offset + limit past 100000 (the service's limit) refused.
  {
    SearchRequest req;
    req.now_ms = kNow;
    req.offset = 100;
    req.limit = 50;
    auto r = engine_->Search(Table()->id, *Table()->tablestore, Index(), req);
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(r->hits.size(), 50u);
    EXPECT_EQ(IdOf(r->hits[0].row_key), 100);
    req.offset = 99990;
    req.limit = 20;
    EXPECT_FALSE(engine_->Search(Table()->id, *Table()->tablestore, Index(), req).ok());
  }
  // Score sort pages by offset tokens and still covers every match once.
  {
    SearchRequest req;
    req.now_ms = kNow;
    req.query = Text(Query::Kind::kMatch, "txt", "alpha golf");
    SortKey score;
    score.key.kind = SearchSortKey::Kind::kScore;
    req.sort = {score};
    std::vector<int64_t> got = AllPages(req, 100);
    std::set<int64_t> set(got.begin(), got.end());
    EXPECT_EQ(set.size(), got.size());
    EXPECT_EQ(set, Expected([](const Row& r) {
      if (!r.txt) return false;
      auto ws = Words(*r.txt);
      return std::count(ws.begin(), ws.end(), "alpha") + std::count(ws.begin(), ws.end(), "golf") > 0;
    }));
  }
  // ParallelScan: every row exactly once across the parallel ids.
  std::string session;
  auto splits = engine_->ComputeSplits(Index(), &session);
  ASSERT_TRUE(splits.ok());
  ASSERT_GE(*splits, 1);
  // A small index is one split (the service's answer for one in its SDKs' tests).
  EXPECT_EQ(*splits, 1);
  for (int32_t maxp : {1, *splits}) {
    std::multiset<int64_t> seen;
    for (int32_t p = 0; p < maxp; ++p) {
      ScanRequest req;
      req.parallel_id = p;
      req.max_parallel = maxp;
      req.session_id = session;
      req.limit = 123;
      req.now_ms = kNow;
      for (int guard = 0; guard < 1000; ++guard) {
        auto r = engine_->ParallelScan(Table()->id, *Table()->tablestore, Index(), req);
        ASSERT_TRUE(r.ok()) << r.error().message();
        for (const auto& k : r->row_keys) seen.insert(IdOf(k));
        if (r->next_token.empty()) break;
        req.token = r->next_token;
      }
    }
    EXPECT_EQ(seen.size(), model_.size()) << maxp;
    EXPECT_EQ(std::set<int64_t>(seen.begin(), seen.end()).size(), model_.size()) << maxp;
  }
}

TEST_F(SearchEngineTest, TtlHidesThenPurges) {
  AddIndex(3600);  // rows are searchable for an hour after their newest version
  StartEngine();
  LoadRows(0, 1000);
  ASSERT_TRUE(engine_->Flush().ok());
  SearchRequest req;
  req.now_ms = kNow;
  req.total_count = true;
  req.limit = 0;
  auto r = engine_->Search(Table()->id, *Table()->tablestore, Index(), req);
  ASSERT_TRUE(r.ok());
  auto fresh = Expected([](const Row&) { return true; }, kNow, 3600);
  EXPECT_EQ(r->total_hits, int64_t(fresh.size()));
  EXPECT_LT(fresh.size(), model_.size());
  // Applied documents of rows already expired at apply time are never added.
  EXPECT_EQ(engine_->Stats(Index()).row_count, int64_t(fresh.size()));
  // Half an hour later: more hidden at once, and purged within a pass.
  clock_.Advance(1'800'000);
  req.now_ms = clock_.NowMs();
  r = engine_->Search(Table()->id, *Table()->tablestore, Index(), req);
  ASSERT_TRUE(r.ok());
  auto later = Expected([](const Row&) { return true; }, req.now_ms, 3600);
  EXPECT_EQ(r->total_hits, int64_t(later.size()));
  ASSERT_TRUE(engine_->Flush().ok());
  EXPECT_EQ(engine_->Stats(Index()).row_count, int64_t(later.size()));
}

TEST_F(SearchEngineTest, RestartReplaysTheQueue) {
  AddIndex();
  StartEngine();
  LoadRows(0, 500);
  ASSERT_TRUE(engine_->Flush().ok());
  engine_->Stop();
  engine_.reset();
  LoadRows(500, 900);  // queued while no engine runs
  for (int i = 0; i < 50; ++i) Delete(i);
  StartEngine();
  ASSERT_TRUE(engine_->Flush().ok());
  EXPECT_EQ(engine_->Stats(Index()).row_count, int64_t(model_.size()));
  ExpectQuery("all after restart", Query{}, [](const Row&) { return true; });
  // The queue is empty once applied.
  auto it = store_->ScanFamily(storage::Family::kSearch, "", std::string(12, '\xff'), false, nullptr);
  EXPECT_FALSE(it->Valid());
  // A lost folder is rebuilt from the rows at the next start; a stray one is removed.
  engine_->Stop();
  engine_.reset();
  std::filesystem::remove_all(dir_ / "search" / std::to_string(Index().id));
  std::filesystem::create_directories(dir_ / "search" / "999999");
  StartEngine();
  EXPECT_FALSE(std::filesystem::exists(dir_ / "search" / "999999"));
  ASSERT_TRUE(engine_->Flush().ok());
  EXPECT_EQ(engine_->Stats(Index()).row_count, int64_t(model_.size()));
  ExpectQuery("all after a rebuild", Query{}, [](const Row&) { return true; });
}

TEST_F(SearchEngineTest, RefusesBadQueriesAndTokens) {
  AddIndex();
  StartEngine();
  LoadRows(0, 300);
  ASSERT_TRUE(engine_->Flush().ok());
  const auto& ix = Index();
  EXPECT_FALSE(SearchEngine::Validate(ix, Term("nope", CellValue::Integer(1))).ok());
  EXPECT_FALSE(SearchEngine::Validate(ix, Term("num", CellValue::String("x1"))).ok());
  EXPECT_FALSE(SearchEngine::Validate(ix, Term("num", CellValue::Double(1))).ok());
  EXPECT_FALSE(SearchEngine::Validate(ix, Term("kw", CellValue::Integer(1))).ok());
  EXPECT_FALSE(SearchEngine::Validate(ix, Text(Query::Kind::kMatch, "kw", "x")).ok());
  EXPECT_FALSE(SearchEngine::Validate(ix, Range("flag", std::nullopt, false, std::nullopt, false)).ok());
  auto long_wildcard = SearchEngine::Validate(ix, Text(Query::Kind::kWildcard, "kw", std::string(33, 'a')));
  ASSERT_FALSE(long_wildcard.ok());
  EXPECT_EQ(long_wildcard.error().message(),
            "length of field value is longer than 32 for the [WILDCARD_QUERY] query");
  EXPECT_TRUE(SearchEngine::Validate(ix, Text(Query::Kind::kWildcard, "kw", std::string(32, '*'))).ok());
  Query deep;
  Query* cur = &deep;
  for (int i = 0; i < 100; ++i) {
    cur->kind = Query::Kind::kBool;
    cur->must.emplace_back();
    cur = &cur->must.back();
  }
  EXPECT_FALSE(SearchEngine::Validate(ix, deep).ok());
  SearchRequest req;
  req.now_ms = kNow;
  req.limit = 10;
  SortKey text_sort;
  text_sort.key.kind = SearchSortKey::Kind::kField;
  text_sort.key.field = "txt";
  req.sort = {text_sort};
  auto unsortable = engine_->Search(Table()->id, *Table()->tablestore, ix, req);
  ASSERT_FALSE(unsortable.ok());
  EXPECT_EQ(unsortable.error().message(),
            "field:txt must enable enable_sort_and_agg, but enable_sort_and_agg is not enabled");
  req.sort.clear();
  auto page = engine_->Search(Table()->id, *Table()->tablestore, ix, req);
  ASSERT_TRUE(page.ok());
  ASSERT_FALSE(page->next_token.empty());
  for (size_t i = 0; i < page->next_token.size(); i += 3) {
    SearchRequest bad = req;
    bad.token = page->next_token;
    bad.token[i] ^= 0x41;
    auto r = engine_->Search(Table()->id, *Table()->tablestore, ix, bad);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code(), ErrorCode::kValidation);
  }
  req.token = "garbage";
  EXPECT_FALSE(engine_->Search(Table()->id, *Table()->tablestore, ix, req).ok());
}

// The service's sort options: missing_field, the "_first" missing position,
// disable_default_pk_sorter, and a next_token that carries its sort (the next page sends none).
TEST_F(SearchEngineTest, SortOptionsOfTheService) {
  AddIndex();
  StartEngine();
  LoadRows(0, 600);
  ASSERT_TRUE(engine_->Flush().ok());
  auto field = [](const std::string& f, bool desc) {
    SortKey k;
    k.key.kind = SearchSortKey::Kind::kField;
    k.key.field = f;
    k.key.descending = desc;
    return k;
  };
  // missing_field: a row without `dt` sorts by its `num` (Date and Long share a sort form);
  // without either, last.
  {
    SearchRequest req;
    req.now_ms = kNow;
    SortKey k = field("dt", false);
    k.missing_field = "num";
    req.sort = {k};
    std::vector<int64_t> got = AllPages(req, 77);
    std::vector<const Row*> want;
    for (const auto& [id, r] : model_) want.push_back(&r);
    auto value = [](const Row& r) -> std::optional<int64_t> { return r.dt ? r.dt : r.num; };
    std::stable_sort(want.begin(), want.end(), [&](const Row* a, const Row* b) {
      auto x = value(*a), y = value(*b);
      if (x.has_value() != y.has_value()) return x.has_value();
      if (x && *x != *y) return *x < *y;
      return a->id < b->id;
    });
    std::vector<int64_t> ids;
    for (const Row* r : want) ids.push_back(r->id);
    EXPECT_EQ(got, ids);
    k.missing_field = "kw";  // another sort form: refused
    req.sort = {k};
    auto r = engine_->Search(Table()->id, *Table()->tablestore, Index(), req);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().message(),
              "missing_field:kw type:KEYWORD does not match field:dt type:DATE");
  }
  // "_first": rows without `num` come first, in either order.
  for (bool desc : {false, true}) {
    SearchRequest req;
    req.now_ms = kNow;
    SortKey k = field("num", desc);
    k.missing = SortKey::Missing::kFirst;
    req.sort = {k};
    std::vector<int64_t> got = AllPages(req, 100);
    ASSERT_EQ(got.size(), model_.size());
    size_t missing = 0;
    for (const auto& [id, r] : model_) missing += !r.num;
    ASSERT_GT(missing, 0u);
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(!model_[got[i]].num, i < missing) << i;
    }
  }
  // A token carries its sort: the next page sent without one (as the Java SDK does) goes on in
  // the first page's order.
  {
    SearchRequest req;
    req.now_ms = kNow;
    req.limit = 10;
    req.sort = {field("num", true)};
    auto first = engine_->Search(Table()->id, *Table()->tablestore, Index(), req);
    ASSERT_TRUE(first.ok());
    ASSERT_FALSE(first->next_token.empty());
    SearchRequest next;
    next.now_ms = kNow;
    next.limit = 10;
    next.token = first->next_token;
    auto second = engine_->Search(Table()->id, *Table()->tablestore, Index(), next);
    ASSERT_TRUE(second.ok()) << second.error().message();
    std::vector<int64_t> got;
    for (const auto* page : {&*first, &*second}) {
      for (const auto& h : page->hits) got.push_back(IdOf(h.row_key));
    }
    std::vector<int64_t> want = ExpectedOrder(model_, {{"num", true}});
    want.resize(20);
    EXPECT_EQ(got, want);
  }
  // disable_default_pk_sorter: no tie-break, and a next page starts after the last hit's keys,
  // so hits tied with it that did not fit are skipped (the Go SDK's
  // TestQuerySortDisableDefaultPkSorter expects fewer rows than the index has).
  {
    SearchRequest req;
    req.now_ms = kNow;
    req.sort = {field("flag", false)};
    req.disable_default_pk_sorter = true;
    std::vector<int64_t> got = AllPages(req, 50);
    ASSERT_GE(got.size(), 100u);
    EXPECT_LT(got.size(), model_.size());
    std::set<int64_t> unique(got.begin(), got.end());
    EXPECT_EQ(unique.size(), got.size());
    req.disable_default_pk_sorter = false;
    EXPECT_EQ(AllPages(req, 50).size(), model_.size());
  }
  // trackTotalCount N: the count up to N.
  {
    SearchRequest req;
    req.now_ms = kNow;
    req.limit = 0;
    req.total_count = true;
    req.total_count_limit = 7;
    auto r = engine_->Search(Table()->id, *Table()->tablestore, Index(), req);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->total_hits, 7);
  }
}

// Term and Range values in string form on numeric and Boolean fields, as the service takes
// them (the Python SDK's search_index_test: TermQuery('l', '900'), RangeQuery('la', '100',
// '300')).
TEST_F(SearchEngineTest, StringValuesOnNumericFields) {
  AddIndex();
  StartEngine();
  LoadRows(0, 800);
  ASSERT_TRUE(engine_->Flush().ok());
  ExpectQuery("term long as string", Term("num", CellValue::String("-17")),
              [](const Row& r) { return r.num == -17; });
  ExpectQuery("range long as strings",
              Range("num", CellValue::String("-100"), true, CellValue::String("250"), false),
              [](const Row& r) { return r.num && *r.num >= -100 && *r.num < 250; });
  ExpectQuery("term boolean as string", Term("flag", CellValue::String("true")),
              [](const Row& r) { return r.flag == true; });
  ExpectQuery("range double as string",
              Range("dbl", CellValue::String("1.5"), true, std::nullopt, false),
              [](const Row& r) { return r.dbl && *r.dbl >= 1.5; });
}

// ComputeSplits and ParallelScan as the service answers them (the Python SDK's
// parallel_scan_test): one split for a small index, max_parallel bounded by it, the texts, a
// next_token on every page with rows, and the token's alive_time.
TEST_F(SearchEngineTest, ParallelScanRulesOfTheService) {
  AddIndex();
  StartEngine();
  LoadRows(0, 100);
  ASSERT_TRUE(engine_->Flush().ok());
  std::string session;
  auto splits = engine_->ComputeSplits(Index(), &session);
  ASSERT_TRUE(splits.ok());
  EXPECT_EQ(*splits, 1);
  ScanRequest req;
  req.session_id = session;
  req.now_ms = kNow;
  req.limit = 70;
  req.alive_time_s = 30;
  req.max_parallel = 2;
  auto r = engine_->ParallelScan(Table()->id, *Table()->tablestore, Index(), req);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message(),
            "[parallel_scan.max_parallel_id] must in (0 ,1], current max_parallel_id is 2");
  req.max_parallel = 1;
  req.parallel_id = 101;
  r = engine_->ParallelScan(Table()->id, *Table()->tablestore, Index(), req);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message(),
            "[parallel_scan.current_parallel_id] must in [0, max_parallel), current max_parallel "
            "is 1, current_parallel_id is 101");
  req.parallel_id = 0;
  std::vector<size_t> pages;
  for (int guard = 0; guard < 10; ++guard) {
    r = engine_->ParallelScan(Table()->id, *Table()->tablestore, Index(), req);
    ASSERT_TRUE(r.ok()) << r.error().message();
    pages.push_back(r->row_keys.size());
    if (r->next_token.empty()) break;
    req.token = r->next_token;
  }
  EXPECT_EQ(pages, (std::vector<size_t>{70, 30, 0}));
  // A token used after its alive_time: the service's OTSSessionExpired.
  req.token.clear();
  r = engine_->ParallelScan(Table()->id, *Table()->tablestore, Index(), req);
  ASSERT_TRUE(r.ok());
  req.token = r->next_token;
  req.now_ms = kNow + 31'000;
  r = engine_->ParallelScan(Table()->id, *Table()->tablestore, Index(), req);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message(),
            std::string(kSessionExpiredPrefix) +
                "ScanQuery'session is expired, please retry ComputeSplitsRequest and ScanQuery.");
}

// Aggregations read every element of an array field from its document's array slot, and from
// the row when the document was written before that slot existed (issue 32); `ttlstore check`
// accepts both kinds of document.
TEST_F(SearchEngineTest, AggregationsReadArrayElementsOfOldDocumentsFromTheRow) {
  AddIndex();
  ASSERT_TRUE(catalog_->Update("docs", [](model::TableDescriptor& t) {
    for (auto& f : t.tablestore->search_indexes.front().fields) {
      if (f.name == "tags") f.sort_and_agg = true;
    }
    return Status::Ok();
  }, ops::Front::kTablestore).ok());
  StartEngine();
  LoadRows(0, 400);
  ASSERT_TRUE(engine_->Flush().ok());
  int64_t values = 0;
  std::set<std::string> distinct;
  for (const auto& [id, r] : model_) {
    values += int64_t(r.tags.size());
    distinct.insert(r.tags.begin(), r.tags.end());
  }
  ASSERT_GT(values, 100);
  auto aggs = std::make_shared<AggRequest>();
  Aggregation count;
  count.name = "n";
  count.kind = AggKind::kCount;
  count.field = "tags";
  Aggregation dc = count;
  dc.name = "dc";
  dc.kind = AggKind::kDistinctCount;
  aggs->aggs = {count, dc};
  auto run = [&]() -> std::pair<int64_t, int64_t> {
    SearchRequest req;
    req.now_ms = kNow;
    req.limit = 0;
    req.aggs = aggs;
    auto r = engine_->Search(Table()->id, *Table()->tablestore, Index(), req);
    EXPECT_TRUE(r.ok()) << r.error().message();
    if (!r.ok() || !r->aggs || r->aggs->aggs.size() != 2) return {-1, -1};
    return {r->aggs->aggs[0].count, r->aggs->aggs[1].count};
  };
  EXPECT_EQ(run(), std::make_pair(values, int64_t(distinct.size())));

  // Documents as written before the array slots: without them.
  engine_->Stop();
  engine_.reset();
  size_t tags = 0;
  while (Index().fields[tags].name != "tags") ++tags;
  {
    Xapian::WritableDatabase db((dir_ / "search" / std::to_string(Index().id)).string());
    int stripped = 0;
    for (auto d = db.postlist_begin(""); d != db.postlist_end(""); ++d) {
      Xapian::Document doc = db.get_document(*d);
      if (doc.get_value(kSlotArrayBase + tags).empty()) continue;
      doc.remove_value(kSlotArrayBase + tags);
      db.replace_document(*d, doc);
      ++stripped;
    }
    db.commit();
    EXPECT_GT(stripped, 50);
  }
  StartEngine();
  EXPECT_EQ(run(), std::make_pair(values, int64_t(distinct.size())));
  engine_->Stop();
  auto report = check::CheckStore(*store_, kNow, (dir_ / "search").string());
  ASSERT_TRUE(report.ok()) << report.error().message();
  for (const auto& p : report->problems) ADD_FAILURE() << p;
}

// An index the engine has not opened yet (just created) has no documents: its aggregations are
// those of no rows.
TEST_F(SearchEngineTest, AggregationsOfAnIndexNotOpenedYet) {
  AddIndex();
  StartEngine();
  LoadRows(0, 20);
  ASSERT_TRUE(engine_->Flush().ok());
  model::SearchIndexMeta fresh = Index();
  fresh.id = 987654;  // not opened
  auto aggs = std::make_shared<AggRequest>();
  Aggregation sum;
  sum.name = "s";
  sum.kind = AggKind::kSum;
  sum.field = "num";
  Aggregation max = sum;
  max.name = "m";
  max.kind = AggKind::kMax;
  GroupBy by;
  by.name = "g";
  by.field = "kw";
  aggs->aggs = {sum, max};
  aggs->group_bys = {by};
  SearchRequest req;
  req.now_ms = kNow;
  req.limit = 0;
  req.aggs = aggs;
  auto r = engine_->Search(Table()->id, *Table()->tablestore, fresh, req);
  ASSERT_TRUE(r.ok()) << r.error().message();
  ASSERT_TRUE(r->aggs);
  ASSERT_EQ(r->aggs->aggs.size(), 2u);
  EXPECT_EQ(r->aggs->aggs[0].value, 0);
  EXPECT_EQ(r->aggs->aggs[1].value, -std::numeric_limits<double>::infinity());
  ASSERT_EQ(r->aggs->group_bys.size(), 1u);
  EXPECT_TRUE(r->aggs->group_bys[0].items.empty());
}

}  // namespace
}  // namespace ttlstore::search
