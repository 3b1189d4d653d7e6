#include "ttl/sweeper.h"

#include "model/expiry.h"
#include "ops/table_ops.h"
#include "ops_test_util.h"
#include "ttl/backfill.h"

namespace ttlstore::ttl {
namespace {

// Time is 2026-11-22T00:00:00Z and moves only when the test says so.
constexpr int64_t kNowMs = 1795305600000;

class SweeperTest : public ops::OpsTest {
 protected:
  void SetUp() override {
    OpsTest::SetUp();
    catalog_ = std::make_unique<ops::TableCatalog>(*store_, clock_);
    model::TableDescriptor spec;
    spec.name = "sessions";
    spec.key.hash = {"pk", model::ValueType::kS};
    spec.attribute_definitions = {spec.key.hash};
    auto created = catalog_->Create(spec);
    ASSERT_TRUE(created.ok());
    table_ = **created;
  }
  void EnableTtl(const std::string& attribute = "expires") {
    auto t = catalog_->SetTimeToLive("sessions", true, attribute);
    ASSERT_TRUE(t.ok()) << t.error().message();
    ASSERT_TRUE(ExpiryBackfiller(*catalog_, *ops_).RunNow((*t)->id).ok());
    table_ = *catalog_->Find("sessions");
  }
  void PutWith(const std::string& pk, std::optional<model::AttributeValue> expires) {
    model::Item item{{"pk", S(pk)}};
    if (expires) item["expires"] = *expires;
    table_ = *catalog_->Find("sessions");
    ASSERT_TRUE(ops_->Put(table_, item, nullptr).ok());
  }
  static model::AttributeValue Seconds(int64_t ms) { return N(std::to_string(ms / 1000)); }
  bool Exists(const std::string& pk) {
    return ops_->Get(table_, {{"pk", S(pk)}})->item.has_value();
  }
  void Sweep() {
    Sweeper sweeper(SweeperOptions{}, *catalog_, *ops_, clock_, stats_);
    auto backlog = sweeper.RunPass();
    ASSERT_TRUE(backlog.ok());
  }

