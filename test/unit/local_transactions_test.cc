// LocalTransactions over a real Store (each backend: store_fixture.h) with a fake clock: reads
// inside see the transaction's own writes (GetRow and GetRange, forward and backward, deletes
// included), nothing is visible outside before the commit, the commit writes everything at once,
// abort and expiry discard everything and leave no record behind, the partition key is locked
// for writes from outside, and rows out of scope are refused (ops/local_transactions.h).
// Several processes on one store: txn_processes_test.cc.
#include "ops/local_transactions.h"

#include <gtest/gtest.h>
#include <unistd.h>


#include "ops/table_ops.h"
#include "ops/txn_errors.h"
#include "storage/key_codec.h"
#include "store_fixture.h"
#include "txn_test_rows.h"

namespace ttlstore::ops {
namespace {

using model::CellValue;
using versions::PkCell;
using namespace txn_test;  // NOLINT: the tests' rows

constexpr int64_t kNow = 1'700'000'000'000;

class LocalTxnTest : public storage::StoreFixture {
 protected:
  void SetUp() override {
    StoreFixture::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    catalog_ = std::make_unique<TableCatalog>(*store_, clock_);
    ASSERT_TRUE(catalog_->Load().ok());
    rows_ = std::make_unique<RowOps>(*store_, clock_);
    TxnLimits limits;
    limits.lifetime_ms = 60000;
    limits.idle_ms = 60000;
    limits.max_bytes = 1000;
    txns_ = std::make_unique<LocalTransactions>(*store_, *catalog_, *rows_, clock_, limits);
    ASSERT_TRUE(catalog_->Create(TxnTableSpec()).ok());
  }
  void TearDown() override {
    txns_.reset();
    rows_.reset();
    catalog_.reset();
    StoreFixture::TearDown();
  }

  // The records of local transactions left in the store (ops/txn_state.h).
  size_t TxnRecords() {
    const std::string prefix(kTxnPrefix);
    auto it = store_->ScanFamily(storage::Family::kLeases, prefix,
                                 storage::PrefixSuccessor(prefix), false, nullptr);
    size_t n = 0;
    for (; it->Valid(); it->Next()) ++n;
    return n;
  }

  TablePtr Table() { return catalog_->Find("txn", Front::kTablestore); }
  std::string Start(const std::string& p) {
    auto id = txns_->Start(Table(), {{"pk1", CellValue::String(p)}});
    EXPECT_TRUE(id.ok()) << id.error().message();
    return id.ok() ? *id : std::string();
  }
  LocalTransactions::Session Use(const std::string& id) {
    auto s = txns_->Use(id);
    EXPECT_TRUE(s.ok()) << s.error().message();
    return std::move(*s);
  }
  Status WriteIn(const std::string& id, const RowChange& c, size_t bytes = 10) {
    auto s = Use(id);
    return txns_->Write(&s, *Table(), c, bytes, nullptr);
  }
  Status WriteOutside(const RowChange& c) { return txns_->Write(nullptr, *Table(), c, 10, nullptr); }
  // "v" of the row as read outside any transaction (or inside `id`); -1 if no row.
  int64_t Read(const std::string& p, int64_t n, const std::string& id = "") {
    versions::ReadSpec spec;
    Result<std::optional<RowView>> r = std::optional<RowView>();
    if (id.empty()) {
      r = rows_->Get(*Table(), Pk(p, n), spec);
    } else {
      auto s = Use(id);
      r = txns_->Get(s, *Table(), Pk(p, n), spec);
    }
    EXPECT_TRUE(r.ok()) << r.error().message();
    if (!r.ok() || !r->has_value()) return -1;
    return (*r)->columns.at(0).versions.at(0).value.integer;
  }
  // pk2 of the rows of partition `p` a GetRange returns (inside `id` if given).
  std::vector<int64_t> Range(const std::string& p, bool backward, const std::string& id = "") {
    RangeRequest req;
    req.backward = backward;
    auto min = CellValue::Marker(model::CellType::kInfMin);
    auto max = CellValue::Marker(model::CellType::kInfMax);
    req.start = {{"pk1", CellValue::String(p)}, {"pk2", backward ? max : min}};
    req.end = {{"pk1", CellValue::String(p)}, {"pk2", backward ? min : max}};
    Result<RangeResult> r = RangeResult();
    if (id.empty()) {
      r = rows_->GetRange(*Table(), req);
    } else {
      auto s = Use(id);
      r = txns_->GetRange(s, *Table(), req);
    }
    EXPECT_TRUE(r.ok()) << r.error().message();
    std::vector<int64_t> out;
    if (!r.ok()) return out;
    for (const auto& row : r->rows) out.push_back(row.primary_key.at(1).value.integer);
    return out;
  }

