// The control-plane calls that start or meet background work, through the DynamoDB dispatcher
// (docs/background-jobs.md): UpdateTimeToLive with and without the backfill worker, and the
// refusals that keep a restore's table unchanged until it is loaded.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <memory>

#include "api/dispatch.h"
#include "check/consistency.h"
#include "ops/table_ops.h"
#include "storage/key_codec.h"
#include "streams/stream_record.h"
#include "ttl/backfill.h"

namespace ttlstore::api {
namespace {

constexpr int64_t kNowMs = 1795305600000;  // 2026-11-22T00:00:00Z

class TableJobsApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("ttlstore_table_jobs_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    storage::StoreOptions options;
    options.path = dir_.string();
    auto store = storage::Store::Open(options);
    ASSERT_TRUE(store.ok()) << store.error().message();
    store_ = std::move(*store);
    catalog_ = std::make_unique<ops::TableCatalog>(*store_, clock_);
    items_ = std::make_unique<ops::ItemOps>(*store_);
    tokens_ = std::make_unique<ops::IdempotencyCache>(clock_);
    services_ = std::make_unique<Services>(Services{*catalog_, *items_, *tokens_, clock_});
  }
  void TearDown() override {
    services_.reset();
    tokens_.reset();
    items_.reset();
    catalog_.reset();
    store_.reset();
    std::filesystem::remove_all(dir_);
  }

  ApiResponse Call(const std::string& op, const std::string& body) {
    return Dispatch(*services_, "DynamoDB_20120810." + op, body);
  }
  void Ok(const std::string& op, const std::string& body) {
    ApiResponse r = Call(op, body);
    ASSERT_EQ(r.http_status, 200) << op << ": " << r.error_type << " " << r.error_message;
  }
  void CreateTable(const std::string& name, bool restoring = false) {
    model::TableDescriptor spec;
    spec.name = name;
    spec.key.hash = {"pk", model::ValueType::kS};
    spec.attribute_definitions = {spec.key.hash};
    spec.billing_mode = model::BillingMode::kPayPerRequest;
    if (restoring) {
      spec.restore.emplace();
      spec.restore->in_progress = true;
    }
    ASSERT_TRUE(catalog_->Create(spec).ok());
  }
  void PutItems(const std::string& table, int n) {
    for (int i = 0; i < n; ++i) {
      Ok("PutItem", R"({"TableName":")" + table + R"(","Item":{"pk":{"S":"k)" + std::to_string(i) +
                        R"("},"exp":{"N":")" + std::to_string(kNowMs / 1000 + 100 + i) + R"("}}})");
    }
  }
  std::string EnableBody(const std::string& table, bool enabled = true) {
    return R"({"TableName":")" + table + R"(","TimeToLiveSpecification":{"Enabled":)" +
           (enabled ? "true" : "false") + R"(,"AttributeName":"exp"}})";
  }
  check::CheckReport Check() {
    auto r = check::CheckStore(*store_, kNowMs);
    EXPECT_TRUE(r.ok());
    return r.ok() ? *r : check::CheckReport{};
  }

  FakeClock clock_{kNowMs};
  std::filesystem::path dir_;
  std::unique_ptr<storage::Store> store_;
  std::unique_ptr<ops::TableCatalog> catalog_;
  std::unique_ptr<ops::ItemOps> items_;
  std::unique_ptr<ops::IdempotencyCache> tokens_;
  std::unique_ptr<Services> services_;
};

TEST_F(TableJobsApiTest, EnablingTtlIndexesTheItemsBeforeAnswering) {
  CreateTable("sessions");
  PutItems("sessions", 2500);
  ttl::ExpiryBackfiller backfiller(*catalog_, *items_);
  backfiller.Start();
  services_->ttl_backfiller = &backfiller;
  Ok("UpdateTimeToLive", EnableBody("sessions"));
  EXPECT_FALSE(catalog_->Find("sessions")->ttl_backfill.has_value());
  ApiResponse d = Call("DescribeTimeToLive", R"({"TableName":"sessions"})");
  EXPECT_EQ(d.body,
            R"({"TimeToLiveDescription":{"TimeToLiveStatus":"ENABLED","AttributeName":"exp"}})");
  check::CheckReport r = Check();
  EXPECT_TRUE(r.ok()) << r.problems[0];
  EXPECT_EQ(r.expiry_entries, 2500u);
  // Done, so a disable is accepted at once (the service would refuse it for up to an hour).
  Ok("UpdateTimeToLive", EnableBody("sessions", false));
  backfiller.Stop();
}

TEST_F(TableJobsApiTest, WithoutAWorkerTheBackfillRunsInTheRequest) {
  CreateTable("sessions");
  PutItems("sessions", 10);
  Ok("UpdateTimeToLive", EnableBody("sessions"));
  EXPECT_FALSE(catalog_->Find("sessions")->ttl_backfill.has_value());
  EXPECT_EQ(Check().expiry_entries, 10u);
}

TEST_F(TableJobsApiTest, ATableBeingRestoredRefusesControlPlaneChanges) {
  CreateTable("restoring", /*restoring=*/true);
  const std::string message =
      "Attempt to change a resource which is still in use: Table is being created: restoring";
  for (const auto& [op, body] : std::vector<std::pair<std::string, std::string>>{
           {"UpdateTimeToLive", EnableBody("restoring")},
           {"UpdateTable", R"({"TableName":"restoring","DeletionProtectionEnabled":true})"},
           {"DeleteTable", R"({"TableName":"restoring"})"}}) {
    ApiResponse r = Call(op, body);
    EXPECT_EQ(r.http_status, 400) << op;
    EXPECT_EQ(r.error_type, "ResourceInUseException") << op;
    EXPECT_EQ(r.error_message, message) << op;
  }
  EXPECT_TRUE(catalog_->Find("restoring"));
}

TEST_F(TableJobsApiTest, DeleteTableKeepsItsStreamsInTheSameWrite) {
  Ok("CreateTable", R"({"TableName":"logged","BillingMode":"PAY_PER_REQUEST",
      "AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],
      "KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],
      "StreamSpecification":{"StreamEnabled":true,"StreamViewType":"KEYS_ONLY"}})");
  uint32_t id = catalog_->Find("logged")->id;
  int64_t stream_ms = catalog_->Find("logged")->streams.at(0).created_ms;
  Ok("PutItem", R"({"TableName":"logged","Item":{"pk":{"S":"a"}}})");
  Ok("DeleteTable", R"({"TableName":"logged"})");
  auto kept = store_->Get(storage::Family::kStreams, streams::DroppedKey(id, stream_ms));
  ASSERT_TRUE(kept.ok());
  ASSERT_TRUE(kept->has_value());
  auto d = streams::DecodeDropped(streams::DroppedKey(id, stream_ms), **kept);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->table_name, "logged");
  EXPECT_EQ(d->info.disabled_ms, kNowMs);
  check::CheckReport r = Check();
  EXPECT_TRUE(r.ok()) << r.problems[0];
  EXPECT_EQ(r.stream_records, 1u);
}

}  // namespace
}  // namespace ttlstore::api
