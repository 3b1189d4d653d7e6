// The TTL backfill on enable (ttl/backfill.h): the pending mark and cursor in the descriptor, the
// resume after a restart, its races with writers and deletes, and the UpdateTimeToLive rules
// that keep it alone on its table.
#include <gtest/gtest.h>

#include "check/consistency.h"
#include "model/expiry.h"
#include "ops/table_ops.h"
#include "ops_test_util.h"
#include "storage/catalog_codec.h"
#include "storage/key_codec.h"
#include "ttl/backfill.h"

namespace ttlstore::ttl {
namespace {

constexpr int64_t kNowMs = 1795305600000;  // 2026-11-22T00:00:00Z

class TtlBackfillTest : public ops::OpsTest {
 protected:
  void SetUp() override {
    OpsTest::SetUp();
    OpenCatalog();
    model::TableDescriptor spec;
    spec.name = "sessions";
    spec.key.hash = {"pk", model::ValueType::kS};
    spec.attribute_definitions = {spec.key.hash};
    auto created = catalog_->Create(spec);
    ASSERT_TRUE(created.ok());
    id_ = (*created)->id;
  }
  void OpenCatalog() {
    catalog_ = std::make_unique<ops::TableCatalog>(*store_, clock_);
    ASSERT_TRUE(catalog_->Load().ok());
  }
  // What a kill -9 and a start do to everything but the data dir.
  void Restart() {
    catalog_.reset();
    ops_.reset();
    store_.reset();
    storage::StoreOptions options;
    options.path = dir_.string();
    auto s = storage::Store::Open(options);
    ASSERT_TRUE(s.ok()) << s.error().message();
    store_ = std::move(*s);
    ops_ = std::make_unique<ops::ItemOps>(*store_);
    OpenCatalog();
  }
  ops::TablePtr Table() { return catalog_->FindById(id_); }
  std::string Key(int i) { return storage::ItemKey(id_, S("k" + std::to_string(i)), nullptr); }
  // Items k0..k<n-1>; even ones expire at kNowMs/1000 + i, odd ones have no TTL attribute.
  void Fill(int n) {
    for (int i = 0; i < n; ++i) {
      model::Item item{{"pk", S("k" + std::to_string(i))}};
      if (i % 2 == 0) item["expires"] = N(std::to_string(kNowMs / 1000 + i));
      ASSERT_TRUE(ops_->Put(*Table(), item, nullptr).ok());
    }
  }
  bool HasEntry(int i) {
    auto e = store_->HasExpiry((kNowMs / 1000 + i) * 1000, Key(i));
    return e.ok() && *e;
  }
  check::CheckReport Check() {
    auto r = check::CheckStore(*store_, kNowMs);
    EXPECT_TRUE(r.ok());
    return r.ok() ? *r : check::CheckReport{};
  }

