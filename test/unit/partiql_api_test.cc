// ExecuteStatement, BatchExecuteStatement and ExecuteTransaction through their handlers, against
// a real Store in a temporary folder.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <memory>

#include "api/dispatch.h"
#include "api/json_value.h"
#include "ops/multi_item_ops.h"
#include "ops/table_ops.h"
#include "storage/store.h"

namespace ttlstore::api {

// Declared in api/handlers.h once dispatch routes to them; repeated here so this test does not
// depend on that wiring.
Result<std::string> ExecuteStatement(const Services&, const rapidjson::Value&);
Result<std::string> BatchExecuteStatement(const Services&, const rapidjson::Value&);
Result<std::string> ExecuteTransaction(const Services&, const rapidjson::Value&);

namespace {

using Handler = Result<std::string> (*)(const Services&, const rapidjson::Value&);

class PartiqlApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("ttlstore_partiql_test_" + std::to_string(::getpid()) + "_" +
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
    CreateTable("hash", {"pk", model::ValueType::kS}, std::nullopt);
    CreateTable("comp", {"pk", model::ValueType::kS},
                model::KeyElement{"sk", model::ValueType::kN});
  }
  void TearDown() override {
    services_.reset();
    tokens_.reset();
    items_.reset();
    catalog_.reset();
    store_.reset();
    std::filesystem::remove_all(dir_);
  }

  void CreateTable(const std::string& name, model::KeyElement hash,
                   std::optional<model::KeyElement> range) {
    model::TableDescriptor spec;
    spec.name = name;
    spec.key.hash = hash;
    spec.key.range = range;
    spec.attribute_definitions.push_back(hash);
    if (range) spec.attribute_definitions.push_back(*range);
    spec.billing_mode = model::BillingMode::kPayPerRequest;
    ASSERT_TRUE(catalog_->Create(spec).ok());
  }

  // Runs `handler` on the JSON `body`: the response, or "<code>: <message>" on error.
  struct Reply {
    bool ok = false;
    rapidjson::Document json;  // the response (ok)
    ErrorCode code = ErrorCode::kInternal;
    std::string message;
    std::string extra;
  };
  Reply Call(Handler handler, const std::string& body) {
    rapidjson::Document req;
    req.Parse(body.c_str());
    EXPECT_FALSE(req.HasParseError()) << body;
    Reply r;
    auto result = handler(*services_, req);
    if (result) {
      r.ok = true;
      r.json.Parse(result->c_str());
    } else {
      r.code = result.error().code();
      r.message = result.error().message();
      r.extra = result.error().extra_json();
    }
    return r;
  }
  // ExecuteStatement with a statement and optional Parameters JSON.
  Reply Exec(const std::string& statement, const std::string& params = "",
             const std::string& more = "") {
    rapidjson::StringBuffer buf;
    JsonWriter w(buf);
    w.String(statement.c_str());
    std::string body = std::string("{\"Statement\":") + buf.GetString() +
                       (params.empty() ? "" : ",\"Parameters\":" + params) + more + "}";
    return Call(&ExecuteStatement, body);
  }
  void MustExec(const std::string& statement, const std::string& params = "") {
    Reply r = Exec(statement, params);
    ASSERT_TRUE(r.ok) << statement << " -> " << r.message;
  }
  // The Items of a successful SELECT, as compact JSON.
  std::string Items(const std::string& statement, const std::string& params = "") {
    Reply r = Exec(statement, params);
    if (!r.ok) return "ERROR " + r.message;
    return Json(r.json["Items"]);
  }
  static std::string Json(const rapidjson::Value& v) {
    rapidjson::StringBuffer buf;
    rapidjson::Writer<rapidjson::StringBuffer> w(buf);
    v.Accept(w);
    return buf.GetString();
  }