  FakeClock clock_{kNow};
  std::unique_ptr<TableCatalog> catalog_;
  std::unique_ptr<RowOps> rows_;
  std::unique_ptr<LocalTransactions> txns_;
};

TEST_P(LocalTxnTest, WritesAreSeenInsideAndOnlyAfterCommitOutside) {
  ASSERT_TRUE(WriteOutside(Put("a", 1, 10)).ok());
  std::string id = Start("a");
  ASSERT_TRUE(WriteIn(id, Put("a", 1, 11)).ok());
  ASSERT_TRUE(WriteIn(id, Put("a", 2, 20)).ok());
  EXPECT_EQ(Read("a", 1, id), 11);
  EXPECT_EQ(Read("a", 2, id), 20);
  EXPECT_EQ(Read("a", 1), 10);
  EXPECT_EQ(Read("a", 2), -1);
  EXPECT_EQ(txns_->open(), 1u);
  ASSERT_TRUE(txns_->Commit(Use(id)).ok());
  EXPECT_EQ(Read("a", 1), 11);
  EXPECT_EQ(Read("a", 2), 20);
  EXPECT_EQ(txns_->open(), 0u);
  EXPECT_EQ(TxnRecords(), 0u);  // state, lock and buffered rows went with the commit
}

TEST_P(LocalTxnTest, AbortDiscardsEveryWrite) {
  ASSERT_TRUE(WriteOutside(Put("a", 1, 10)).ok());
  std::string id = Start("a");
  ASSERT_TRUE(WriteIn(id, Put("a", 2, 20)).ok());
  ASSERT_TRUE(WriteIn(id, Delete("a", 1)).ok());
  EXPECT_EQ(Read("a", 1, id), -1);
  ASSERT_TRUE(txns_->Abort(Use(id)).ok());
  EXPECT_EQ(Read("a", 1), 10);
  EXPECT_EQ(Read("a", 2), -1);
  auto gone = txns_->Use(id);
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(gone.error().message(), std::string(kSessionNotExistPrefix) + kSessionNotExistMessage);
}

TEST_P(LocalTxnTest, GetRangeMergesTheTransactionsWritesBothWays) {
  for (int64_t n : {1, 3, 5}) ASSERT_TRUE(WriteOutside(Put("a", n, n)).ok());
  ASSERT_TRUE(WriteOutside(Put("b", 1, 1)).ok());
  std::string id = Start("a");
  ASSERT_TRUE(WriteIn(id, Put("a", 0, 0)).ok());   // before every stored row
  ASSERT_TRUE(WriteIn(id, Put("a", 4, 4)).ok());   // between two
  ASSERT_TRUE(WriteIn(id, Delete("a", 3)).ok());   // hides a stored row
  ASSERT_TRUE(WriteIn(id, Put("a", 5, 50)).ok());  // replaces one
  ASSERT_TRUE(WriteIn(id, Put("a", 9, 9)).ok());   // after every stored row
  ASSERT_TRUE(WriteIn(id, Delete("a", 7)).ok());   // deletes a row that never was
  EXPECT_EQ(Range("a", false, id), (std::vector<int64_t>{0, 1, 4, 5, 9}));
  EXPECT_EQ(Range("a", true, id), (std::vector<int64_t>{9, 5, 4, 1, 0}));
  EXPECT_EQ(Range("a", false), (std::vector<int64_t>{1, 3, 5}));
  ASSERT_TRUE(txns_->Commit(Use(id)).ok());
  EXPECT_EQ(Range("a", false), (std::vector<int64_t>{0, 1, 4, 5, 9}));
  EXPECT_EQ(Read("a", 5), 50);
  EXPECT_EQ(Range("b", false), (std::vector<int64_t>{1}));
}

TEST_P(LocalTxnTest, GetRangePagesThroughTheMergedRows) {
  for (int64_t n : {1, 3, 5}) ASSERT_TRUE(WriteOutside(Put("a", n, n)).ok());
  std::string id = Start("a");
  for (int64_t n : {2, 4}) ASSERT_TRUE(WriteIn(id, Put("a", n, n)).ok());
  RangeRequest req;
  req.start = {{"pk1", CellValue::String("a")}, {"pk2", CellValue::Marker(model::CellType::kInfMin)}};
  req.end = {{"pk1", CellValue::String("a")}, {"pk2", CellValue::Marker(model::CellType::kInfMax)}};
  req.limit = 2;
  std::vector<int64_t> seen;
  for (int pages = 0; pages < 5; ++pages) {
    auto s = Use(id);
    auto page = txns_->GetRange(s, *Table(), req);
    ASSERT_TRUE(page.ok()) << page.error().message();
    for (const auto& row : page->rows) seen.push_back(row.primary_key.at(1).value.integer);
    if (!page->next_start) break;
    req.start = *page->next_start;
  }
  EXPECT_EQ(seen, (std::vector<int64_t>{1, 2, 3, 4, 5}));
}

TEST_P(LocalTxnTest, WritesFromOutsideThePartitionKeyAreRefusedWhileItIsLocked) {
  std::string id = Start("a");
  Status refused = WriteOutside(Put("a", 1, 1));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message(),
            std::string(kRowOperationConflictPrefix) + kRowOperationConflictMessage);
  EXPECT_TRUE(WriteOutside(Put("b", 1, 1)).ok());  // another partition key
  auto second = txns_->Start(Table(), {{"pk1", CellValue::String("a")}});
  ASSERT_FALSE(second.ok());
  EXPECT_TRUE(second.error().message().starts_with(kRowOperationConflictPrefix));
  ASSERT_TRUE(txns_->Commit(Use(id)).ok());
  EXPECT_TRUE(WriteOutside(Put("a", 1, 1)).ok());
}

TEST_P(LocalTxnTest, RowsOutOfScopeAreRefused) {
  std::string id = Start("a");
  Status write = WriteIn(id, Put("b", 1, 1));
  ASSERT_FALSE(write.ok());
  EXPECT_EQ(write.error().message(),
            std::string(kDataOutOfRangePrefix) +
                "Data out of scope of transaction. Transaction PartKey:a. Data PartKey:b");
  auto s = Use(id);
  auto read = txns_->Get(s, *Table(), Pk("c", 1), {});
  ASSERT_FALSE(read.ok());
  EXPECT_TRUE(read.error().message().starts_with(kDataOutOfRangePrefix));
  RangeRequest req;
  req.start = {{"pk1", CellValue::String("a")}, {"pk2", CellValue::Marker(model::CellType::kInfMin)}};
  req.end = {{"pk1", CellValue::String("b")}, {"pk2", CellValue::Marker(model::CellType::kInfMin)}};
  auto range = txns_->GetRange(s, *Table(), req);
  ASSERT_FALSE(range.ok());
  EXPECT_TRUE(range.error().message().ends_with("Data PartKey:b"));
}

TEST_P(LocalTxnTest, AnExpiredTransactionIsAbortedAndItsPartitionKeyFreed) {
  std::string id = Start("a");
  ASSERT_TRUE(WriteIn(id, Put("a", 1, 1)).ok());
  clock_.Advance(60000);
  auto gone = txns_->Use(id);
  ASSERT_FALSE(gone.ok());
  EXPECT_TRUE(gone.error().message().starts_with(kSessionNotExistPrefix));
  EXPECT_EQ(Read("a", 1), -1);
  EXPECT_TRUE(WriteOutside(Put("a", 2, 2)).ok());  // drops it, with what it buffered
  EXPECT_EQ(txns_->expired(), 1u);
  EXPECT_EQ(TxnRecords(), 0u);
}

TEST_P(LocalTxnTest, ReapDropsExpiredTransactionsThatNothingMet) {
  std::string held = Start("a");
  std::string idle = Start("b");
  std::string fresh;
  ASSERT_TRUE(WriteIn(idle, Put("b", 1, 1)).ok());
  clock_.Advance(2000);
  {
    auto session = Use(held);  // a request under way holds it past its lifetime
    clock_.Advance(28000);
    fresh = Start("c");
    clock_.Advance(31000);
    auto reaped = txns_->Reap();
    ASSERT_TRUE(reaped.ok());
    EXPECT_EQ(*reaped, 1u);  // "b" only: "a" is held, "c" is 31 s old
    ASSERT_TRUE(txns_->Write(&session, *Table(), Put("a", 1, 1), 10, nullptr).ok());
  }
  EXPECT_EQ(Read("b", 1), -1);
  EXPECT_TRUE(WriteOutside(Put("b", 2, 2)).ok());
  auto reaped = txns_->Reap();
  ASSERT_TRUE(reaped.ok());
  EXPECT_EQ(*reaped, 1u);  // "a", now that its request ended
  EXPECT_EQ(txns_->open(), 1u);
  ASSERT_TRUE(txns_->Commit(Use(fresh)).ok());
  EXPECT_EQ(TxnRecords(), 0u);
}

TEST_P(LocalTxnTest, ASecondRequestMeanwhileIsBusyAndDropAllEndsEverything) {
  std::string id = Start("a");
  {
    auto session = Use(id);
    auto busy = txns_->Use(id);
    ASSERT_FALSE(busy.ok());
    EXPECT_TRUE(busy.error().message().starts_with(kSessionBusyPrefix));
  }
  ASSERT_TRUE(WriteIn(id, Put("a", 1, 1)).ok());  // released: usable again
  ASSERT_TRUE(txns_->DropAll().ok());
  auto gone = txns_->Use(id);
  ASSERT_FALSE(gone.ok());
  EXPECT_TRUE(gone.error().message().starts_with(kSessionNotExistPrefix));
  EXPECT_TRUE(WriteOutside(Put("a", 2, 2)).ok());
  EXPECT_EQ(TxnRecords(), 0u);
}

TEST_P(LocalTxnTest, ACommitThatFailsReleasesTheTransactionForARetry) {
  std::string id = Start("a");
  ASSERT_TRUE(WriteIn(id, Put("a", 1, 1)).ok());
  // A buffered row that does not decode: the commit fails before it writes anything.
  auto key = versions::EncodeRowKey(Table()->id, Table()->tablestore->primary_key, Pk("a", 2));
  ASSERT_TRUE(key.ok());
  storage::WriteBatch corrupt(*store_);
  corrupt.Put(storage::Family::kLeases, TxnWriteKey(id, *key), "X");
  ASSERT_TRUE(store_->Write(corrupt).ok());
  EXPECT_FALSE(txns_->Commit(Use(id)).ok());
  // Not left held until the hold lapses: the retry is served (and an abort ends it).
  auto again = txns_->Use(id);
  ASSERT_TRUE(again.ok()) << again.error().message();
  ASSERT_TRUE(txns_->Abort(std::move(*again)).ok());
  EXPECT_EQ(Read("a", 1), -1);
  EXPECT_EQ(TxnRecords(), 0u);
}

TEST_P(LocalTxnTest, TheFirstStartMarksTheTableAndOnlyThenDoWritesReadTheLock) {
  EXPECT_FALSE(Table()->tablestore->had_transactions);
  EXPECT_TRUE(WriteOutside(Put("a", 1, 1)).ok());
  EXPECT_EQ(TxnRecords(), 0u);
  std::string id = Start("a");
  EXPECT_TRUE(Table()->tablestore->had_transactions);
  TableCatalog reloaded(*store_, clock_);  // kept in the stored descriptor
  ASSERT_TRUE(reloaded.Load().ok());
  EXPECT_TRUE(reloaded.Find("txn", Front::kTablestore)->tablestore->had_transactions);
  ASSERT_TRUE(txns_->Abort(Use(id)).ok());
  id = Start("a");  // the second Start changes no descriptor
  ASSERT_TRUE(txns_->Commit(Use(id)).ok());
}

TEST_P(LocalTxnTest, StartRefusesKeysOfMoreThanOneColumnAndDisabledTables) {
  auto two = txns_->Start(Table(), Pk("a", 1));
  ASSERT_FALSE(two.ok());
  EXPECT_EQ(two.error().message(), "StartLocalTransaction support only one primary key.");
  auto wrong_type = txns_->Start(Table(), {{"pk1", CellValue::Integer(1)}});
  ASSERT_FALSE(wrong_type.ok());
  EXPECT_TRUE(wrong_type.error().message().starts_with(versions::kInvalidPkPrefix));
  auto disabled = std::make_shared<model::TableDescriptor>(*Table());
  disabled->tablestore->local_transactions = false;
  auto refused = txns_->Start(disabled, {{"pk1", CellValue::String("a")}});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message(),
            "Try to call method using explicit transaction on explicit-transaction-disabled table.");
}

