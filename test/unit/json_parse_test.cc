// Bounded JSON parsing (api/json_parse.h) and the whole DynamoDB request path under bodies nested
// far deeper than any valid request, run on a thread with the server's stack size
// (common/thread.h), as the HTTP workers run them.
#include "api/json_parse.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include "api/dispatch.h"
#include "common/thread.h"
#include "ops/multi_item_ops.h"
#include "ops/table_ops.h"
#include "storage/store.h"

namespace ttlstore::api {
namespace {

std::string Repeat(const std::string& s, size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (size_t i = 0; i < n; ++i) out += s;
  return out;
}

// Runs `fn` on a Thread with the server's stack, as a request is served.
void OnServerStack(const std::function<void()>& fn) {
  Thread t("test", fn);
  t.join();
}

TEST(Thread, RunsWithTheKnownStackSize) {
  size_t seen = 0;
  OnServerStack([&] { seen = Thread::CurrentStackBytes(); });
  EXPECT_EQ(seen, kThreadStackBytes);
}

TEST(ParseJson, AcceptsADocumentAtTheDepthLimit) {
  rapidjson::Document doc;
  std::string text = Repeat("[", kMaxJsonDepth) + Repeat("]", kMaxJsonDepth);
  ASSERT_EQ(ParseJson(text, &doc), JsonParse::kOk);
  EXPECT_TRUE(doc.IsArray());
  text = Repeat("{\"a\":", kMaxJsonDepth - 1) + "{}" + Repeat("}", kMaxJsonDepth - 1);
  ASSERT_EQ(ParseJson(text, &doc), JsonParse::kOk);
  EXPECT_TRUE(doc.IsObject());
}

TEST(ParseJson, RefusesOneLevelMoreAndLeavesTheDocumentNull) {
  rapidjson::Document doc;
  std::string text = Repeat("[", kMaxJsonDepth + 1) + Repeat("]", kMaxJsonDepth + 1);
  EXPECT_EQ(ParseJson(text, &doc), JsonParse::kTooDeep);
  EXPECT_TRUE(doc.IsNull());
}

TEST(ParseJson, DeepInputOfEveryShapeIsRefusedWithoutRecursion) {
  OnServerStack([] {
    for (size_t depth : {33u, 1000u, 100000u, 1000000u}) {
      bool deep = depth > static_cast<size_t>(kMaxJsonDepth);
      rapidjson::Document doc;
      // Balanced arrays and objects, and unbalanced openers (a body cut short).
      std::string arrays = Repeat("[", depth) + Repeat("]", depth);
      std::string objects = Repeat("{\"k\":", depth) + "1" + Repeat("}", depth);
      EXPECT_EQ(ParseJson(arrays, &doc), deep ? JsonParse::kTooDeep : JsonParse::kOk) << depth;
      EXPECT_EQ(ParseJson(objects, &doc), deep ? JsonParse::kTooDeep : JsonParse::kOk) << depth;
      EXPECT_EQ(ParseJson(Repeat("[", depth), &doc),
                deep ? JsonParse::kTooDeep : JsonParse::kInvalid)
          << depth;
      EXPECT_EQ(ParseJson(Repeat("{\"k\":[", depth), &doc),
                depth * 2 > static_cast<size_t>(kMaxJsonDepth) ? JsonParse::kTooDeep
                                                               : JsonParse::kInvalid)
          << depth;
    }
  });
}

TEST(ParseJson, SyntaxErrorsAndTrailingBytesAreInvalid) {
  rapidjson::Document doc;
  EXPECT_EQ(ParseJson("", &doc), JsonParse::kInvalid);
  EXPECT_EQ(ParseJson("{", &doc), JsonParse::kInvalid);
  EXPECT_EQ(ParseJson("{} {}", &doc), JsonParse::kInvalid);
  EXPECT_EQ(ParseJson("{\"a\":1,}", &doc), JsonParse::kInvalid);
  // A raw control character in a string is not JSON; the escaped form is, NUL included.
  EXPECT_EQ(ParseJson(std::string("{\"a\":\"\0\"}", 9), &doc), JsonParse::kInvalid);
  ASSERT_EQ(ParseJson(R"({"a":"x\u0000y"})", &doc), JsonParse::kOk);
  EXPECT_EQ(doc["a"].GetStringLength(), 3u);
  EXPECT_EQ(ParseJson("  {\"a\": [1, 2.5, true, null, \"x\"]}  ", &doc), JsonParse::kOk);
  EXPECT_EQ(doc["a"].Size(), 5u);
}

// The request path: Dispatch with bodies nested 33, 1,000, 100,000 and 1,000,000 levels in every
// place a client can put a document.
class DeepRequestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("ttlstore_deep_request_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    storage::StoreOptions options;
    options.path = dir_.string();
    auto store = storage::Store::Open(options);
    ASSERT_TRUE(store.ok()) << store.error().message();
    store_ = std::move(*store);
    catalog_ = std::make_unique<ops::TableCatalog>(*store_, clock_);
    ASSERT_TRUE(catalog_->Load().ok());
    items_ = std::make_unique<ops::ItemOps>(*store_);
    tokens_ = std::make_unique<ops::IdempotencyCache>(clock_);
    services_ = std::make_unique<Services>(Services{*catalog_, *items_, *tokens_, clock_});
    ApiResponse r = Call("CreateTable",
                         R"({"TableName":"deep","BillingMode":"PAY_PER_REQUEST",
                             "AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],
                             "KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}]})");
    ASSERT_EQ(r.http_status, 200) << r.body;
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
    ApiResponse r;
    OnServerStack([&] { r = Dispatch(*services_, "DynamoDB_20120810." + op, body); });
    return r;
  }