  FakeClock clock_{1700000000000};
  std::filesystem::path dir_;
  std::unique_ptr<storage::Store> store_;
  std::unique_ptr<ops::TableCatalog> catalog_;
  std::unique_ptr<ops::ItemOps> items_;
  std::unique_ptr<ops::IdempotencyCache> tokens_;
  std::unique_ptr<Services> services_;
};

TEST_F(PartiqlApiTest, InsertThenSelectByKey) {
  MustExec("INSERT INTO \"hash\" VALUE {'pk': 'a', 'data': 'inserted', 'n': 1}");
  EXPECT_EQ(Items("SELECT * FROM \"hash\" WHERE pk = 'a'"),
            R"([{"data":{"S":"inserted"},"n":{"N":"1"},"pk":{"S":"a"}}])");
  EXPECT_EQ(Items("SELECT * FROM hash WHERE pk = 'nope'"), "[]");
  Reply write = Exec("INSERT INTO hash VALUE {'pk': 'b'}");
  ASSERT_TRUE(write.ok);
  EXPECT_EQ(Json(write.json), R"({"Items":[]})");
}

TEST_F(PartiqlApiTest, InsertIsNotAnUpsert) {
  MustExec("INSERT INTO hash VALUE {'pk': 'dup', 'data': 'first'}");
  Reply r = Exec("INSERT INTO hash VALUE {'pk': 'dup', 'data': 'second'}");
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.message, "Duplicate primary key exists in table");
  EXPECT_EQ(Items("SELECT data FROM hash WHERE pk = 'dup'"), R"([{"data":{"S":"first"}}])");
  MustExec("DELETE FROM hash WHERE pk = 'dup'");
  MustExec("INSERT INTO hash VALUE {'pk': 'dup', 'data': 'again'}");
}

TEST_F(PartiqlApiTest, Parameters) {
  MustExec("INSERT INTO hash VALUE {'pk': ?, 'data': ?}", R"([{"S":"p"},{"S":"v"}])");
  EXPECT_EQ(Items("SELECT data FROM hash WHERE pk = ?", R"([{"S":"p"}])"),
            R"([{"data":{"S":"v"}}])");
  // Extra values are ignored; too few is an error.
  EXPECT_EQ(Items("SELECT data FROM hash WHERE pk = ?", R"([{"S":"p"},{"S":"q"}])"),
            R"([{"data":{"S":"v"}}])");
  Reply r = Exec("SELECT * FROM hash WHERE pk = ? AND data = ?", R"([{"S":"p"}])");
  EXPECT_EQ(r.message, "Number of parameters in request and statement don't match.");
  r = Exec("SELECT * FROM hash WHERE pk = ?");
  EXPECT_EQ(r.message, "Number of parameters in request and statement don't match.");
  r = Exec("SELECT * FROM hash WHERE pk = ?", "[]");
  EXPECT_EQ(r.message,
            "1 validation error detected: Value '[]' at 'parameters' failed to satisfy "
            "constraint: Member must have length greater than or equal to 1");
}

TEST_F(PartiqlApiTest, UpdateNeedsAnExistingItemAndItsCondition) {
  MustExec("INSERT INTO hash VALUE {'pk': 'u', 'n': 1, 'gone': 'x', 's': <<'a'>>, 'l': [1]}");
  MustExec(
      "UPDATE hash SET n = n + 1, data = 'after' SET l = list_append(l, [2]) "
      "SET s = set_add(s, <<'b'>>) REMOVE gone WHERE pk = 'u'");
  EXPECT_EQ(Items("SELECT * FROM hash WHERE pk = 'u'"),
            R"([{"data":{"S":"after"},"l":{"L":[{"N":"1"},{"N":"2"}]},"n":{"N":"2"},)"
            R"("pk":{"S":"u"},"s":{"SS":["a","b"]}}])");
  Reply r = Exec("UPDATE hash SET n = 5 WHERE pk = 'missing'");
  EXPECT_EQ(r.code, ErrorCode::kConditionalCheckFailed);
  EXPECT_EQ(Items("SELECT * FROM hash WHERE pk = 'missing'"), "[]");
  r = Exec("UPDATE hash SET n = 5 WHERE pk = 'u' AND n = 100", "",
           ",\"ReturnValuesOnConditionCheckFailure\":\"ALL_OLD\"");
  EXPECT_EQ(r.code, ErrorCode::kConditionalCheckFailed);
  EXPECT_NE(r.extra.find("\"Item\""), std::string::npos);
  MustExec("UPDATE hash SET n = 5 WHERE pk = 'u' AND n = 2");
  r = Exec("UPDATE hash SET n = 1 WHERE n = 5");
  EXPECT_EQ(r.message, "Where clause does not contain a mandatory equality on all key attributes");
}

