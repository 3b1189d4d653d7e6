// Tablestore local transactions through two processes on one store (each its own Store, catalog,
// RowOps and LocalTransactions; on RocksDB, one process per folder, both share the one store):
// a transaction started through one is used, held and committed through the other, its lock
// holds for writes through both, and read-modify-writes inside transactions and increments
// outside them, spread over both processes at once, lose nothing (ops/local_transactions.h).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <random>
#include <thread>

#include "ops/local_transactions.h"
#include "ops/table_ops.h"
#include "ops/txn_errors.h"
#include "store_fixture.h"
#include "txn_test_rows.h"

namespace ttlstore::ops {
namespace {

using model::CellValue;
using versions::PkCell;
using namespace txn_test;  // NOLINT: the tests' rows

class TxnProcessesTest : public storage::StoreFixture {
 protected:
  struct Process {
    std::unique_ptr<TableCatalog> catalog;
    std::unique_ptr<RowOps> rows;
    std::unique_ptr<LocalTransactions> txns;
  };

  void SetUp() override {
    StoreFixture::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    TableCatalog creator(*store_, clock_);
    ASSERT_TRUE(creator.Load().ok());
    ASSERT_TRUE(creator.Create(TxnTableSpec()).ok());
    for (Process* p : {&a_, &b_}) {
      storage::Store& store = *WriterStore(own_);
      p->catalog = std::make_unique<TableCatalog>(store, clock_);
      ASSERT_TRUE(p->catalog->Load().ok());
      p->rows = std::make_unique<RowOps>(store, clock_);
      p->txns = std::make_unique<LocalTransactions>(store, *p->catalog, *p->rows, clock_);
    }
    // The table's first transaction marks it (had_transactions); b's catalog then refreshes,
    // as a server's does every --catalog-refresh-ms (a Start waits for that: catalog tests).
    auto first = a_.txns->Start(Table(a_), {{"pk1", CellValue::String("first")}});
    ASSERT_TRUE(first.ok()) << first.error().message();
    auto session = a_.txns->Use(*first);
    ASSERT_TRUE(session.ok());
    ASSERT_TRUE(a_.txns->Abort(std::move(*session)).ok());
    ASSERT_TRUE(b_.catalog->Refresh().ok());
    ASSERT_TRUE(Table(b_)->tablestore->had_transactions);
  }
  void TearDown() override {
    for (Process* p : {&a_, &b_}) *p = Process();
    own_.clear();
    StoreFixture::TearDown();
  }

  static TablePtr Table(Process& p) { return p.catalog->Find("txn", Front::kTablestore); }
  // "v" of the row, read outside (session null) or inside a transaction; -1 if no row.
  static int64_t Read(Process& p, const std::string& part, int64_t n,
                      LocalTransactions::Session* session = nullptr) {
    versions::ReadSpec spec;
    auto r = session ? p.txns->Get(*session, *Table(p), Pk(part, n), spec)
                     : p.rows->Get(*Table(p), Pk(part, n), spec);
    EXPECT_TRUE(r.ok()) << r.error().message();
    if (!r.ok() || !r->has_value()) return -1;
    return (*r)->columns.at(0).versions.at(0).value.integer;
  }
  static bool Refused(const Status& s, std::string_view prefix) {
    return !s.ok() && s.error().message().starts_with(prefix);
  }
  template <class T>
  static bool Refused(const Result<T>& r, std::string_view prefix) {
    return !r.ok() && r.error().message().starts_with(prefix);
  }