TEST_P(LocalTxnTest, TheTransactionsDataIsLimited) {
  std::string id = Start("a");
  ASSERT_TRUE(WriteIn(id, Put("a", 1, 1), 600).ok());
  Status over = WriteIn(id, Put("a", 2, 2), 600);
  ASSERT_FALSE(over.ok());
  EXPECT_TRUE(over.error().message().starts_with(kOutOfTransactionDataSizeLimitPrefix));
  // The transaction stays usable; what it wrote is committed.
  ASSERT_TRUE(txns_->Commit(Use(id)).ok());
  EXPECT_EQ(Read("a", 1), 1);
  EXPECT_EQ(Read("a", 2), -1);
}

TEST_P(LocalTxnTest, ConditionsSeeTheTransactionsOwnWrites) {
  std::string id = Start("a");
  ASSERT_TRUE(WriteIn(id, Put("a", 1, 1)).ok());
  RowChange again = Put("a", 1, 2);
  again.condition = RowExistence::kExpectNotExist;
  Status refused = WriteIn(id, again);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code(), ErrorCode::kConditionalCheckFailed);
  again.condition = RowExistence::kExpectExist;
  EXPECT_TRUE(WriteIn(id, again).ok());
  ASSERT_TRUE(txns_->Commit(Use(id)).ok());
  EXPECT_EQ(Read("a", 1), 2);
}

