// DescribeStream over a stream with more shards than one page holds, through the dispatcher:
// LastEvaluatedShardId / ExclusiveStartShardId and Limit page through every shard once, in
// order, with and without ShardFilter CHILD_SHARDS. Shards are made by a 1 ms rollover period.
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <set>

#include "api/dispatch.h"
#include "ops/table_ops.h"
#include "streams/stream_names.h"

namespace ttlstore::api {
namespace {

constexpr int kShards = 130;  // more than DescribeStream's 100 per page

class StreamShardsApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("ttlstore_shards_api_test_" + std::to_string(::getpid()) + "_" +
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

  rapidjson::Document Ok(const std::string& target, const std::string& body) {
    ApiResponse r = Dispatch(*services_, target, body);
    EXPECT_EQ(r.http_status, 200) << target << ": " << r.error_type << " " << r.error_message;
    rapidjson::Document doc;
    doc.Parse(r.body.c_str());
    return doc;
  }
  // A table whose stream has kShards shards (records in every one: stream records are dated by
  // the system clock, so each put waits out the 1 ms period).
  std::string StreamWithManyShards() {
    auto created = Ok("DynamoDB_20120810.CreateTable", R"({"TableName":"many",
        "AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],
        "KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST",
        "StreamSpecification":{"StreamEnabled":true,"StreamViewType":"KEYS_ONLY"}})");
    std::string arn = created["TableDescription"]["LatestStreamArn"].GetString();
    items_->streams().set_rollover_ms(1);
    for (int i = 0; i < kShards; ++i) {
      ::usleep(1500);
      Ok("DynamoDB_20120810.PutItem",
         R"({"TableName":"many","Item":{"pk":{"S":"k)" + std::to_string(i) + R"("}}})");
    }
    return arn;
  }
  // Every shard id DescribeStream lists, page by page; `extra` is added to each request.
  std::vector<std::string> Pages(const std::string& arn, const std::string& extra,
                                 size_t* pages = nullptr) {
    std::vector<std::string> ids;
    std::string start;
    size_t n = 0;
    do {
      std::string body = R"({"StreamArn":")" + arn + "\"" + extra;
      if (!start.empty()) body += R"(,"ExclusiveStartShardId":")" + start + "\"";
      auto d = Ok("DynamoDBStreams_20120810.DescribeStream", body + "}");
      const auto& desc = d["StreamDescription"];
      for (const auto& s : desc["Shards"].GetArray()) ids.push_back(s["ShardId"].GetString());
      start =
          desc.HasMember("LastEvaluatedShardId") ? desc["LastEvaluatedShardId"].GetString() : "";
      ++n;
    } while (!start.empty() && n < 1000);
    if (pages) *pages = n;
    return ids;
  }

  FakeClock clock_{1795305600000};
  std::filesystem::path dir_;
  std::unique_ptr<storage::Store> store_;
  std::unique_ptr<ops::TableCatalog> catalog_;
  std::unique_ptr<ops::ItemOps> items_;
  std::unique_ptr<ops::IdempotencyCache> tokens_;
  std::unique_ptr<Services> services_;
};

TEST_F(StreamShardsApiTest, PagesCoverEveryShardOnceInOrder) {
  std::string arn = StreamWithManyShards();
  size_t pages = 0;
  std::vector<std::string> all = Pages(arn, "", &pages);
  ASSERT_EQ(all.size(), static_cast<size_t>(kShards));
  EXPECT_EQ(pages, 2u);  // 100, then 30
  EXPECT_TRUE(std::is_sorted(all.begin(), all.end()));
  EXPECT_EQ(std::set<std::string>(all.begin(), all.end()).size(), all.size());
  EXPECT_EQ(Pages(arn, R"(,"Limit":7)", &pages), all);
  EXPECT_EQ(pages, static_cast<size_t>((kShards + 6) / 7));
  // Exactly a page's worth: no LastEvaluatedShardId after the last shard.
  auto d = Ok("DynamoDBStreams_20120810.DescribeStream",
              R"({"StreamArn":")" + arn + R"(","ExclusiveStartShardId":")" + all[kShards - 11] +
                  R"(","Limit":10})");
  EXPECT_EQ(d["StreamDescription"]["Shards"].Size(), 10u);
  EXPECT_FALSE(d["StreamDescription"].HasMember("LastEvaluatedShardId"));
}

TEST_F(StreamShardsApiTest, ChildShardsOfEveryShardAreItsSuccessor) {
  std::string arn = StreamWithManyShards();
  std::vector<std::string> all = Pages(arn, "");
  ASSERT_EQ(all.size(), static_cast<size_t>(kShards));
  for (size_t i = 0; i < all.size(); i += 13) {
    auto kids = Pages(
        arn, R"(,"Limit":1,"ShardFilter":{"Type":"CHILD_SHARDS","ShardId":")" + all[i] + "\"}");
    if (i + 1 < all.size()) {
      EXPECT_EQ(kids, std::vector<std::string>{all[i + 1]}) << i;
    } else {
      EXPECT_TRUE(kids.empty());
    }
  }
}

}  // namespace
}  // namespace ttlstore::api
