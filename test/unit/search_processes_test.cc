// The search queue of a store several processes share (search/shared_queue.h, issue 34).
//
// SharedQueueTest, on every backend (store_fixture.h): the consumer records and floors by
// themselves, with a clock the test moves: a floor follows the smallest held cursor, a record
// that lapsed holds it for kRetainLapsedMs, and a consumer the floor passed is told to rebuild.
//
// SearchProcessesTest, on PostgreSQL: two "processes" (a Store, catalog, RowOps and
// SearchEngine each, with folders of their own) write one table at once; each process's copy
// ends equal to the rows, the queue is trimmed once both are past it, and a third process that
// starts afterwards builds its copy and follows the queue by itself.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <thread>

#include "common/clock.h"
#include "ops/row_ops.h"
#include "ops/table_ops.h"
#include "search/search_engine.h"
#include "search/shared_queue.h"
#include "store_fixture.h"
#include "storage/search_queue.h"
#include "versions/row_key.h"

namespace ttlstore::search {
namespace {

using model::CellValue;

constexpr uint32_t kTable = 7;
constexpr int64_t kLeaseMs = 3000;

class SharedQueueTest : public storage::StoreFixture {
 protected:
  // Entries `from`..`to` of kTable, and the head at `to`.
  void Queue(uint64_t from, uint64_t to) {
    storage::WriteBatch batch(*store_);
    for (uint64_t s = from; s <= to; ++s) {
      batch.Put(storage::Family::kSearch, storage::SearchQueueKey(kTable, s), "row");
    }
    batch.Put(storage::Family::kSearch, storage::SearchQueueHeadKey(kTable),
              storage::EncodeSearchSeq(to));
    ASSERT_TRUE(store_->Write(batch).ok());
  }
  std::vector<uint64_t> Entries() {
    std::vector<uint64_t> out;
    auto it = store_->ScanFamily(storage::Family::kSearch, storage::SearchQueueBegin(kTable),
                                 storage::SearchQueueEnd(kTable), false, nullptr);
    for (; it->Valid(); it->Next()) {
      uint32_t t;
      uint64_t s;
      if (storage::DecodeSearchQueueKey(it->key(), &t, &s)) out.push_back(s);
    }
    return out;
  }
  std::vector<CopyStart> Publish(SharedQueue& q, std::optional<uint64_t> cursor) {
    auto r = q.Publish({{kTable, 100, cursor}});
    EXPECT_TRUE(r.ok()) << r.error().message();
    return r.ok() ? *r : std::vector<CopyStart>{};
  }

  FakeClock clock_{1'700'000'000'000};
};

INSTANTIATE_TEST_SUITE_P(Backends, SharedQueueTest, ::testing::Values("rocksdb", "postgresql"),
                         [](const auto& info) { return info.param; });

TEST_P(SharedQueueTest, TheFloorFollowsTheSlowestHeldCursor) {
  Queue(1, 5);
  SharedQueue a(*store_, "a", kLeaseMs, clock_), b(*store_, "b", kLeaseMs, clock_);
  // New copies start at the head: entries 1..5 are in the rows they build from.
  auto sa = Publish(a, std::nullopt);
  ASSERT_EQ(sa.size(), 1u);
  EXPECT_EQ(sa[0].cursor, 5u);
  EXPECT_FALSE(sa[0].rebuild);
  ASSERT_EQ(Publish(b, std::nullopt).size(), 1u);
  ASSERT_TRUE(a.Trim({kTable}).ok());
  EXPECT_EQ(Entries().size(), 0u);  // both are past 1..5

  Queue(6, 10);
  EXPECT_TRUE(Publish(a, 10).empty());
  EXPECT_TRUE(Publish(b, 7).empty());
  ASSERT_TRUE(b.Trim({kTable}).ok());
  EXPECT_EQ(Entries(), (std::vector<uint64_t>{8, 9, 10}));  // b has not applied 8..10

  // b stops renewing: its record lapses, and still holds the floor for kRetainLapsedMs.
  clock_.Advance(kLeaseMs + 1000);
  EXPECT_TRUE(Publish(a, 10).empty());
  ASSERT_TRUE(a.Trim({kTable}).ok());
  EXPECT_EQ(Entries(), (std::vector<uint64_t>{8, 9, 10}));
  // Back within that time: b carries on from its cursor.
  EXPECT_TRUE(Publish(b, 7).empty());

  clock_.Advance(SharedQueue::kRetainLapsedMs + kLeaseMs);
  EXPECT_TRUE(Publish(a, 10).empty());
  ASSERT_TRUE(a.Trim({kTable}).ok());
  EXPECT_TRUE(Entries().empty());  // only a holds the floor now: 10
  // b, back after that (its cursor 7, even one it moved on meanwhile: 9), rebuilds from the
  // head, the entries it had not applied being gone.
  auto back = Publish(b, 9);
  ASSERT_EQ(back.size(), 1u);
  EXPECT_TRUE(back[0].rebuild);
  EXPECT_EQ(back[0].cursor, 10u);
}

TEST_P(SharedQueueTest, AConsumerAnotherDidNotKnowOfHoldsTheFloorFromItsFirstPublish) {
  Queue(1, 4);
  SharedQueue a(*store_, "a", kLeaseMs, clock_);
  EXPECT_TRUE(Publish(a, 0).empty());  // a copy built by one process: 1..4 unapplied
  ASSERT_TRUE(a.Trim({kTable}).ok());
  EXPECT_EQ(Entries().size(), 4u);
  EXPECT_TRUE(Publish(a, 2).empty());
  // A process that starts now starts at the head, and holds the floor there.
  SharedQueue c(*store_, "c", kLeaseMs, clock_);
  ASSERT_EQ(Publish(c, std::nullopt).size(), 1u);
  Queue(5, 6);
  EXPECT_TRUE(Publish(a, 6).empty());
  ASSERT_TRUE(a.Trim({kTable}).ok());
  EXPECT_EQ(Entries(), (std::vector<uint64_t>{5, 6}));
}

TEST_P(SharedQueueTest, ATableNoLongerSearchedIsTrimmedUpToItsHeadOnceNoOneFollowsIt) {
  Queue(1, 6);
  // Still followed by a process whose catalog has the index yet: held at its cursor.
  SharedQueue b(*store_, "b", kLeaseMs, clock_);
  EXPECT_TRUE(Publish(b, 3).empty());
  SharedQueue a(*store_, "a", kLeaseMs, clock_);
  ASSERT_TRUE(a.Trim({}).ok());  // the table is not among a's search tables
  EXPECT_EQ(Entries(), (std::vector<uint64_t>{4, 5, 6}));
  // b follows it no more (its index dropped): up to the head.
  ASSERT_TRUE(b.Publish({}).ok());
  SharedQueue c(*store_, "c", kLeaseMs, clock_);
  ASSERT_TRUE(c.Trim({}).ok());
  EXPECT_TRUE(Entries().empty());
}

// --- Several engines on one PostgreSQL database ---

class SearchProcessesTest : public storage::StoreFixture {
 protected:
  struct Process {
    storage::Store* store = nullptr;
    std::unique_ptr<ops::TableCatalog> catalog;
    std::unique_ptr<ops::RowOps> rows;
    std::unique_ptr<SearchEngine> engine;
    std::filesystem::path dir;
  };