TEST_F(PartiqlApiTest, DeleteIsANoOpOnAMissingItemAndHonoursItsCondition) {
  MustExec("DELETE FROM hash WHERE pk = 'never'");
  MustExec("DELETE FROM hash WHERE pk = 'never' AND x = 1");
  MustExec("INSERT INTO hash VALUE {'pk': 'd', 'x': 1}");
  Reply r = Exec("DELETE FROM hash WHERE pk = 'd' AND x = 2");
  EXPECT_EQ(r.code, ErrorCode::kConditionalCheckFailed);
  Reply gone = Exec("DELETE FROM hash WHERE pk = 'd' AND x = 1 RETURNING ALL OLD *");
  ASSERT_TRUE(gone.ok);
  EXPECT_EQ(Json(gone.json["Items"]), R"([{"pk":{"S":"d"},"x":{"N":"1"}}])");
  EXPECT_EQ(Items("SELECT * FROM hash WHERE pk = 'd'"), "[]");
}

TEST_F(PartiqlApiTest, Returning) {
  MustExec("INSERT INTO hash VALUE {'pk': 'r', 'a': 1, 'b': 2}");
  Reply r = Exec("UPDATE hash SET a = 10 WHERE pk = 'r' RETURNING MODIFIED OLD *");
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(Json(r.json["Items"]), R"([{"a":{"N":"1"}}])");
  r = Exec("UPDATE hash SET c = 3 WHERE pk = 'r' RETURNING ALL NEW *");
  EXPECT_EQ(Json(r.json["Items"]),
            R"([{"a":{"N":"10"},"b":{"N":"2"},"c":{"N":"3"},"pk":{"S":"r"}}])");
  r = Exec("DELETE FROM hash WHERE pk = 'r' RETURNING ALL NEW *");
  EXPECT_EQ(r.message,
            "Invalid returning clause: RETURNING ALL NEW *. Only RETURNING ALL OLD * is allowed "
            "in DELETE statements.");
}

TEST_F(PartiqlApiTest, SelectProjectionNamesAndFilters) {
  MustExec(
      "INSERT INTO hash VALUE {'pk': 'n', 'mymap': {'nested': 'deep'}, 'l': [1, 'b'], "
      "'age': 30, 'extra': 'x'}");
  EXPECT_EQ(Items("SELECT mymap.nested, l[1], pk FROM hash WHERE pk = 'n'"),
            R"([{"l[1]":{"S":"b"},"nested":{"S":"deep"},"pk":{"S":"n"}}])");
  EXPECT_EQ(Items("SELECT pk FROM hash WHERE pk = 'n' AND age > 20"), R"([{"pk":{"S":"n"}}])");
  EXPECT_EQ(Items("SELECT pk FROM hash WHERE pk = 'n' AND age > 40"), "[]");
  EXPECT_EQ(Items("SELECT pk FROM hash WHERE age BETWEEN 29 AND 31 AND extra IS NOT MISSING"),
            R"([{"pk":{"S":"n"}}])");
  EXPECT_EQ(Items("SELECT pk FROM hash WHERE nothing IS MISSING AND contains(l, 'b')"),
            R"([{"pk":{"S":"n"}}])");
}

TEST_F(PartiqlApiTest, QueriesOnACompositeKey) {
  for (const char* sk : {"1", "2", "3"}) {
    MustExec(std::string("INSERT INTO comp VALUE {'pk': 'p', 'sk': ") + sk + "}");
    MustExec(std::string("INSERT INTO comp VALUE {'pk': 'q', 'sk': ") + sk + "}");
  }
  EXPECT_EQ(Items("SELECT sk FROM comp WHERE pk = 'p' AND sk >= 2"),
            R"([{"sk":{"N":"2"}},{"sk":{"N":"3"}}])");
  EXPECT_EQ(Items("SELECT sk FROM comp WHERE pk = 'p' ORDER BY sk DESC"),
            R"([{"sk":{"N":"3"}},{"sk":{"N":"2"}},{"sk":{"N":"1"}}])");
  EXPECT_EQ(Items("SELECT pk, sk FROM comp WHERE pk IN ['q', 'p'] AND sk = 1"),
            R"([{"pk":{"S":"q"},"sk":{"N":"1"}},{"pk":{"S":"p"},"sk":{"N":"1"}}])");
  EXPECT_EQ(Items("SELECT pk, sk FROM comp WHERE pk IN ['q', 'p'] AND sk = 1 ORDER BY pk"),
            R"([{"pk":{"S":"p"},"sk":{"N":"1"}},{"pk":{"S":"q"},"sk":{"N":"1"}}])");
  Reply r = Exec("DELETE FROM comp WHERE pk = 'p'");
  EXPECT_EQ(r.message, "Where clause does not contain a mandatory equality on all key attributes");
  MustExec("DELETE FROM comp WHERE pk = 'p' AND sk = 1");
  EXPECT_EQ(Items("SELECT sk FROM comp WHERE pk = 'p'"), R"([{"sk":{"N":"2"}},{"sk":{"N":"3"}}])");
}