TEST_P(LocalTxnTest, CommitOfATransactionWhoseTableWasDeletedWritesNothing) {
  std::string id = Start("a");
  ASSERT_TRUE(WriteIn(id, Put("a", 1, 1)).ok());
  ASSERT_TRUE(catalog_->Delete("txn", Front::kTablestore).ok());
  Status s = txns_->Commit(Use(id));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code(), ErrorCode::kResourceNotFound);
  EXPECT_EQ(txns_->open(), 0u);
}

TEST_P(LocalTxnTest, AtomicBatchesAreOnePartitionKeyAllOrNone) {
  std::vector<size_t> bytes(3, 10);
  size_t failed = 99;
  // Rows of two partition keys: the service's message, naming the first and the first other.
  std::vector<RowChange> rows{Put("0", 1, 1), Put("0", 2, 2), Put("1", 3, 3)};
  Status st = txns_->WriteAtomic(nullptr, *Table(), rows, bytes, nullptr, &failed);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message(),
            std::string(kDataOutOfRangePrefix) +
                "Data out of scope of atomic. Atomic PartKey:0. Data PartKey:1");
  EXPECT_EQ(failed, 2u);
  EXPECT_EQ(Read("0", 1), -1);
  // One partition key: all written.
  rows = {Put("a", 1, 1), Put("a", 2, 2), Delete("a", 1)};
  ASSERT_TRUE(txns_->WriteAtomic(nullptr, *Table(), rows, bytes, nullptr, &failed).ok());
  EXPECT_EQ(Read("a", 1), -1);
  EXPECT_EQ(Read("a", 2), 2);
  // While a transaction locks the partition key, refused from outside.
  std::string id = Start("a");
  st = txns_->WriteAtomic(nullptr, *Table(), rows, bytes, nullptr, &failed);
  ASSERT_FALSE(st.ok());
  EXPECT_TRUE(st.error().message().starts_with(kRowOperationConflictPrefix));
  // Inside the transaction: a failing row leaves the transaction's buffer as it was.
  ASSERT_TRUE(WriteIn(id, Put("a", 5, 5)).ok());
  RowChange must_not_exist = Put("a", 5, 6);
  must_not_exist.condition = RowExistence::kExpectNotExist;
  rows = {Put("a", 6, 6), must_not_exist};
  {
    auto session = Use(id);
    st = txns_->WriteAtomic(&session, *Table(), rows, bytes, nullptr, &failed);
  }
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code(), ErrorCode::kConditionalCheckFailed);
  EXPECT_EQ(failed, 1u);
  EXPECT_EQ(Read("a", 6, id), -1);
  EXPECT_EQ(Read("a", 5, id), 5);
  rows = {Put("a", 6, 6), Put("a", 7, 7)};
  {
    auto session = Use(id);
    ASSERT_TRUE(txns_->WriteAtomic(&session, *Table(), rows, bytes, nullptr, &failed).ok());
  }
  EXPECT_EQ(Read("a", 7), -1);  // not before the commit
  ASSERT_TRUE(txns_->Commit(Use(id)).ok());
  EXPECT_EQ(Read("a", 5), 5);
  EXPECT_EQ(Read("a", 6), 6);
  EXPECT_EQ(Read("a", 7), 7);
}

INSTANTIATE_TEST_SUITE_P(Backends, LocalTxnTest, ::testing::Values("rocksdb", "postgresql"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace ttlstore::ops