  void SetUp() override {
    StoreFixture::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    if (GetParam() != "postgresql") GTEST_SKIP() << "one process per RocksDB folder";
    base_ = std::filesystem::temp_directory_path() /
            ("ttlstore_search_processes_" + std::to_string(::getpid()));
    std::filesystem::remove_all(base_);
  }
  void TearDown() override {
    for (auto& p : processes_) {
      if (p->engine) p->engine->Stop();
      if (p->catalog) p->catalog->StopRefresh();
    }
    processes_.clear();
    own_.clear();
    std::filesystem::remove_all(base_);
    StoreFixture::TearDown();
  }

  Process& Start(const std::string& name, bool engine) {
    auto p = std::make_unique<Process>();
    p->store = WriterStore(own_);
    p->catalog = std::make_unique<ops::TableCatalog>(*p->store, clock_);
    EXPECT_TRUE(p->catalog->Load().ok());
    p->catalog->StartRefresh(50, name);
    p->rows = std::make_unique<ops::RowOps>(*p->store, clock_);
    p->dir = base_ / name;
    if (engine) StartEngine(*p);
    processes_.push_back(std::move(p));
    return *processes_.back();
  }
  void StartEngine(Process& p) {
    p.engine = std::make_unique<SearchEngine>(*p.store, *p.catalog, p.dir.string(), clock_);
    p.engine->ShareQueue(kLeaseMs);
    EXPECT_TRUE(p.engine->Start().ok());
  }

  void CreateTableAndIndex(Process& p) {
    model::TableDescriptor spec;
    spec.name = "docs";
    spec.key.hash = {"id", model::ValueType::kN};
    auto& ts = spec.tablestore.emplace();
    ts.primary_key = {{"id", model::PkType::kInteger}};
    ts.options.max_versions = 1;
    ASSERT_TRUE(p.catalog->Create(spec).ok());
    auto id = p.catalog->AllocateId();
    ASSERT_TRUE(id.ok());
    model::SearchIndexMeta meta;
    meta.name = "ix";
    meta.id = *id;
    meta.building = true;
    model::SearchField kw;
    kw.name = "kw";
    kw.type = model::SearchFieldType::kKeyword;
    meta.fields = {kw};
    ASSERT_TRUE(p.catalog
                    ->Update("docs",
                             [&](model::TableDescriptor& t) {
                               t.tablestore->search_indexes.push_back(meta);
                               return Status::Ok();
                             },
                             ops::Front::kTablestore)
                    .ok());
  }

  static ops::TablePtr Table(Process& p) { return p.catalog->Find("docs", ops::Front::kTablestore); }

