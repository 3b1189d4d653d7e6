// The pure parts of `ttlstore replicate`: the checkpoint's encoding and atomic file, shard
// lineage (parents before children, lost shards), sequence-number order, a stream page reduced
// to one write per key, the target's CreateTable request, endpoint URLs.
#include <gtest/gtest.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>

#include "cli/replicate_checkpoint.h"
#include "cli/replicate_target.h"
#include "cli/replicate_writer.h"
#include "cli/shard_lineage.h"
#include "client/endpoint.h"

namespace ttlstore::cli {
namespace {

namespace json = boost::json;

ReplicateCheckpoint Sample() {
  ReplicateCheckpoint c;
  c.source_url = "http://127.0.0.1:8000";
  c.source_table = "Src";
  c.target_url = "https://dynamodb.eu-west-1.amazonaws.com";
  c.target_table = "Dst";
  c.stream_arn = "arn:aws:dynamodb:us-east-1:000000000000:table/Src/stream/2026-11-26T00:00:00.000";
  c.segments.resize(3);
  c.segments[0].done = true;
  c.segments[0].items = 7;
  c.segments[1].last_key = json::parse(R"({"pk":{"S":"a\u0000b"},"sk":{"N":"12.5"}})");
  c.segments[1].items = 3;
  c.shards["shardId-1"] = {"000000000000000000042", true};
  c.shards["shardId-2"] = {"", false};
  c.items_copied = 10;
  c.records_applied = 99;
  return c;
}

TEST(ReplicateCheckpoint, EncodingRoundTrips) {
  ReplicateCheckpoint c = Sample();
  auto d = ReplicateCheckpoint::Decode(c.Encode());
  ASSERT_TRUE(d.ok()) << d.error().message();
  EXPECT_EQ(d->Encode(), c.Encode());
  EXPECT_EQ(d->segments[1].last_key, c.segments[1].last_key);
  EXPECT_TRUE(d->segments[2].last_key.is_null());
  EXPECT_EQ(d->shards.at("shardId-1").after, "000000000000000000042");
  EXPECT_TRUE(d->shards.at("shardId-1").finished);
  EXPECT_FALSE(d->shards.at("shardId-2").finished);
}

TEST(ReplicateCheckpoint, RefusesWhatItDidNotWrite) {
  EXPECT_FALSE(ReplicateCheckpoint::Decode("").ok());
  EXPECT_FALSE(ReplicateCheckpoint::Decode("[]").ok());
  EXPECT_FALSE(ReplicateCheckpoint::Decode(R"({"version":2})").ok());
  std::string enc = Sample().Encode();
  EXPECT_FALSE(ReplicateCheckpoint::Decode(enc.substr(0, enc.size() / 2)).ok());
  std::string wrong_type = enc;
  wrong_type.replace(wrong_type.find("\"copy_done\":false"), 17, "\"copy_done\":0");
  EXPECT_FALSE(ReplicateCheckpoint::Decode(wrong_type).ok());
  // Nesting far past any checkpoint's is refused, not recursed into.
  EXPECT_FALSE(ReplicateCheckpoint::Decode(std::string(100000, '[')).ok());
}

TEST(ReplicateCheckpoint, SaveReplacesTheFileAndLoadReadsIt) {
  auto dir = std::filesystem::temp_directory_path() / ("repl_ckpt_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string path = (dir / "c.json").string();
  auto none = ReplicateCheckpoint::Load(path);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  ReplicateCheckpoint c = Sample();
  ASSERT_TRUE(c.Save(path).ok());
  c.records_applied = 100;
  ASSERT_TRUE(c.Save(path).ok());
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  auto loaded = ReplicateCheckpoint::Load(path);
  ASSERT_TRUE(loaded.ok());
  ASSERT_TRUE(loaded->has_value());
  EXPECT_EQ((**loaded).records_applied, 100);
  std::ofstream(path) << "{\"version\":1";
  EXPECT_FALSE(ReplicateCheckpoint::Load(path).ok());
  std::filesystem::remove_all(dir);
}

std::vector<ListedShard> Chain() {
  // 1 (closed) -> 2 (closed) -> 3 (open); 4 is a sibling of 3 (a split).
  return {{"s1", "", "100", "199"}, {"s2", "s1", "200", "299"}, {"s3", "s2", "300", ""},
          {"s4", "s2", "350", ""}};
}

TEST(ShardLineage, ParentsBeforeChildren) {
  std::map<std::string, ShardState> states;
  EXPECT_EQ(PlanShards(Chain(), states).ready, std::vector<std::string>{"s1"});
  states["s1"] = {"199", true};
  EXPECT_EQ(PlanShards(Chain(), states).ready, std::vector<std::string>{"s2"});
  states["s2"] = {"250", false};
  EXPECT_EQ(PlanShards(Chain(), states).ready, std::vector<std::string>{"s2"});
  states["s2"] = {"299", true};
  EXPECT_EQ(PlanShards(Chain(), states).ready, (std::vector<std::string>{"s3", "s4"}));
  states["s3"] = {"", true};
  EXPECT_EQ(PlanShards(Chain(), states).ready, std::vector<std::string>{"s4"});
}

TEST(ShardLineage, AParentNoLongerListedIsDoneUnlessTheCheckpointWasReadingIt) {
  std::vector<ListedShard> listed = {{"s3", "s2", "300", ""}};
  std::map<std::string, ShardState> states;
  ShardPlan p = PlanShards(listed, states);
  EXPECT_EQ(p.ready, std::vector<std::string>{"s3"});
  EXPECT_TRUE(p.lost.empty());
  states["s2"] = {"250", false};  // trimmed while we were stopped, half read
  p = PlanShards(listed, states);
  EXPECT_EQ(p.lost, std::vector<std::string>{"s2"});
  states["s2"] = {"299", true};  // finished, then trimmed: fine
  p = PlanShards(listed, states);
  EXPECT_TRUE(p.lost.empty());
  EXPECT_EQ(p.ready, std::vector<std::string>{"s3"});
}

TEST(ShardLineage, SequenceNumbersCompareAsNumbers) {
  EXPECT_LT(CompareSequenceNumbers("99", "100"), 0);
  EXPECT_EQ(CompareSequenceNumbers("000100", "100"), 0);
  EXPECT_GT(CompareSequenceNumbers("4000000000000000000000001", "4000000000000000000000000"), 0);
  EXPECT_EQ(CompareSequenceNumbers("0", ""), 0);
}

json::array Records(std::string_view text) { return json::parse(text).as_array(); }

TEST(CollapseRecords, OneWritePerKeyTheLastOneWins) {
  auto b = CollapseRecords(Records(R"([
    {"eventName":"INSERT","dynamodb":{"Keys":{"pk":{"S":"a"},"sk":{"N":"1"}},
      "NewImage":{"pk":{"S":"a"},"sk":{"N":"1"},"v":{"N":"1"}},"SequenceNumber":"10",
      "ApproximateCreationDateTime":1700000000}},
    {"eventName":"MODIFY","dynamodb":{"Keys":{"sk":{"N":"1"},"pk":{"S":"a"}},
      "NewImage":{"pk":{"S":"a"},"sk":{"N":"1"},"v":{"N":"2"}},"SequenceNumber":"11",
      "ApproximateCreationDateTime":1700000001}},
    {"eventName":"INSERT","dynamodb":{"Keys":{"pk":{"S":"b"},"sk":{"N":"1"}},
      "NewImage":{"pk":{"S":"b"},"sk":{"N":"1"}},"SequenceNumber":"12"}},
    {"eventName":"REMOVE","userIdentity":{"PrincipalId":"dynamodb.amazonaws.com","Type":"Service"},
      "dynamodb":{"Keys":{"pk":{"S":"b"},"sk":{"N":"1"}},"SequenceNumber":"13",
      "ApproximateCreationDateTime":1700000002}}
  ])"));
  ASSERT_TRUE(b.ok()) << b.error().message();
  EXPECT_EQ(b->records, 4);
  EXPECT_EQ(b->ttl_deletes, 1);
  EXPECT_EQ(b->last_sequence, "13");
  EXPECT_DOUBLE_EQ(b->last_created_s, 1700000002);
  ASSERT_EQ(b->requests.size(), 2u);
  EXPECT_EQ(json::serialize(b->requests[0]),
            R"({"PutRequest":{"Item":{"pk":{"S":"a"},"sk":{"N":"1"},"v":{"N":"2"}}}})");
  EXPECT_EQ(json::serialize(b->requests[1]),
            R"({"DeleteRequest":{"Key":{"pk":{"S":"b"},"sk":{"N":"1"}}}})");
}

TEST(CollapseRecords, AUserDeleteIsNotCountedAsTtlAndMissingImagesAreRefused) {
  auto b = CollapseRecords(Records(R"([{"eventName":"REMOVE","userIdentity":null,
      "dynamodb":{"Keys":{"pk":{"S":"a"}},"SequenceNumber":"1"}}])"));
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->ttl_deletes, 0);
  // The Lambda event spelling of the identity counts too.
  b = CollapseRecords(Records(R"([{"eventName":"REMOVE",
      "userIdentity":{"type":"Service","principalId":"dynamodb.amazonaws.com"},
      "dynamodb":{"Keys":{"pk":{"S":"a"}},"SequenceNumber":"2"}}])"));
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->ttl_deletes, 1);
  EXPECT_FALSE(CollapseRecords(Records(R"([{"eventName":"MODIFY",
      "dynamodb":{"Keys":{"pk":{"S":"a"}},"SequenceNumber":"1"}}])")).ok());
  EXPECT_FALSE(CollapseRecords(Records(R"([{"eventName":"INSERT","dynamodb":{}}])")).ok());
}

