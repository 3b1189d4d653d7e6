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

  FakeClock clock_{1'700'000'000'000};
  std::vector<std::unique_ptr<storage::Store>> own_;
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
  // Two processes, each counted live through its member lease (wall clock, as in serve).
  SystemClock wall;
  storage::Store& sa = *WriterStore(own_);
  storage::Store& sb = *WriterStore(own_);
  storage::Leases la(sa, wall, "a"), lb(sb, wall, "b");
  storage::LeaseKeeper ka(la, 60'000), kb(lb, 60'000);
  for (storage::LeaseKeeper* k : {&ka, &kb}) {
    k->Share("work/", 1);
    k->RunOnce();
  }
  TableCatalog a(sa, clock_), b(sb, clock_);
  ASSERT_TRUE(a.Load().ok());
  ASSERT_TRUE(a.Create(Spec("t")).ok());
  ASSERT_TRUE(b.Load().ok());
  // Refreshes by hand (the threads' first rounds are a minute away).
  a.StartRefresh(60'000, "a");
  b.StartRefresh(60'000, "b");
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
  a.StopRefresh();
  b.StopRefresh();
}

}  // namespace
}  // namespace ttlstore::ops