  // Puts (kw = `kw`) or deletes row `id` through `p`.
  void WriteRow(Process& p, int64_t id, std::optional<std::string> kw) {
    ops::RowChange change;
    change.kind = kw ? ops::RowChange::Kind::kPut : ops::RowChange::Kind::kDelete;
    change.primary_key = {{"id", CellValue::Integer(id)}};
    if (kw) change.cells.push_back({ops::CellChange::Kind::kPut, "kw", CellValue::String(*kw),
                                          clock_.NowMs()});
    Status s = p.rows->Write(*Table(p), change);
    ASSERT_TRUE(s.ok()) << s.error().message();
  }

  // The copy of `p`, as row id -> kw, from Search (every page of a term query for each value
  // this test writes).
  static std::map<int64_t, std::string> Copy(Process& p) {
    std::map<int64_t, std::string> out;
    ops::TablePtr t = Table(p);
    const auto& index = t->tablestore->search_indexes.front();
    for (int k = 0; k < 10; ++k) {
      const std::string v = "k" + std::to_string(k);
      SearchRequest req;
      req.query.kind = Query::Kind::kTerm;
      req.query.field = "kw";
      req.query.terms = {CellValue::String(v)};
      req.limit = 100;
      for (int guard = 0; guard < 1000; ++guard) {
        auto r = p.engine->Search(t->id, *t->tablestore, index, req);
        EXPECT_TRUE(r.ok()) << r.error().message();
        if (!r.ok()) break;
        for (const auto& h : r->hits) {
          std::vector<versions::PkCell> pk;
          EXPECT_TRUE(versions::DecodeRowKey(h.row_key, t->tablestore->primary_key, &pk));
          if (!pk.empty()) out[pk[0].value.integer] = v;
        }
        if (r->next_token.empty()) break;
        req.token = r->next_token;
      }
    }
    return out;
  }

  size_t QueuedEntries(uint32_t table_id) {
    size_t n = 0;
    auto it = store_->ScanFamily(storage::Family::kSearch, storage::SearchQueueBegin(table_id),
                                 storage::SearchQueueEnd(table_id), false, nullptr);
    for (; it->Valid(); it->Next()) ++n;
    return n;
  }

  SystemClock clock_;
  std::filesystem::path base_;
  std::vector<std::unique_ptr<storage::Store>> own_;
  std::vector<std::unique_ptr<Process>> processes_;
};

INSTANTIATE_TEST_SUITE_P(Backends, SearchProcessesTest, ::testing::Values("rocksdb", "postgresql"),
                         [](const auto& info) { return info.param; });

TEST_P(SearchProcessesTest, EveryProcessFollowsWritesOfAllAndANewOneCatchesUp) {
  Process& a = Start("a", false);
  CreateTableAndIndex(a);
  // Rows from before the index: each process's build reads them.
  std::map<int64_t, std::string> model;
  for (int64_t id = 0; id < 300; ++id) {
    WriteRow(a, id, "k" + std::to_string(id % 3));
    model[id] = "k" + std::to_string(id % 3);
  }
  Process& b = Start("b", true);
  StartEngine(a);
  // Both write at once, each its own ids (even: a, odd: b), puts and deletes; the queue's
  // numbers come from one head, in commit order, whichever process commits.
  std::map<int64_t, std::optional<std::string>> mine[2];
  std::vector<std::thread> writers;
  for (int w = 0; w < 2; ++w) {
    writers.emplace_back([&, w] {
      Process& p = w == 0 ? a : b;
      std::mt19937_64 rng(w + 1);
      for (int i = 0; i < 1500; ++i) {
        int64_t id = int64_t(rng() % 500) * 2 + w;
        std::optional<std::string> kw;
        if (rng() % 5 != 0) kw = "k" + std::to_string(rng() % 4);
        WriteRow(p, id, kw);
        mine[w][id] = kw;
      }
    });
  }
  for (auto& t : writers) t.join();
  for (int w = 0; w < 2; ++w) {
    for (const auto& [id, kw] : mine[w]) {
      if (kw) {
        model[id] = *kw;
      } else {
        model.erase(id);
      }
    }
  }
  ASSERT_TRUE(a.engine->Flush().ok());
  ASSERT_TRUE(b.engine->Flush().ok());
  EXPECT_EQ(Copy(a), model);
  EXPECT_EQ(Copy(b), model);

  // Once both published cursors past every entry, the floor passes them all.
  uint32_t table_id = Table(a)->id;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (QueuedEntries(table_id) > 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(QueuedEntries(table_id), 0u);

  // A process that starts now builds its copy from the rows, then follows the queue.
  Process& c = Start("c", true);
  for (int64_t id = 1000; id < 1100; ++id) {
    WriteRow(id % 2 ? a : b, id, "k9");
    model[id] = "k9";
  }
  ASSERT_TRUE(c.engine->Flush().ok());
  EXPECT_EQ(Copy(c), model);
  ASSERT_TRUE(a.engine->Flush().ok());
  EXPECT_EQ(Copy(a), model);
}

}  // namespace
}  // namespace ttlstore::search