TEST(ReplicateTarget, CreateTableRequestCarriesKeysIndexesBillingAndStream) {
  json::object src = json::parse(R"({
    "TableName":"Src","TableStatus":"ACTIVE","ItemCount":5,
    "AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},
                            {"AttributeName":"g","AttributeType":"N"}],
    "KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],
    "ProvisionedThroughput":{"ReadCapacityUnits":5,"WriteCapacityUnits":7,
                             "NumberOfDecreasesToday":0},
    "GlobalSecondaryIndexes":[{"IndexName":"G","KeySchema":[{"AttributeName":"g","KeyType":"HASH"}],
      "Projection":{"ProjectionType":"KEYS_ONLY"},"IndexStatus":"ACTIVE","IndexSizeBytes":0,
      "ProvisionedThroughput":{"ReadCapacityUnits":1,"WriteCapacityUnits":2}}],
    "StreamSpecification":{"StreamEnabled":true,"StreamViewType":"NEW_IMAGE"},
    "LatestStreamArn":"arn:x","TableClassSummary":{"TableClass":"STANDARD"}
  })").as_object();
  json::object req = CreateTableRequestFrom(src, "Dst");
  EXPECT_EQ(req.at("TableName"), "Dst");
  EXPECT_EQ(req.at("BillingMode"), "PROVISIONED");
  EXPECT_EQ(json::serialize(req.at("ProvisionedThroughput")),
            R"({"ReadCapacityUnits":5,"WriteCapacityUnits":7})");
  const json::object& g = req.at("GlobalSecondaryIndexes").as_array()[0].as_object();
  EXPECT_FALSE(g.contains("IndexStatus"));
  EXPECT_EQ(json::serialize(g.at("ProvisionedThroughput")),
            R"({"ReadCapacityUnits":1,"WriteCapacityUnits":2})");
  EXPECT_EQ(req.at("StreamSpecification").at("StreamViewType"), "NEW_IMAGE");
  EXPECT_FALSE(req.contains("TableClass"));
  EXPECT_FALSE(req.contains("ItemCount"));
  std::string why;
  EXPECT_EQ(NewImageStreamViewType(src, &why), "NEW_IMAGE");

  src["BillingModeSummary"] = json::parse(R"({"BillingMode":"PAY_PER_REQUEST"})");
  src["StreamSpecification"] = json::parse(R"({"StreamEnabled":true,"StreamViewType":"KEYS_ONLY"})");
  req = CreateTableRequestFrom(src, "Dst");
  EXPECT_EQ(req.at("BillingMode"), "PAY_PER_REQUEST");
  EXPECT_FALSE(req.contains("ProvisionedThroughput"));
  EXPECT_FALSE(req.at("GlobalSecondaryIndexes").as_array()[0].as_object().contains(
      "ProvisionedThroughput"));
  EXPECT_EQ(NewImageStreamViewType(src, &why), "");
  EXPECT_EQ(why, "its stream records KEYS_ONLY, not new images");
}

