// The whole DynamoDB request path, in process: bytes in, response out. The input is
// "<Operation>\n<body>" (without a newline in its first 40 bytes, the whole input is a PutItem
// body); it goes through api::Dispatch exactly as the HTTP server hands it a request: bounded JSON parse, request
// validation, expression parsing and evaluation, PartiQL, the item, index, expiry and stream
// writes on a real Store in a temporary folder, and the response rendering. The policy
// evaluator's reading of the body (api::AccessesOf), ParsePolicies and the resource-based
// policy reader and evaluator (ParseResourcePolicy, EvaluateResourcePolicy) see the same bytes.
// Any input: never a crash, a hang, a leak or undefined behaviour.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <string_view>

#include "api/authorize.h"
#include "api/dispatch.h"
#include "api/resource_policy_doc.h"
#include "api/resource_policy_rules.h"
#include "auth/resource_policy.h"
#include "common/clock.h"
#include "ops/item_ops.h"
#include "ops/multi_item_ops.h"
#include "ops/table_ops.h"
#include "storage/store.h"

using namespace ttlstore;

namespace {

struct World {
  std::filesystem::path dir;
  SystemClock clock;
  std::unique_ptr<storage::Store> store;
  std::unique_ptr<ops::TableCatalog> catalog;
  std::unique_ptr<ops::ItemOps> items;
  std::unique_ptr<ops::IdempotencyCache> tokens;
  std::unique_ptr<api::Services> services;

  World() {
    dir = std::filesystem::temp_directory_path() /
          ("ttlstore_fuzz_dynamodb_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    storage::StoreOptions options;
    options.path = dir.string();
    auto s = storage::Store::Open(options);
    if (!s.ok()) abort();
    store = std::move(*s);
    catalog = std::make_unique<ops::TableCatalog>(*store, clock);
    if (!catalog->Load().ok()) abort();
    items = std::make_unique<ops::ItemOps>(*store);
    tokens = std::make_unique<ops::IdempotencyCache>(clock);
    services = std::make_unique<api::Services>(api::Services{*catalog, *items, *tokens, clock});
  }
  ~World() {
    services.reset();
    tokens.reset();
    items.reset();
    catalog.reset();
    store.reset();
    std::filesystem::remove_all(dir);
  }

  void Call(std::string_view op, std::string_view body) {
    (void)api::Dispatch(*services, std::string("DynamoDB_20120810.") + std::string(op), body);
  }

  // The tables the seeds name, made again whenever an input deleted one: "t" with a sort key,
  // a GSI, an LSI, TTL on `exp` and a stream; "h" with a hash key only.
  void EnsureTables() {
    if (!catalog->Find("t")) {
      Call("CreateTable",
           R"({"TableName":"t","BillingMode":"PAY_PER_REQUEST",
               "AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},
                 {"AttributeName":"sk","AttributeType":"N"},{"AttributeName":"gk","AttributeType":"S"},
                 {"AttributeName":"lk","AttributeType":"B"}],
               "KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],
               "GlobalSecondaryIndexes":[{"IndexName":"g","KeySchema":[{"AttributeName":"gk","KeyType":"HASH"}],
                 "Projection":{"ProjectionType":"ALL"}}],
               "LocalSecondaryIndexes":[{"IndexName":"l","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},
                 {"AttributeName":"lk","KeyType":"RANGE"}],"Projection":{"ProjectionType":"KEYS_ONLY"}}],
               "StreamSpecification":{"StreamEnabled":true,"StreamViewType":"NEW_AND_OLD_IMAGES"}})");
      Call("UpdateTimeToLive",
           R"({"TableName":"t","TimeToLiveSpecification":{"Enabled":true,"AttributeName":"exp"}})");
    }
    if (!catalog->Find("h")) {
      Call("CreateTable",
           R"({"TableName":"h","BillingMode":"PAY_PER_REQUEST",
               "AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],
               "KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}]})");
    }
  }
};

World& TheWorld() {
  static World* world = new World();  // never destroyed: the process exits at the end
  return *world;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  std::string_view op = "PutItem";
  std::string_view body = in;
  if (size_t nl = in.find('\n'); nl != std::string_view::npos && nl <= 40) {
    op = in.substr(0, nl);
    body = in.substr(nl + 1);
  }
  World& world = TheWorld();
  world.EnsureTables();
  // "DynamoDBStreams_20120810.GetRecords\n..." names a whole target; a bare name is DynamoDB's.
  std::string target = op.find('.') != std::string_view::npos
                           ? std::string(op)
                           : "DynamoDB_20120810." + std::string(op);
  (void)api::Dispatch(*world.services, target, body);
  (void)api::AccessesOf(target, body, "us-east-1", "000000000000");
  (void)api::ParsePolicies(body);
  // The same bytes as a resource-based policy document, evaluated when it reads as one.
  if (auto statements = api::ParseResourcePolicy(body); statements.ok()) {
    (void)api::CheckPolicyForResource(*statements, api::PolicyResourceKind::kStream);
    auth::Caller caller{"000000000000", "arn:aws:iam::000000000000:user/AK"};
    (void)auth::EvaluateResourcePolicy(*statements, caller, "dynamodb:PutItem",
                                       "arn:aws:dynamodb:us-east-1:000000000000:table/t",
                                       std::set<std::string>{"pk", "exp"});
  }
  return 0;
}
