// Control-plane changes through two processes on one store (issue 34; ops/catalog_commit.cc),
// on every backend (store_fixture.h): each "process" is a TableCatalog of its own whose copy
// is not refreshed, so it is stale whenever the other changed a table. A change is checked and
// made against the stored descriptor, so neither process's change is lost and neither passes a
// check the other's change made fail. On PostgreSQL each catalog has its own Store, as separate
// processes would; on RocksDB the two share one (the stale copies are the same case).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "ops/table_ops.h"
#include "storage/lease.h"
#include "storage/lease_keeper.h"
#include "store_fixture.h"

namespace ttlstore::ops {
namespace {

class CatalogProcessesTest : public storage::StoreFixture {
 protected:
  std::unique_ptr<TableCatalog> Start() {
    auto c = std::make_unique<TableCatalog>(*WriterStore(own_), clock_);
    EXPECT_TRUE(c->Load().ok());
    return c;
  }
  static model::TableDescriptor Spec(const std::string& name) {
    model::TableDescriptor spec;
    spec.name = name;
    spec.key.hash = {"pk", model::ValueType::kS};
    spec.attribute_definitions = {spec.key.hash};
    return spec;
  }
  static std::set<std::string> TagKeys(const TableCatalog& c, const std::string& name) {
    std::set<std::string> keys;
    if (TablePtr t = c.Find(name)) {
      for (const auto& tag : t->tags) keys.insert(tag.key);
    }
    return keys;
  }

