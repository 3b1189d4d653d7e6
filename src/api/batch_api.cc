// BatchGetItem and BatchWriteItem. ttlstore processes every request item at once, so
// UnprocessedKeys / UnprocessedItems are always empty (a valid answer: the service returns what
// it could not process, and here that is nothing).
#include <algorithm>
#include <set>

#include "api/expression_params.h"
#include "api/batch_names.h"
#include "api/handlers.h"
#include "api/item_common.h"
#include "api/legacy.h"
#include "model/expiry.h"
#include "model/item_size.h"
#include "ops/capacity.h"
#include "ops/item_ops.h"
#include "ops/multi_item_ops.h"

namespace ttlstore::api {
namespace {

// DynamoDB limits: 100 keys per BatchGetItem, 25 writes per BatchWriteItem.
constexpr size_t kMaxBatchGetKeys = 100;
constexpr size_t kMaxBatchWrites = 25;

Result<const rapidjson::Value*> RequestItems(const rapidjson::Value& req, const char* op) {
  ASSIGN_OR_RETURN(items, OptObject(req, "RequestItems"));
  // The service answers an empty map as it answers a missing one (SDKs may drop either).
  if (!items || items->ObjectEmpty()) {
    return Error::Validation(std::string("The requestItems parameter is required for ") + op);
  }
  return items;
}

std::string Name(const rapidjson::Value& v) { return {v.GetString(), v.GetStringLength()}; }

Error Duplicates() { return Error::Validation("Provided list of item keys contains duplicates"); }

struct TableGets {
  ops::TablePtr table;
  std::vector<model::Item> keys;
  std::optional<expr::Projection> projection;
  bool consistent = false;
};

}  // namespace

Result<std::string> BatchGetItem(const Services& s, const rapidjson::Value& req) {
  ASSIGN_OR_RETURN(capacity, OptString(req, "ReturnConsumedCapacity"));
  ASSIGN_OR_RETURN(raw_items, OptObject(req, "RequestItems"));
  Constraints c;
  if (raw_items) CheckBatchTableNames(*raw_items, /*writes=*/false, c);
  c.Enum("returnConsumedCapacity", capacity, {"INDEXES", "TOTAL", "NONE"});
  if (!c.ok()) return c.ToError();
  ASSIGN_OR_RETURN(items, RequestItems(req, "BatchGetItem"));
  size_t total = 0;
  for (const auto& t : items->GetObject()) {
    ASSIGN_OR_RETURN(keys, OptArray(t.value, "Keys"));
    if (keys && keys->Size() > kMaxBatchGetKeys) {
      return Error::Validation("1 validation error detected: Value at 'RequestItems." +
                               Name(t.name) +
                               ".member.Keys' failed to satisfy constraint: Member must have "
                               "length less than or equal to 100");
    }
    total += keys ? keys->Size() : 0;
  }
  if (total > kMaxBatchGetKeys) {
    return Error::Validation("Too many items requested for the BatchGetItem call");
  }
  // Keys named twice are refused before any table is looked up: for a table that does not
  // exist too (ExtendDB's tests/test_validation_precedence.py, captured from the service). The
  // same key is the same attributes and values; a key that differs only in attributes outside
  // the key schema is caught after the lookup, below.
  for (const auto& t : items->GetObject()) {
    ASSIGN_OR_RETURN(keys, OptArray(t.value, "Keys"));
    if (!keys) continue;
    std::vector<model::Item> decoded;
    for (const auto& k : keys->GetArray()) {
      ASSIGN_OR_RETURN(key, DecodeItem(k));
      if (std::find(decoded.begin(), decoded.end(), key) != decoded.end()) return Duplicates();
      decoded.push_back(std::move(key));
    }
  }
  // One request may not mix the two projection forms across its tables either (a conformance
  // suite's capture against the service).
  {
    bool legacy = false, modern = false;
    for (const auto& t : items->GetObject()) {
      legacy = legacy || Field(t.value, "AttributesToGet");
      modern = modern || Field(t.value, "ProjectionExpression");
    }
    if (legacy && modern) {
      return Error::Validation(
          "Can not use both expression and non-expression parameters in the same request: "
          "Non-expression parameters: {AttributesToGet} Expression parameters: "
          "{ProjectionExpression}");
    }
  }
  std::vector<TableGets> gets;
  for (const auto& t : items->GetObject()) {
    TableGets g;
    const rapidjson::Value& spec = t.value;
    ASSIGN_OR_RETURN(keys, OptArray(spec, "Keys"));
    if (!keys || keys->Empty()) {
      // The service's words and member spelling (a conformance suite's capture).
      return Error::Validation("1 validation error detected: Value at 'RequestItems." +
                               Name(t.name) +
                               ".member.Keys' failed to satisfy constraint: Member must have "
                               "length greater than or equal to 1");
    }
    RETURN_IF_ERROR(CheckNoMixing(spec, {"AttributesToGet"}, {"ProjectionExpression"}));
    ASSIGN_OR_RETURN(ph, DecodePlaceholders(spec));
    ASSIGN_OR_RETURN(projection, ParseProjection(spec, ph));
    RETURN_IF_ERROR(CheckPlaceholdersUsed(ph));
    g.projection = std::move(projection);
    ASSIGN_OR_RETURN(consistent, OptBool(spec, "ConsistentRead"));
    g.consistent = consistent.value_or(false);
    ASSIGN_OR_RETURN(table, s.catalog.Get(Name(t.name)));
    g.table = std::move(table);
    std::set<std::string> seen;
    for (const auto& k : keys->GetArray()) {
      ASSIGN_OR_RETURN(key, DecodeItem(k));
      RETURN_IF_ERROR(ops::ValidateKey(*g.table, key));
      if (!seen.insert(ops::EncodedKey(*g.table, key)).second) return Duplicates();
      g.keys.push_back(std::move(key));
    }
    gets.push_back(std::move(g));
  }

  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  std::map<std::string, double> units;
  const int64_t now_ms = s.clock.NowMs();
  w.StartObject();
  w.Key("Responses");
  w.StartObject();
  for (const auto& g : gets) {
    WriteString(w, g.table->name);
    w.StartArray();
    double& u = units[g.table->name];
    for (const auto& key : g.keys) {
      ASSIGN_OR_RETURN(outcome, s.items.Get(*g.table, key));
      u += ops::ReadCapacityUnits(outcome.size, g.consistent);
      if (outcome.item && model::IsHiddenExpired(*g.table, *outcome.item, now_ms)) continue;
      if (outcome.item) WriteProjected(w, *outcome.item, g.projection);
    }
    w.EndArray();
  }
  w.EndObject();
  w.Key("UnprocessedKeys");
  w.StartObject();
  w.EndObject();
  WriteCapacityList(w, capacity, units);
  w.EndObject();
  return Finish(buf);
}

Result<std::string> BatchWriteItem(const Services& s, const rapidjson::Value& req) {
  ASSIGN_OR_RETURN(capacity, OptString(req, "ReturnConsumedCapacity"));
  ASSIGN_OR_RETURN(metrics, OptString(req, "ReturnItemCollectionMetrics"));
  ASSIGN_OR_RETURN(raw_items, OptObject(req, "RequestItems"));
  // Unlike BatchGetItem, the enums are reported alone, before the table names (a conformance
  // suite's capture, validation-ordering/batchOperations).
  Constraints c;
  c.Enum("returnConsumedCapacity", capacity, {"INDEXES", "TOTAL", "NONE"});
  c.Enum("returnItemCollectionMetrics", metrics, {"SIZE", "NONE"});
  if (!c.ok()) return c.ToError();
  if (raw_items) CheckBatchTableNames(*raw_items, /*writes=*/true, c);
  if (!c.ok()) return c.ToError();
  ASSIGN_OR_RETURN(items, RequestItems(req, "BatchWriteItem"));
  size_t total = 0;
  for (const auto& t : items->GetObject()) {
    if (!t.value.IsArray()) return Error::Serialization("Unexpected field type");
    if (t.value.Size() > kMaxBatchWrites || t.value.Empty()) {
      // The service prints the offending map entry as its Java objects.
      std::string dump;
      for (rapidjson::SizeType i = 0; i < t.value.Size(); ++i) {
        dump += std::string(i ? ", " : "") + "WriteRequest(...)";
      }
      return Error::Validation(
          "1 validation error detected: Value '{" + Name(t.name) + "=[" + dump +
          "]}' at 'requestItems' failed to satisfy constraint: Map value must satisfy "
          "constraint: [Member must have length less than or equal to 25, Member must have "
          "length greater than or equal to 1]");
    }
    total += t.value.Size();
  }
  if (total > kMaxBatchWrites) {
    return Error::Validation("Too many items requested for the BatchWriteItem call");
  }
  std::vector<ops::BatchWrite> writes;
  std::set<std::string> seen;
  std::map<std::string, TableCapacity> units;
  for (const auto& t : items->GetObject()) {
    ASSIGN_OR_RETURN(table, s.catalog.Get(Name(t.name)));
    for (const auto& request : t.value.GetArray()) {
      ASSIGN_OR_RETURN(put, OptObject(request, "PutRequest"));
      ASSIGN_OR_RETURN(del, OptObject(request, "DeleteRequest"));
      if ((put != nullptr) == (del != nullptr)) {
        return Error::Validation(
            "Supplied AttributeValue has more than one datatypes set, must contain exactly one of "
            "the supported datatypes");
      }
      ops::BatchWrite write;
      write.table = table;
      write.is_put = put != nullptr;
      if (put) {
        ASSIGN_OR_RETURN(item_json, OptObject(*put, "Item"));
        if (!item_json) {
          return Error::Validation("1 validation error detected: Value null at "
                                   "'requestItems." + Name(t.name) +
                                   ".member.putRequest.item' failed to satisfy constraint: "
                                   "Member must not be null");
        }
        ASSIGN_OR_RETURN(item, DecodeItem(*item_json));
        if (model::ItemSize(item) > model::kMaxItemBytes) {
          return Error::Validation("Item size has exceeded the maximum allowed size");
        }
        // A batch's put answers a key of the wrong type or shape as its delete does (a
        // conformance suite's capture), not with PutItem's texts.
        if (Status key = ops::ValidateItemKey(*table, item); !key) {
          const std::string& m = key.error().message();
          if (m.find("Type mismatch for key") != std::string::npos ||
              m.find("Missing the key") != std::string::npos) {
            return Error::Validation("The provided key element does not match the schema");
          }
          return std::move(key).error();
        }
        write.item = std::move(item);
      } else {
        ASSIGN_OR_RETURN(key_json, OptObject(*del, "Key"));
        if (!key_json) {
          return Error::Validation("1 validation error detected: Value null at "
                                   "'requestItems." + Name(t.name) +
                                   ".member.deleteRequest.key' failed to satisfy constraint: "
                                   "Member must not be null");
        }
        ASSIGN_OR_RETURN(key, DecodeItem(*key_json));
        RETURN_IF_ERROR(ops::ValidateKey(*table, key));
        write.item = std::move(key);
      }
      if (!seen.insert(ops::EncodedKey(*table, write.item)).second) return Duplicates();
      units[table->name].table +=
          ops::WriteCapacityUnits(write.is_put ? model::ItemSize(write.item) : 0);
      writes.push_back(std::move(write));
    }
  }
  bool charged = capacity && *capacity != "NONE";
  ops::IndexCosts index_costs;
  RETURN_IF_ERROR(ops::WriteBatchItems(s.items, writes, charged ? &index_costs : nullptr));
  for (size_t i = 0; i < index_costs.size(); ++i) {
    units[writes[i].table->name].AddIndexes(index_costs[i]);
  }
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  w.Key("UnprocessedItems");
  w.StartObject();
  w.EndObject();
  WriteCapacityList(w, capacity, units);
  w.EndObject();
  return Finish(buf);
}

}  // namespace ttlstore::api