TEST(ClientEndpoint, ParsesHttpAndHttpsAndRefusesTheRest) {
  auto a = client::ParseEndpoint("http://127.0.0.1:8000/");
  ASSERT_TRUE(a.ok());
  EXPECT_FALSE(a->https);
  EXPECT_EQ(a->HostHeader(), "127.0.0.1:8000");
  auto b = client::ParseEndpoint("https://dynamodb.us-east-1.amazonaws.com");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->port, "443");
  EXPECT_EQ(b->HostHeader(), "dynamodb.us-east-1.amazonaws.com");
  EXPECT_EQ(client::StreamsEndpointFor(*b).host, "streams.dynamodb.us-east-1.amazonaws.com");
  EXPECT_EQ(client::StreamsEndpointFor(*a).host, "127.0.0.1");
  EXPECT_EQ(client::StreamsEndpointFor(*client::ParseEndpoint(
                                           "https://dynamodb.cn-north-1.amazonaws.com.cn"))
                .host,
            "streams.dynamodb.cn-north-1.amazonaws.com.cn");
  EXPECT_EQ(client::RegionOfHost("dynamodb.eu-west-1.amazonaws.com"), "eu-west-1");
  EXPECT_EQ(client::RegionOfHost("streams.dynamodb.us-west-2.amazonaws.com"), "us-west-2");
  EXPECT_EQ(client::RegionOfHost("dynamodb.cn-north-1.amazonaws.com.cn"), "cn-north-1");
  EXPECT_EQ(client::RegionOfHost("127.0.0.1"), "");
  EXPECT_EQ(client::RegionOfHost("dynamodb.example.com"), "");
  EXPECT_EQ(client::RegionOfHost("dynamodb..amazonaws.com"), "");
  for (const char* bad : {"127.0.0.1:8000", "ftp://x", "http://", "http://h:", "http://h:99999",
                          "http://h/path", "http://u@h", "http://h:8x"}) {
    EXPECT_FALSE(client::ParseEndpoint(bad).ok()) << bad;
  }
}

}  // namespace
}  // namespace ttlstore::cli