  FakeClock clock_{kNowMs};
  std::unique_ptr<ops::TableCatalog> catalog_;
  uint32_t id_ = 0;
};

TEST_F(TtlBackfillTest, EnablingMarksTheBackfillPendingInTheSameWrite) {
  Fill(10);
  ASSERT_TRUE(catalog_->SetTimeToLive("sessions", true, "expires").ok());
  Restart();  // as if killed right after the catalog write
  ASSERT_TRUE(Table()->ttl_enabled);
  ASSERT_TRUE(Table()->ttl_backfill.has_value());
  EXPECT_EQ(Table()->ttl_backfill->cursor, "");
  check::CheckReport r = Check();
  EXPECT_TRUE(r.ok()) << r.problems[0];
  EXPECT_EQ(r.ttl_backfill_items, 10u);  // all still to do, none required yet
  ASSERT_TRUE(ExpiryBackfiller(*catalog_, *ops_).RunNow(id_).ok());
  EXPECT_FALSE(Table()->ttl_backfill.has_value());
  for (int i = 0; i < 10; i += 2) EXPECT_TRUE(HasEntry(i)) << i;
  r = Check();
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.ttl_backfill_items, 0u);
  EXPECT_EQ(r.expiry_entries, 5u);
}

TEST_F(TtlBackfillTest, ACrashBetweenChunksResumesAfterTheCursor) {
  const int n = static_cast<int>(ExpiryBackfiller::kChunk) * 2 + 10;
  Fill(n);
  ASSERT_TRUE(catalog_->SetTimeToLive("sessions", true, "expires").ok());
  // One chunk done, as the worker does it, then the process dies.
  std::vector<std::string> keys;
  for (auto it =
           store_->ScanItems(storage::TablePrefix(id_),
                             storage::PrefixSuccessor(storage::TablePrefix(id_)), false, nullptr);
       it->Valid() && keys.size() < ExpiryBackfiller::kChunk; it->Next()) {
    keys.emplace_back(it->key());
  }
  storage::WriteBatch batch(*store_);
  for (const auto& k : keys) {
    auto item = ops::ItemOps::DecodeRead(*store_->GetItem(k));
    if (auto due = model::ExpiryDueMs(*item->item, "expires")) batch.PutExpiry(*due, k);
  }
  ASSERT_TRUE(store_->Write(batch).ok());  // the chunk's entries, then its cursor
  ASSERT_TRUE(*catalog_->AdvanceTtlBackfill(id_, "expires", keys.back(), false));
  Restart();
  EXPECT_EQ(Table()->ttl_backfill->cursor, keys.back());
  check::CheckReport r = Check();
  EXPECT_TRUE(r.ok()) << r.problems[0];
  EXPECT_EQ(r.ttl_backfill_items, static_cast<uint64_t>(n) - ExpiryBackfiller::kChunk);

  // The check holds the items up to the cursor to their entries.
  int64_t first_due = -1;
  std::string first_key;
  for (const auto& k : keys) {
    auto due = model::ExpiryDueMs(*ops::ItemOps::DecodeRead(*store_->GetItem(k))->item, "expires");
    if (due) {
      first_due = *due;
      first_key = k;
      break;
    }
  }
  storage::WriteBatch lose(*store_);
  lose.DeleteExpiry(first_due, first_key);
  ASSERT_TRUE(store_->Write(lose).ok());
  r = Check();
  ASSERT_EQ(r.problem_count, 1u);
  EXPECT_NE(r.problems[0].find("no expiry-index entry"), std::string::npos) << r.problems[0];
  storage::WriteBatch mend(*store_);
  mend.PutExpiry(first_due, first_key);
  ASSERT_TRUE(store_->Write(mend).ok());

  // The start-up resume finishes the rest.
  ExpiryBackfiller backfiller(*catalog_, *ops_);
  backfiller.Resume(*Table());
  backfiller.Start();
  EXPECT_TRUE(backfiller.WaitUntilDone(id_, std::chrono::seconds(30)));
  backfiller.Stop();
  EXPECT_FALSE(Table()->ttl_backfill.has_value());
  for (int i = 0; i < n; i += 2) ASSERT_TRUE(HasEntry(i)) << i;
  r = Check();
  EXPECT_TRUE(r.ok()) << r.problems[0];
  EXPECT_EQ(r.expiry_entries, static_cast<uint64_t>((n + 1) / 2));
}

TEST_F(TtlBackfillTest, WritesDuringTheBackfillKeepTheirEntries) {
  Fill(4);
  ASSERT_TRUE(catalog_->SetTimeToLive("sessions", true, "expires").ok());
  // An item ahead of the cursor moves its TTL, another is written new: both get entries at
  // once from the write path.
  ASSERT_TRUE(ops_->Put(*Table(),
                        {{"pk", S("k2")}, {"expires", N(std::to_string(kNowMs / 1000 + 99))}},
                        nullptr)
                  .ok());
  ASSERT_TRUE(ops_->Put(*Table(),
                        {{"pk", S("new")}, {"expires", N(std::to_string(kNowMs / 1000 + 7))}},
                        nullptr)
                  .ok());
  EXPECT_TRUE(*store_->HasExpiry((kNowMs / 1000 + 99) * 1000, Key(2)));
  ASSERT_TRUE(ExpiryBackfiller(*catalog_, *ops_).RunNow(id_).ok());
  EXPECT_FALSE(HasEntry(2));  // the old due time was never indexed, the new one is
  EXPECT_TRUE(HasEntry(0));
  check::CheckReport r = Check();
  EXPECT_TRUE(r.ok()) << r.problems[0];
  EXPECT_EQ(r.expiry_entries, 3u);
  EXPECT_EQ(r.stale_expiry_entries, 0u);
}

TEST_F(TtlBackfillTest, WhilePendingUpdateTimeToLiveRefusesAnotherChange) {
  ASSERT_TRUE(catalog_->SetTimeToLive("sessions", true, "expires").ok());
  auto again = catalog_->SetTimeToLive("sessions", false, "expires");
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().code(), ErrorCode::kValidation);
  EXPECT_EQ(again.error().message(),
            "Time to live has been modified multiple times within a fixed interval");
  // The service's other refusals come first.
  EXPECT_EQ(catalog_->SetTimeToLive("sessions", true, "expires").error().message(),
            "TimeToLive is already enabled");
  EXPECT_EQ(catalog_->SetTimeToLive("sessions", false, "other").error().message(),
            "TimeToLive is active on a different AttributeName: current AttributeName is expires");
  ASSERT_TRUE(ExpiryBackfiller(*catalog_, *ops_).RunNow(id_).ok());
  EXPECT_TRUE(catalog_->SetTimeToLive("sessions", false, "expires").ok());
  auto on = catalog_->SetTimeToLive("sessions", true, "other");
  ASSERT_TRUE(on.ok());
  EXPECT_TRUE((*on)->ttl_backfill.has_value());  // a re-enable backfills again
}