  // A map value nested `depth` levels: {"M":{"a":{"M":{"a": ... {"S":"x"} ...}}}}.
  static std::string DeepMap(size_t depth) {
    return Repeat(R"({"M":{"a":)", depth) + R"({"S":"x"})" + Repeat("}}", depth);
  }
  static std::string DeepList(size_t depth) {
    return Repeat(R"({"L":[)", depth) + R"({"S":"x"})" + Repeat("]}", depth);
  }

  // The body of `op` with `value` placed where a client may put a document.
  static std::string Body(const std::string& op, const std::string& value) {
    if (op == "PutItem") {
      return R"({"TableName":"deep","Item":{"pk":{"S":"k"},"d":)" + value + "}}";
    }
    if (op == "GetItem") return R"({"TableName":"deep","Key":{"pk":)" + value + "}}";
    if (op == "UpdateItem") {
      return R"({"TableName":"deep","Key":{"pk":{"S":"k"}},"UpdateExpression":"SET d = :v",)"
             R"("ExpressionAttributeValues":{":v":)" +
             value + "}}";
    }
    if (op == "DeleteItem") {
      return R"({"TableName":"deep","Key":{"pk":{"S":"k"}},"Expected":{"d":{"Value":)" + value +
             "}}}";
    }
    if (op == "BatchWriteItem") {
      return R"({"RequestItems":{"deep":[{"PutRequest":{"Item":{"pk":{"S":"k"},"d":)" + value +
             "}}}]}}";
    }
    if (op == "TransactWriteItems") {
      return R"({"TransactItems":[{"Put":{"TableName":"deep","Item":{"pk":{"S":"k"},"d":)" +
             value + "}}}]}";
    }
    // ExecuteStatement
    return R"({"Statement":"INSERT INTO deep VALUE {'pk': 'k', 'd': ?}","Parameters":[)" + value +
           "]}";
  }

  FakeClock clock_{1700000000000};
  std::filesystem::path dir_;
  std::unique_ptr<storage::Store> store_;
  std::unique_ptr<ops::TableCatalog> catalog_;
  std::unique_ptr<ops::ItemOps> items_;
  std::unique_ptr<ops::IdempotencyCache> tokens_;
  std::unique_ptr<Services> services_;
};

constexpr char kNesting[] =
    "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels "
    "beyond supported limit";

TEST_F(DeepRequestTest, DeepDocumentsGetTheServiceErrorAndWriteNothing) {
  for (const char* op : {"PutItem", "GetItem", "UpdateItem", "DeleteItem", "BatchWriteItem",
                         "TransactWriteItems", "ExecuteStatement"}) {
    for (size_t depth : {33u, 1000u, 100000u, 1000000u}) {
      for (bool list : {false, true}) {
        std::string value = list ? DeepList(depth) : DeepMap(depth);
        ApiResponse r = Call(op, Body(op, value));
        SCOPED_TRACE(std::string(op) + (list ? " list " : " map ") + std::to_string(depth));
        EXPECT_EQ(r.http_status, 400);
        if (2 * depth + 8 > static_cast<size_t>(kMaxJsonDepth)) {
          // Past what the JSON parser reads: the bare SerializationException of an unreadable
          // body.
          EXPECT_EQ(r.error_type, "SerializationException");
          EXPECT_EQ(r.error_message, "");
        } else if (std::string(op) == "GetItem") {
          // A key must be a scalar; the key check comes first.
          EXPECT_EQ(r.error_type, "ValidationException");
        } else {
          EXPECT_EQ(r.error_type, "ValidationException");
          if (std::string(op) != "ExecuteStatement") {
            EXPECT_EQ(r.error_message, kNesting);
          }
        }
      }
    }
  }
  // Nothing was written by any of them.
  ApiResponse scan = Call("Scan", R"({"TableName":"deep"})");
  ASSERT_EQ(scan.http_status, 200);
  EXPECT_NE(scan.body.find(R"("Count":0)"), std::string::npos) << scan.body;
}

TEST_F(DeepRequestTest, DeepJunkInAnyFieldIsASerializationError) {
  for (size_t depth : {33u, 1000u, 100000u, 1000000u}) {
    std::string junk = Repeat("[", depth) + Repeat("]", depth);
    for (const char* op : {"PutItem", "Query", "CreateTable", "DescribeTable"}) {
      ApiResponse r = Call(op, R"({"TableName":)" + junk + "}");
      EXPECT_EQ(r.http_status, 400) << op << depth;
      EXPECT_EQ(r.error_type, "SerializationException") << op << depth << r.body;
    }
    // Unbalanced: a body of nothing but openers.
    ApiResponse r = Call("PutItem", Repeat("{\"a\":", depth));
    EXPECT_EQ(r.error_type, "SerializationException");
  }
}

}  // namespace
}  // namespace ttlstore::api