TEST_F(PartiqlApiTest, LimitAndNextTokenPage) {
  for (int i = 0; i < 5; ++i) {
    MustExec("INSERT INTO comp VALUE {'pk': 'a', 'sk': " + std::to_string(i) + "}");
    MustExec("INSERT INTO comp VALUE {'pk': 'b', 'sk': " + std::to_string(i) + "}");
  }
  for (const std::string statement :
       {"SELECT * FROM comp", "SELECT * FROM comp WHERE pk IN ['a', 'b']",
        "SELECT * FROM comp WHERE pk = 'a' OR pk = 'b'"}) {
    size_t seen = 0;
    std::string token;
    for (int pages = 0; pages < 20; ++pages) {
      std::string more = ",\"Limit\":3";
      if (!token.empty()) more += ",\"NextToken\":\"" + token + "\"";
      Reply r = Exec(statement, "", more);
      ASSERT_TRUE(r.ok) << statement << ": " << r.message;
      seen += r.json["Items"].Size();
      EXPECT_LE(r.json["Items"].Size(), 3u);
      if (!r.json.HasMember("NextToken")) break;
      token = r.json["NextToken"].GetString();
    }
    EXPECT_EQ(seen, 10u) << statement;
  }
  Reply first = Exec("SELECT * FROM comp", "", ",\"Limit\":1");
  ASSERT_TRUE(first.ok);
  std::string token = first.json["NextToken"].GetString();
  Reply other = Exec("SELECT pk FROM comp", "", ",\"NextToken\":\"" + token + "\"");
  EXPECT_EQ(other.message, "NextToken does not match request");
  Reply bad = Exec("SELECT * FROM comp", "", ",\"NextToken\":\"garbage\"");
  EXPECT_EQ(bad.message, "Invalid NextToken");
}

TEST_F(PartiqlApiTest, StatementErrors) {
  Reply r = Exec("SELECTT * FROMM hash");
  EXPECT_EQ(r.code, ErrorCode::kValidation);
  EXPECT_EQ(r.message,
            "Statement wasn't well formed, can't be processed: Expected data manipulation");
  r = Exec("SELECT * FROM \"_conformance_nonexistent_table\" WHERE pk = 'x'");
  EXPECT_EQ(r.code, ErrorCode::kResourceNotFound);
  r = Exec("SELECT * FROM hash WHERE pk = 1");
  EXPECT_EQ(r.message,
            "Key attribute's data type should match its data type in table's schema: Key pk");
  r = Exec("INSERT INTO hash VALUE {'x': 1}");
  EXPECT_EQ(r.message, "Key attribute should be present in the item: Key pk");
  r = Exec("EXISTS(SELECT * FROM hash WHERE pk = 'a')");
  EXPECT_EQ(r.message, "EXISTS can only be used in ExecuteTransaction write requests.");
  r = Exec("SELECT * FROM hash", "", ",\"Limit\":0");
  EXPECT_EQ(r.message,
            "1 validation error detected: Value '0' at 'limit' failed to satisfy constraint: "
            "Member must have value greater than or equal to 1");
  r = Call(&ExecuteStatement, "{}");
  EXPECT_EQ(r.message,
            "1 validation error detected: Value null at 'statement' failed to satisfy constraint: "
            "Member must not be null");
  r = Exec("SELECT * FROM hash.\"idx\" WHERE pk = 'a'");
  EXPECT_EQ(r.message, "The table does not have the specified index");
}

TEST_F(PartiqlApiTest, BatchAnswersEachStatement) {
  MustExec("INSERT INTO hash VALUE {'pk': 'b1', 'data': 'one'}");
  MustExec("INSERT INTO hash VALUE {'pk': 'b2', 'data': 'two'}");
  Reply r = Call(&BatchExecuteStatement, R"({"Statements":[
      {"Statement":"SELECT * FROM hash WHERE pk='b1'"},
      {"Statement":"SELECT data FROM hash WHERE pk=?","Parameters":[{"S":"b2"}]},
      {"Statement":"SELECT * FROM hash WHERE pk='none'"},
      {"Statement":"SELECT * FROM \"_nope\" WHERE pk='x'"},
      {"Statement":"SELECT * FROM hash WHERE data = 'one'"},
      {"Statement":"SELEC"}]})");
  ASSERT_TRUE(r.ok) << r.message;
  const auto& responses = r.json["Responses"];
  ASSERT_EQ(responses.Size(), 6u);
  EXPECT_EQ(Json(responses[0]),
            R"({"TableName":"hash","Item":{"data":{"S":"one"},"pk":{"S":"b1"}}})");
  EXPECT_EQ(Json(responses[1]), R"({"TableName":"hash","Item":{"data":{"S":"two"}}})");
  EXPECT_EQ(Json(responses[2]), R"({"TableName":"hash"})");
  EXPECT_EQ(std::string(responses[3]["Error"]["Code"].GetString()), "ResourceNotFound");
  EXPECT_EQ(std::string(responses[4]["Error"]["Message"].GetString()),
            "Select statements within BatchExecuteStatement must specify the primary key in the "
            "where clause.");
  EXPECT_EQ(std::string(responses[5]["Error"]["Code"].GetString()), "ValidationError");
}