  SystemClock clock_;
  std::vector<std::unique_ptr<storage::Store>> own_;
  Process a_, b_;  // after own_: gone before the stores
};

TEST_P(TxnProcessesTest, OneProcessStartsItAnotherUsesHoldsAndCommitsIt) {
  ASSERT_TRUE(a_.txns->Write(nullptr, *Table(a_), Put("p", 1, 10), 10, nullptr).ok());
  auto id = a_.txns->Start(Table(a_), {{"pk1", CellValue::String("p")}});
  ASSERT_TRUE(id.ok()) << id.error().message();
  // The lock holds through the other process, for single writes and atomic batches alike.
  EXPECT_TRUE(Refused(b_.txns->Write(nullptr, *Table(b_), Put("p", 2, 20), 10, nullptr),
                      kRowOperationConflictPrefix));
  size_t failed = 0;
  EXPECT_TRUE(Refused(b_.txns->WriteAtomic(nullptr, *Table(b_), {Put("p", 3, 30)}, {10}, nullptr,
                                           &failed),
                      kRowOperationConflictPrefix));
  EXPECT_TRUE(Refused(b_.txns->Start(Table(b_), {{"pk1", CellValue::String("p")}}),
                      kRowOperationConflictPrefix));
  // Other partition keys are free.
  EXPECT_TRUE(b_.txns->Write(nullptr, *Table(b_), Put("q", 1, 1), 10, nullptr).ok());
  {
    auto in_b = b_.txns->Use(*id);
    ASSERT_TRUE(in_b.ok()) << in_b.error().message();
    ASSERT_TRUE(b_.txns->Write(&*in_b, *Table(b_), Put("p", 1, 11), 10, nullptr).ok());
    // Held by b's request: a's meanwhile is busy.
    EXPECT_TRUE(Refused(a_.txns->Use(*id), kSessionBusyPrefix));
  }
  {
    auto in_a = a_.txns->Use(*id);
    ASSERT_TRUE(in_a.ok()) << in_a.error().message();
    EXPECT_EQ(Read(a_, "p", 1, &*in_a), 11);  // b's write, read through a
  }
  EXPECT_EQ(Read(a_, "p", 1), 10);  // not before the commit
  auto commit = b_.txns->Use(*id);
  ASSERT_TRUE(commit.ok());
  ASSERT_TRUE(b_.txns->Commit(std::move(*commit)).ok());
  EXPECT_EQ(Read(a_, "p", 1), 11);
  EXPECT_TRUE(Refused(a_.txns->Use(*id), kSessionNotExistPrefix));
  EXPECT_TRUE(b_.txns->Write(nullptr, *Table(b_), Put("p", 2, 20), 10, nullptr).ok());
  EXPECT_EQ(a_.txns->open() + b_.txns->open(), 0u);
}

// Read-modify-writes inside transactions (a read, then a put of the value plus one) and
// increments outside them, on one row, through both processes at once for a while: the row ends
// at exactly the number of acknowledged increments. A transaction that started under an outside
// write it could not see, or an outside write let into a locked partition key, loses some.
TEST_P(TxnProcessesTest, IncrementsInsideAndOutsideTransactionsThroughBothProcessesAddUp) {
  ASSERT_TRUE(a_.txns->Write(nullptr, *Table(a_), Put("hot", 1, 0), 10, nullptr).ok());
  std::atomic<int64_t> acknowledged{0}, in_transactions{0};
  std::atomic<bool> stop{false};
  std::atomic<int> failures{0};
  auto outside = [&](Process& p) {
    while (!stop.load()) {
      Status s = p.txns->Write(nullptr, *Table(p), Increment("hot", 1), 10, nullptr);
      if (s.ok()) {
        ++acknowledged;
      } else if (!Refused(s, kRowOperationConflictPrefix)) {
        ++failures;
      }
    }
  };
  auto inside = [&](Process& starter, Process& user, unsigned seed) {
    std::mt19937 rng(seed);
    while (!stop.load()) {
      auto id = starter.txns->Start(Table(starter), {{"pk1", CellValue::String("hot")}});
      if (!id.ok()) {
        if (!Refused(id, kRowOperationConflictPrefix)) ++failures;
        continue;
      }
      // Read and write through one process or the other, commit through either.
      Process& reader = rng() % 2 ? starter : user;
      int64_t value;
      {
        auto session = reader.txns->Use(*id);
        if (!session.ok()) {
          ++failures;
          continue;
        }
        value = Read(reader, "hot", 1, &*session);
      }
      std::this_thread::sleep_for(std::chrono::microseconds(rng() % 500));
      Process& writer = rng() % 2 ? starter : user;
      {
        auto session = writer.txns->Use(*id);
        if (!session.ok() ||
            !writer.txns->Write(&*session, *Table(writer), Put("hot", 1, value + 1), 10, nullptr)
                 .ok()) {
          ++failures;
          continue;
        }
      }
      Process& committer = rng() % 2 ? starter : user;
      auto session = committer.txns->Use(*id);
      if (!session.ok() || !committer.txns->Commit(std::move(*session)).ok()) {
        ++failures;
        continue;
      }
      ++acknowledged;
      ++in_transactions;
    }
  };
  std::vector<std::thread> threads;
  threads.emplace_back(outside, std::ref(a_));
  threads.emplace_back(outside, std::ref(b_));
  threads.emplace_back(inside, std::ref(a_), std::ref(b_), 1);
  threads.emplace_back(inside, std::ref(b_), std::ref(a_), 2);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  stop = true;
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_GT(in_transactions.load(), 5);
  EXPECT_GT(acknowledged.load() - in_transactions.load(), 5);
  EXPECT_EQ(Read(a_, "hot", 1), acknowledged.load());
  std::printf("[ %s ] %lld increments, %lld of them in transactions\n", GetParam().c_str(),
              static_cast<long long>(acknowledged.load()),
              static_cast<long long>(in_transactions.load()));
}

INSTANTIATE_TEST_SUITE_P(Backends, TxnProcessesTest, ::testing::Values("rocksdb", "postgresql"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace ttlstore::ops