  // A process counted live through its member lease (wall clock, as in serve): a catalog on a
  // store of its own, loaded now, refreshed by hand (the thread's first round is a minute away).
  TableCatalog& LiveProcess(const std::string& owner) {
    auto p = std::make_unique<Live>();
    storage::Store& store = *WriterStore(own_);
    p->leases = std::make_unique<storage::Leases>(store, wall_, owner);
    p->keeper = std::make_unique<storage::LeaseKeeper>(*p->leases, 60'000);
    p->keeper->Share("work/", 1);
    p->keeper->RunOnce();
    p->catalog = std::make_unique<TableCatalog>(store, clock_);
    EXPECT_TRUE(p->catalog->Load().ok());
    p->catalog->StartRefresh(60'000, owner);
    live_.push_back(std::move(p));
    return *live_.back()->catalog;
  }

  FakeClock clock_{1'700'000'000'000};
  SystemClock wall_;
  std::vector<std::unique_ptr<storage::Store>> own_;
  struct Live {
    std::unique_ptr<storage::Leases> leases;
    std::unique_ptr<storage::LeaseKeeper> keeper;
    std::unique_ptr<TableCatalog> catalog;
    ~Live() {
      if (catalog) catalog->StopRefresh();
    }
  };
  std::vector<std::unique_ptr<Live>> live_;  // after own_: gone before the stores
};

INSTANTIATE_TEST_SUITE_P(Backends, CatalogProcessesTest,
                         ::testing::Values("rocksdb", "postgresql"),
                         [](const auto& info) { return info.param; });

TEST_P(CatalogProcessesTest, ANameTheOtherProcessCreatedIsTaken) {
  auto a = Start();
  auto b = Start();
  ASSERT_TRUE(a->Create(Spec("t")).ok());
  auto again = b->Create(Spec("t"));  // b's copy has no table t
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().code(), ErrorCode::kResourceInUse);
  EXPECT_EQ(again.error().message(), "Table already exists: t");
}

TEST_P(CatalogProcessesTest, ChangesThroughBothAreKeptAndCheckedAgainstEachOther) {
  auto a = Start();
  ASSERT_TRUE(a->Create(Spec("t")).ok());
  auto b = Start();
  ASSERT_TRUE(a->Tag("t", {{"k1", "a"}}).ok());
  ASSERT_TRUE(b->Tag("t", {{"k2", "b"}}).ok());  // b's copy lacks k1: the store's has it
  EXPECT_EQ(TagKeys(*b, "t"), (std::set<std::string>{"k1", "k2"}));
  ASSERT_TRUE(a->Untag("t", {"k2"}).ok());
  ASSERT_TRUE(a->SetTimeToLive("t", true, "expires").ok());
  // b still thinks TTL is off: the stored descriptor answers.
  auto twice = b->SetTimeToLive("t", true, "other");
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.error().message(), "TimeToLive is already enabled");
  // The refused change brought b's copy up to the store's.
  EXPECT_TRUE(b->Find("t")->ttl_enabled);
  EXPECT_EQ(TagKeys(*b, "t"), (std::set<std::string>{"k1"}));
  // A table dropped through a is gone for b's changes too.
  ASSERT_TRUE(a->Delete("t").ok());
  auto tag = b->Tag("t", {{"k3", "b"}});
  ASSERT_FALSE(tag.ok());
  EXPECT_EQ(tag.error().code(), ErrorCode::kResourceNotFound);
  auto update = b->Update("t", [](model::TableDescriptor&) { return Status::Ok(); });
  ASSERT_FALSE(update.ok());
  EXPECT_EQ(update.error().message(), "Requested resource not found: Table: t not found");
}

TEST_P(CatalogProcessesTest, TagsAddedAtOnceThroughBothAreAllThere) {
  auto a = Start();
  ASSERT_TRUE(a->Create(Spec("t")).ok());
  auto b = Start();
  constexpr int kEach = 15;
  auto tagger = [](TableCatalog* c, const std::string& prefix) {
    for (int i = 0; i < kEach; ++i) {
      ASSERT_TRUE(c->Tag("t", {{prefix + std::to_string(i), "v"}}).ok());
    }
  };
  std::thread ta(tagger, a.get(), "a");
  std::thread tb(tagger, b.get(), "b");
  ta.join();
  tb.join();
  auto fresh = Start();
  EXPECT_EQ(TagKeys(*fresh, "t").size(), 2u * kEach);  // none lost to the other's write
}

TEST_P(CatalogProcessesTest, AWaitForOlderVersionsWaitsForEveryProcessToLetGo) {
  if (!store_->SharedByProcesses()) GTEST_SKIP() << "one process per RocksDB folder";
  TableCatalog& a = LiveProcess("a");
  ASSERT_TRUE(a.Create(Spec("t")).ok());
  TableCatalog& b = LiveProcess("b");
  TablePtr old = b.Find("t");  // a request of b under way with the table as it was
  ASSERT_TRUE(a.Tag("t", {{"k", "v"}}).ok());
  ASSERT_TRUE(a.Refresh().ok());
  std::atomic<bool> returned{false};
  std::thread waiter([&] {
    a.WaitForOlderVersions(old->id);
    returned = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_FALSE(returned.load());  // b has not even seen the change
  ASSERT_TRUE(b.Refresh().ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_FALSE(returned.load());  // b has it now, but a request still holds the old one
  old.reset();
  ASSERT_TRUE(b.Refresh().ok());
  for (int i = 0; i < 100 && !returned.load(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(returned.load());
  waiter.join();
}

TEST_P(CatalogProcessesTest, ADeleteDropsOnlyOnceTheOtherProcessLetGo) {
  if (!store_->SharedByProcesses()) GTEST_SKIP() << "one process per RocksDB folder";
  TableCatalog& a = LiveProcess("a");
  ASSERT_TRUE(a.Create(Spec("t")).ok());
  TableCatalog& b = LiveProcess("b");
  TablePtr held = b.Find("t");  // a write of b under way with the table
  ASSERT_TRUE(held);
  std::atomic<bool> returned{false};
  std::thread deleter([&] {
    auto r = a.Delete("t");
    EXPECT_TRUE(r.ok()) << r.error().message();
    returned = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_FALSE(returned.load());  // b has not seen the mark
  // Marked: the table is stored still, and no catalog finds it; a second delete is refused.
  auto stored = store_->LoadTables();
  ASSERT_TRUE(stored.ok());
  ASSERT_EQ(stored->size(), 1u);
  EXPECT_GT(stored->front().deleting_since_ms, 0);
  ASSERT_TRUE(b.Refresh().ok());
  EXPECT_FALSE(b.Find("t"));
  auto again = b.Delete("t");
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().code(), ErrorCode::kResourceNotFound);
  auto taken = b.Create(Spec("t"));
  ASSERT_FALSE(taken.ok());
  EXPECT_EQ(taken.error().code(), ErrorCode::kResourceInUse);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_FALSE(returned.load());  // b's write still holds the table
  held.reset();
  ASSERT_TRUE(b.Refresh().ok());
  deleter.join();
  EXPECT_TRUE(returned.load());
  stored = store_->LoadTables();
  ASSERT_TRUE(stored.ok());
  EXPECT_TRUE(stored->empty());
  EXPECT_TRUE(b.Create(Spec("t")).ok());  // the name is free again
}

TEST_P(CatalogProcessesTest, ADeleteWhoseProcessDiedAfterTheMarkIsFinished) {
  if (!store_->SharedByProcesses()) GTEST_SKIP() << "one process per RocksDB folder";
  auto a = Start();
  ASSERT_TRUE(a->Create(Spec("t")).ok());
  // What a process that died after the mark left: the record marked, the data stored.
  model::TableDescriptor marked = *a->Find("t");
  marked.deleting_since_ms = clock_.NowMs();
  storage::WriteBatch batch(*store_);
  batch.PutTable(marked);
  ASSERT_TRUE(store_->Write(batch).ok());
  auto b = Start();
  EXPECT_FALSE(b->Find("t"));
  ASSERT_TRUE(b->FinishInterruptedDrops().ok());  // too recent: its process may be at it
  ASSERT_EQ(store_->LoadTables()->size(), 1u);
  clock_.Advance(TableCatalog::kAbandonedDropMs);
  ASSERT_TRUE(b->FinishInterruptedDrops().ok());
  EXPECT_TRUE(store_->LoadTables()->empty());
  EXPECT_TRUE(b->Create(Spec("t")).ok());
}

}  // namespace
}  // namespace ttlstore::ops