  FakeClock clock_{kNowMs};
  TtlStats stats_;
  std::unique_ptr<ops::TableCatalog> catalog_;
};

TEST_F(SweeperTest, DeletesAnItemOnceNowPassesItsExpiry) {
  EnableTtl();
  PutWith("a", Seconds(kNowMs + 10'000));
  Sweep();
  EXPECT_TRUE(Exists("a"));  // D3: not yet
  clock_.Advance(10'000);
  Sweep();
  EXPECT_TRUE(Exists("a"));  // now == value is not "greater than"
  clock_.Advance(1);
  Sweep();
  EXPECT_FALSE(Exists("a"));
  EXPECT_EQ(stats_.deleted("sessions"), 1u);
  EXPECT_EQ(store_->GetStats(table_.id)->item_count, 0);
}

TEST_F(SweeperTest, RecordsHowLongAfterItsExpiryEachItemWasDeleted) {
  EnableTtl();
  PutWith("a", Seconds(kNowMs));
  PutWith("b", Seconds(kNowMs));
  clock_.Advance(400);  // deleted 0.4 s late: in the 0.5 s bucket, not in the 0.3 s one
  Sweep();
  std::string text = stats_.Render();
  EXPECT_NE(text.find("ttlstore_ttl_deletion_lag_seconds_bucket{le=\"0.3\"} 0\n"),
            std::string::npos) << text;
  EXPECT_NE(text.find("ttlstore_ttl_deletion_lag_seconds_bucket{le=\"0.5\"} 2\n"),
            std::string::npos) << text;
  EXPECT_NE(text.find("ttlstore_ttl_deletion_lag_seconds_count 2\n"), std::string::npos);
}

TEST_F(SweeperTest, FractionsAndExponentsAreEpochSecondsToo) {
  EnableTtl();
  PutWith("fraction", N("1795305600.5"));
  PutWith("exponent", N("179530560e1"));
  clock_.Set(kNowMs + 1);
  Sweep();
  EXPECT_TRUE(Exists("fraction"));
  EXPECT_FALSE(Exists("exponent"));
  clock_.Set(kNowMs + 501);
  Sweep();
  EXPECT_FALSE(Exists("fraction"));
}

TEST_F(SweeperTest, NonNumbersMissingValuesAndAncientValuesNeverExpire) {
  EnableTtl();
  PutWith("string", S("1"));
  PutWith("none", std::nullopt);
  PutWith("ancient", N("1171734022"));      // Feb 2007: more than five years ago (D4)
  PutWith("millis", N("1795305600000"));    // a millisecond value: far in the future
  clock_.Advance(3600'000);
  Sweep();
  for (const char* pk : {"string", "none", "ancient", "millis"}) EXPECT_TRUE(Exists(pk)) << pk;
}

TEST_F(SweeperTest, TtlValuesThatLookLikeMillisecondsAreCounted) {
  EnableTtl();
  PutWith("seconds", Seconds(kNowMs + 1000));
  EXPECT_EQ(ops_->ms_like_ttl_writes(), 0u);
  PutWith("millis", N(std::to_string(kNowMs)));  // the common mistake: Date.now()
  EXPECT_EQ(ops_->ms_like_ttl_writes(), 1u);
}

TEST_F(SweeperTest, AnUpdateThatMovesTheTtlSavesTheItem) {
  EnableTtl();
  PutWith("saved", Seconds(kNowMs + 1000));
  PutWith("saved", Seconds(kNowMs + 60'000));  // D10: moved into the future before expiry
  PutWith("removed", Seconds(kNowMs + 1000));
  PutWith("removed", std::nullopt);            // the attribute removed
  clock_.Advance(2000);
  Sweep();
  EXPECT_TRUE(Exists("saved"));
  EXPECT_TRUE(Exists("removed"));
  clock_.Advance(60'000);
  Sweep();
  EXPECT_FALSE(Exists("saved"));
}

TEST_F(SweeperTest, ItemsWrittenBeforeTtlWasEnabledExpireToo) {
  PutWith("early", Seconds(kNowMs + 1000));
  EnableTtl();
  clock_.Advance(1001);
  Sweep();
  EXPECT_FALSE(Exists("early"));
}

TEST_F(SweeperTest, AnEntryWrittenBehindADrainedWaveIsStillFound) {
  EnableTtl();
  Sweeper sweeper(SweeperOptions{}, *catalog_, *ops_, clock_, stats_);
  PutWith("first", Seconds(kNowMs + 1000));
  clock_.Advance(5000);
  ASSERT_TRUE(sweeper.RunPass().ok());  // drains the index up to now
  EXPECT_FALSE(Exists("first"));
  PutWith("past", Seconds(kNowMs + 2000));  // due before the swept point
  ASSERT_TRUE(sweeper.RunPass().ok());
  EXPECT_FALSE(Exists("past"));
}

TEST_F(SweeperTest, DisablingTtlStopsDeletions) {
  EnableTtl();
  PutWith("a", Seconds(kNowMs + 1000));
  ASSERT_TRUE(catalog_->SetTimeToLive("sessions", false, "expires").ok());
  clock_.Advance(5000);
  Sweep();
  EXPECT_TRUE(Exists("a"));
}

TEST_F(SweeperTest, AWaveLargerThanOneBatchIsDeletedAcrossBatches) {
  EnableTtl();
  for (int i = 0; i < 1000; ++i) PutWith("k" + std::to_string(i), Seconds(kNowMs + 1000));
  PutWith("later", Seconds(kNowMs + 100'000));
  clock_.Advance(1001);
  SweeperOptions options;
  options.batch_size = 64;
  options.budget_ms = 10'000;
  Sweeper sweeper(options, *catalog_, *ops_, clock_, stats_);
  ASSERT_TRUE(sweeper.RunPass().ok());
  EXPECT_EQ(stats_.deleted("sessions"), 1000u);
  EXPECT_TRUE(Exists("later"));
  EXPECT_EQ(store_->GetStats(table_.id)->item_count, 1);
}

TEST_F(SweeperTest, AWaveIsDeletedByBatchesOnSeveralWorkersAtOnce) {
  EnableTtl();
  for (int i = 0; i < 1000; ++i) PutWith("k" + std::to_string(i), Seconds(kNowMs + 1000));
  PutWith("later", Seconds(kNowMs + 100'000));
  clock_.Advance(1001);
  SweeperOptions options;
  options.batch_size = 16;
  options.budget_ms = 10'000;
  options.threads = 4;
  Sweeper sweeper(options, *catalog_, *ops_, clock_, stats_);
  ASSERT_TRUE(sweeper.RunPass().ok());  // returns once its batches are done
  EXPECT_EQ(stats_.deleted("sessions"), 1000u);
  EXPECT_TRUE(Exists("later"));
  EXPECT_FALSE(Exists("k0"));
  EXPECT_FALSE(Exists("k999"));
  EXPECT_EQ(store_->GetStats(table_.id)->item_count, 1);
}

TEST_F(SweeperTest, EntriesWhoseItemsMovedTheirTtlAreDroppedAcrossBatches) {
  EnableTtl();
  for (int i = 0; i < 1000; ++i) PutWith("k" + std::to_string(i), Seconds(kNowMs + 1000));
  for (int i = 0; i < 100; ++i) {  // due entries whose items moved their TTL away (D10)
    PutWith("m" + std::to_string(i), Seconds(kNowMs + 1000));
    PutWith("m" + std::to_string(i), Seconds(kNowMs + 100'000));
  }
  PutWith("later", Seconds(kNowMs + 100'000));
  clock_.Advance(1001);
  SweeperOptions options;
  options.batch_size = 64;
  options.budget_ms = 10'000;
  Sweeper sweeper(options, *catalog_, *ops_, clock_, stats_);
  ASSERT_TRUE(sweeper.RunPass().ok());
  EXPECT_EQ(stats_.deleted("sessions"), 1000u);
  for (int i = 0; i < 100; ++i) EXPECT_TRUE(Exists("m" + std::to_string(i)));
  EXPECT_TRUE(Exists("later"));
  EXPECT_EQ(store_->GetStats(table_.id)->item_count, 101);
  clock_.Advance(100'000);
  ASSERT_TRUE(sweeper.RunPass().ok());
  EXPECT_EQ(store_->GetStats(table_.id)->item_count, 0);
}

TEST_F(SweeperTest, TtlSettingsFollowTheServiceRules) {
  EXPECT_EQ(catalog_->SetTimeToLive("sessions", false, "x").error().message(),
            "TimeToLive is already disabled");
  EnableTtl("expires");
  EXPECT_EQ(catalog_->SetTimeToLive("sessions", true, "expires").error().message(),
            "TimeToLive is already enabled");
  EXPECT_EQ(catalog_->SetTimeToLive("sessions", false, "other").error().message(),
            "TimeToLive is active on a different AttributeName: current AttributeName is expires");
  EXPECT_EQ(catalog_->SetTimeToLive("nope", true, "x").error().code(),
            ErrorCode::kResourceNotFound);
}

TEST(Expiry, DueTimeIsFloorOfSecondsTimesAThousand) {
  model::Item item{{"t", model::AttributeValue::Num("1700000000.0005")}};
  EXPECT_EQ(model::ExpiryDueMs(item, "t"), 1700000000000);
  EXPECT_FALSE(model::ExpiryDueMs(item, "missing").has_value());
  EXPECT_FALSE(model::ExpiryDueMs({{"t", model::AttributeValue::String("1")}}, "t").has_value());
  EXPECT_TRUE(model::IsExpiredAt(1000, 1001));
  EXPECT_FALSE(model::IsExpiredAt(1000, 1000));
  EXPECT_TRUE(model::IsTooOldToExpire(0, model::kMaxTtlPastMs + 1));
}

TEST(Expiry, HidingNeedsTtlAndTheOptInTagAndAnExpiredValue) {
  model::TableDescriptor t;
  t.ttl_enabled = true;
  t.ttl_attribute = "t";
  model::Item expired{{"t", model::AttributeValue::Num("1000")}};
  const int64_t now = 2'000'000;
  EXPECT_FALSE(model::IsHiddenExpired(t, expired, now));  // no tag: visible (D9)
  t.tags = {{model::kHideExpiredTag, "true"}};
  EXPECT_TRUE(model::IsHiddenExpired(t, expired, now));
  EXPECT_FALSE(model::IsHiddenExpired(t, {{"t", model::AttributeValue::Num("3000")}}, now));
  t.ttl_enabled = false;
  EXPECT_FALSE(model::IsHiddenExpired(t, expired, now));
}

}  // namespace
}  // namespace ttlstore::ttl

namespace ttlstore::ttl {
namespace {

using std::chrono::milliseconds;

TEST(SweeperPacingTest, WithoutABacklogItSleepsTheInterval) {
  SweeperOptions options;
  options.interval_ms = 200;
  EXPECT_EQ(PauseAfterPass(options, false, milliseconds(3), 0.0), milliseconds(200));
  EXPECT_EQ(PauseAfterPass(options, false, milliseconds(3), 1.5), milliseconds(200));
}

TEST(SweeperPacingTest, AnIdleServerLetsItRunFlatOut) {
  SweeperOptions options;
  EXPECT_EQ(PauseAfterPass(options, true, milliseconds(25), 0.0).count(), 0);
  EXPECT_EQ(PauseAfterPass(options, true, milliseconds(25), kIdleForegroundShare / 2).count(), 0);
}

TEST(SweeperPacingTest, ServingRequestsKeepsItToItsShareOfOneCore) {
  SweeperOptions options;
  options.busy_percent = 25;  // work 25 ms, rest 75 ms
  EXPECT_EQ(PauseAfterPass(options, true, milliseconds(25), 0.5), milliseconds(75));
  options.busy_percent = 50;
  EXPECT_EQ(PauseAfterPass(options, true, milliseconds(25), 1.9), milliseconds(25));
  options.busy_percent = 100;
  EXPECT_EQ(PauseAfterPass(options, true, milliseconds(25), 1.0).count(), 0);
}

}  // namespace
}  // namespace ttlstore::ttl