TEST_F(PartiqlApiTest, BatchWrites) {
  MustExec("INSERT INTO hash VALUE {'pk': 'exists'}");
  MustExec("INSERT INTO hash VALUE {'pk': 'exists2'}");
  Reply r = Call(&BatchExecuteStatement, R"({"Statements":[
      {"Statement":"INSERT INTO hash VALUE {'pk':'exists'}"},
      {"Statement":"UPDATE hash SET q=1 WHERE pk='zz'"},
      {"Statement":"DELETE FROM hash WHERE pk='bb'"},
      {"Statement":"INSERT INTO hash VALUE {'pk':'new1'}"},
      {"Statement":"UPDATE hash SET q=1 WHERE pk='exists2'"}]})");
  ASSERT_TRUE(r.ok) << r.message;
  const auto& responses = r.json["Responses"];
  EXPECT_EQ(
      Json(responses[0]),
      R"({"Error":{"Code":"DuplicateItem","Message":"Duplicate primary key exists in table"},)"
      R"("TableName":"hash"})");
  EXPECT_EQ(std::string(responses[1]["Error"]["Code"].GetString()), "ConditionalCheckFailed");
  EXPECT_EQ(Json(responses[2]), R"({"TableName":"hash"})");
  EXPECT_EQ(Json(responses[3]), R"({"TableName":"hash"})");
  EXPECT_EQ(Json(responses[4]), R"({"TableName":"hash"})");
  EXPECT_EQ(Items("SELECT q FROM hash WHERE pk = 'exists2'"), R"([{"q":{"N":"1"}}])");
  EXPECT_EQ(Items("SELECT pk FROM hash WHERE pk = 'new1'"), R"([{"pk":{"S":"new1"}}])");
}

TEST_F(PartiqlApiTest, BatchRequestErrors) {
  Reply r = Call(&BatchExecuteStatement, R"({"Statements":[]})");
  EXPECT_EQ(r.code, ErrorCode::kValidation);
  r = Call(&BatchExecuteStatement, R"({"Statements":[
      {"Statement":"INSERT INTO hash VALUE {'pk':'a'}"},
      {"Statement":"SELECT * FROM hash WHERE pk='a'"}]})");
  EXPECT_EQ(r.message, "Read and write requests together in the same batch is not supported.");
  r = Call(&BatchExecuteStatement, R"({"Statements":[
      {"Statement":"DELETE FROM hash WHERE pk='a'"},
      {"Statement":"DELETE FROM hash WHERE pk='a'"}]})");
  EXPECT_EQ(r.message, "Provided list of item keys contains duplicates");
  std::string many = R"({"Statements":[)";
  for (int i = 0; i < 26; ++i) {
    many += std::string(i ? "," : "") + R"({"Statement":"DELETE FROM hash WHERE pk='a)" +
            std::to_string(i) + "'\"}";
  }
  r = Call(&BatchExecuteStatement, many + "]}");
  EXPECT_EQ(r.code, ErrorCode::kValidation);
  EXPECT_NE(r.message.find("less than or equal to 25"), std::string::npos) << r.message;
}