TEST_F(TtlBackfillTest, DeletingTheTableEndsThePendingBackfill) {
  Fill(6);
  ASSERT_TRUE(catalog_->SetTimeToLive("sessions", true, "expires").ok());
  ASSERT_TRUE(catalog_->Delete("sessions").ok());
  ASSERT_TRUE(ExpiryBackfiller(*catalog_, *ops_).RunNow(id_).ok());
  auto committed = catalog_->AdvanceTtlBackfill(id_, "expires", "", true);
  ASSERT_TRUE(committed.ok());
  EXPECT_FALSE(*committed);  // nothing is written for a table that is gone
  check::CheckReport r = Check();
  EXPECT_TRUE(r.ok()) << r.problems[0];
  EXPECT_EQ(r.items, 0u);
  EXPECT_EQ(r.expiry_entries, 0u);
}

TEST_F(TtlBackfillTest, ATableBeingRestoredRefusesTtlChanges) {
  model::TableDescriptor spec;
  spec.name = "restoring";
  spec.key.hash = {"pk", model::ValueType::kS};
  spec.restore.emplace();
  spec.restore->in_progress = true;
  ASSERT_TRUE(catalog_->Create(spec).ok());
  auto r = catalog_->SetTimeToLive("restoring", true, "expires");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), ErrorCode::kResourceInUse);
  EXPECT_EQ(r.error().message(),
            "Attempt to change a resource which is still in use: Table is being created: "
            "restoring");
}

TEST(CatalogCodec, TheTtlBackfillMarkAndCursorRoundTrip) {
  model::TableDescriptor t;
  t.id = 7;
  t.name = "x";
  t.key.hash = {"pk", model::ValueType::kS};
  t.ttl_enabled = true;
  t.ttl_attribute = "exp";
  auto plain = storage::DecodeTableDescriptor(storage::EncodeTableDescriptor(t));
  ASSERT_TRUE(plain);
  EXPECT_FALSE(plain->ttl_backfill.has_value());
  t.ttl_backfill.emplace();
  auto fresh = storage::DecodeTableDescriptor(storage::EncodeTableDescriptor(t));
  ASSERT_TRUE(fresh && fresh->ttl_backfill);
  EXPECT_EQ(fresh->ttl_backfill->cursor, "");
  t.ttl_backfill->cursor = std::string("\x00\x00\x00\x07\x01\x02\x00", 7);
  auto mid = storage::DecodeTableDescriptor(storage::EncodeTableDescriptor(t));
  ASSERT_TRUE(mid && mid->ttl_backfill);
  EXPECT_EQ(mid->ttl_backfill->cursor, t.ttl_backfill->cursor);
}

}  // namespace
}  // namespace ttlstore::ttl