TEST_F(PartiqlApiTest, TransactionIsAllOrNothing) {
  MustExec("INSERT INTO hash VALUE {'pk': 'tu', 'data': 'before'}");
  Reply r = Call(&ExecuteTransaction, R"({"TransactStatements":[
      {"Statement":"INSERT INTO hash VALUE {'pk':'ti','data':'new'}"},
      {"Statement":"UPDATE hash SET data = 'after' WHERE pk = ?","Parameters":[{"S":"tu"}]}]})");
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(Items("SELECT data FROM hash WHERE pk = 'tu'"), R"([{"data":{"S":"after"}}])");
  EXPECT_EQ(Items("SELECT data FROM hash WHERE pk = 'ti'"), R"([{"data":{"S":"new"}}])");

  r = Call(&ExecuteTransaction, R"({"TransactStatements":[
      {"Statement":"INSERT INTO hash VALUE {'pk':'ti','data':'dup'}"},
      {"Statement":"INSERT INTO hash VALUE {'pk':'t2'}"}]})");
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.code, ErrorCode::kTransactionCanceled);
  EXPECT_EQ(r.message,
            "Transaction cancelled, please refer cancellation reasons for specific reasons "
            "[DuplicateItem, None]");
  EXPECT_EQ(Items("SELECT * FROM hash WHERE pk = 't2'"), "[]");

  r = Call(&ExecuteTransaction, R"j({"TransactStatements":[
      {"Statement":"EXISTS(SELECT * FROM hash WHERE pk='tu' AND data = 'other')"},
      {"Statement":"DELETE FROM hash WHERE pk='ti'"}]})j");
  EXPECT_EQ(r.message,
            "Transaction cancelled, please refer cancellation reasons for specific reasons "
            "[ConditionalCheckFailed, None]");
  r = Call(&ExecuteTransaction, R"j({"TransactStatements":[
      {"Statement":"EXISTS(SELECT * FROM hash WHERE pk='tu' AND data = 'after')"},
      {"Statement":"DELETE FROM hash WHERE pk='ti'"}]})j");
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(Items("SELECT * FROM hash WHERE pk = 'ti'"), "[]");
}

TEST_F(PartiqlApiTest, TransactionReads) {
  MustExec("INSERT INTO hash VALUE {'pk': 'r1', 'x': 1}");
  Reply r = Call(&ExecuteTransaction, R"({"TransactStatements":[
      {"Statement":"SELECT * FROM hash WHERE pk='r1'"},
      {"Statement":"SELECT x FROM hash WHERE pk='zz'"}]})");
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(Json(r.json), R"({"Responses":[{"Item":{"pk":{"S":"r1"},"x":{"N":"1"}}},{}]})");
}

TEST_F(PartiqlApiTest, TransactionRequestErrors) {
  Reply r = Call(&ExecuteTransaction, R"({"TransactStatements":[]})");
  EXPECT_EQ(r.code, ErrorCode::kValidation);
  r = Call(&ExecuteTransaction, R"({"TransactStatements":[
      {"Statement":"SELECT * FROM hash WHERE pk='a'"},
      {"Statement":"DELETE FROM hash WHERE pk='b'"}]})");
  EXPECT_EQ(r.message,
            "ExecuteTransaction API does not support both read and write operations in the same "
            "request.");
  r = Call(&ExecuteTransaction, R"({"TransactStatements":[
      {"Statement":"DELETE FROM hash WHERE pk='a'"},
      {"Statement":"DELETE FROM hash WHERE pk='a'"}]})");
  EXPECT_EQ(r.message, "Transaction request cannot include multiple operations on one item");
  r = Call(&ExecuteTransaction, R"({"TransactStatements":[
      {"Statement":"SELECT * FROM hash WHERE x = 1"}]})");
  EXPECT_EQ(r.message,
            "Validation failed in TransactStatements[0]: Select statements within "
            "ExecuteTransaction must specify the primary key in the where clause.");
  r = Call(&ExecuteTransaction, R"({"TransactStatements":[
      {"Statement":"DELETE FROM nope WHERE pk='a'"}]})");
  EXPECT_EQ(r.code, ErrorCode::kResourceNotFound);
}

TEST_F(PartiqlApiTest, TransactionTokenReplaysTheFirstAnswer) {
  const char* body = R"({"ClientRequestToken":"tok","TransactStatements":[
      {"Statement":"INSERT INTO hash VALUE {'pk':'once'}"}]})";
  ASSERT_TRUE(Call(&ExecuteTransaction, body).ok);
  Reply again = Call(&ExecuteTransaction, body);
  EXPECT_TRUE(again.ok) << again.message;  // not a DuplicateItem: the first answer is replayed
  Reply other = Call(&ExecuteTransaction, R"({"ClientRequestToken":"tok","TransactStatements":[
      {"Statement":"INSERT INTO hash VALUE {'pk':'twice'}"}]})");
  EXPECT_EQ(other.code, ErrorCode::kIdempotentParameterMismatch);
}

}  // namespace
}  // namespace ttlstore::api
