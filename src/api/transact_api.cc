// TransactWriteItems and TransactGetItems: all-or-nothing over up to 100 items. A failed
// condition (or a per-action validation error) cancels the whole transaction with one
// CancellationReason per action, in request order.
#include <set>
#include <tuple>

#include "api/expression_params.h"
#include "api/handlers.h"
#include "api/item_common.h"
#include "index/index_writer.h"
#include "model/expiry.h"
#include "model/item_size.h"
#include "ops/capacity.h"
#include "ops/item_ops.h"
#include "ops/multi_item_ops.h"

namespace ttlstore::api {
namespace {

// DynamoDB limits: 100 actions and 4 MB of items per transaction.
constexpr size_t kMaxTransactItems = 100;
constexpr size_t kMaxTransactBytes = 4u << 20;

Result<const rapidjson::Value*> TransactItems(const rapidjson::Value& req, const char* element) {
  ASSIGN_OR_RETURN(items, OptArray(req, "TransactItems"));
  if (!items) {
    return Error::Validation(
        "1 validation error detected: Value null at 'transactItems' failed to satisfy "
        "constraint: Member must not be null");
  }
  if (items->Empty()) {
    return Error::Validation(
        "1 validation error detected: Value '[]' at 'transactItems' failed to satisfy "
        "constraint: Member must have length greater than or equal to 1");
  }
  if (items->Size() > kMaxTransactItems) {
    return Error::Validation("1 validation error detected: Value '[" + std::string(element) +
                             "(...) x " + std::to_string(items->Size()) +
                             "]' at 'transactItems' failed to satisfy constraint: Member must "
                             "have length less than or equal to 100");
  }
  return items;
}

// One action's TableName, checked (the service names the member: "transactItems.1.member.put.
// tableName", a conformance suite's capture) but not yet looked up.
Result<std::string> ActionTableName(const rapidjson::Value& spec, rapidjson::SizeType i,
                                    const char* member) {
  ASSIGN_OR_RETURN(name, OptString(spec, "TableName"));
  const std::string path =
      "transactItems." + std::to_string(i + 1) + ".member." + member + ".tableName";
  Constraints c;
  c.NotNull(path.c_str(), name.has_value());
  c.TableName(path, name, 1);
  if (!c.ok()) return c.ToError();
  return *name;
}

// ReturnValuesOnConditionCheckFailure is checked against its enum for every action before
// anything else, and a bad value fails the whole request (Alternator's
// test_transact_write_items_returnvaluesonconditioncheckfailure, run against the service).
Status CheckReturnValuesOnFailure(const rapidjson::Value& items) {
  static const std::pair<const char*, const char*> kSpecs[] = {
      {"Put", "put"},
      {"Update", "update"},
      {"Delete", "delete"},
      {"ConditionCheck", "conditionCheck"}};
  Constraints c;
  for (rapidjson::SizeType i = 0; i < items.Size(); ++i) {
    for (const auto& [field, member] : kSpecs) {
      const rapidjson::Value* spec = Field(items[i], field);
      if (!spec) continue;
      ASSIGN_OR_RETURN(on_failure, OptString(*spec, "ReturnValuesOnConditionCheckFailure"));
      c.Enum("transactItems." + std::to_string(i + 1) + ".member." + member +
                 ".returnValuesOnConditionCheckFailure",
             on_failure, {"ALL_OLD", "NONE"});
    }
  }
  if (!c.ok()) return c.ToError();
  return Status::Ok();
}

}  // namespace

Result<std::string> TransactWriteItems(const Services& s, const rapidjson::Value& req) {
  ASSIGN_OR_RETURN(capacity, OptString(req, "ReturnConsumedCapacity"));
  ASSIGN_OR_RETURN(token, OptString(req, "ClientRequestToken"));
  ASSIGN_OR_RETURN(metrics, OptString(req, "ReturnItemCollectionMetrics"));
  // In the service's order (a conformance suite's capture, validation-ordering/transactions).
  Constraints c;
  c.Length("clientRequestToken", token, 1, 36);
  c.Enum("returnConsumedCapacity", capacity, {"INDEXES", "TOTAL", "NONE"});
  c.Enum("returnItemCollectionMetrics", metrics, {"SIZE", "NONE"});
  if (!c.ok()) return c.ToError();
  ASSIGN_OR_RETURN(items, TransactItems(req, "TransactWriteItem"));
  RETURN_IF_ERROR(CheckReturnValuesOnFailure(*items));

  std::vector<ops::TransactAction> actions;
  std::vector<ops::CancellationReason> invalid(items->Size(), {"None", "", std::nullopt});
  bool any_invalid = false;
  std::set<std::string> seen;
  std::map<std::string, TableCapacity> units;
  // First the whole request is checked, every action, without looking up a table: the service
  // reports what the request alone shows before a table that does not exist (a conformance
  // suite's capture, tests/tier3/validation-ordering/deepRequests and transactions).
  std::vector<std::string> table_names;
  for (rapidjson::SizeType i = 0; i < items->Size(); ++i) {
    const rapidjson::Value& entry = (*items)[i];
    using Kind = ops::TransactAction::Kind;
    static const std::tuple<const char*, Kind, const char*> kKinds[] = {
        {"Put", Kind::kPut, "put"},
        {"Update", Kind::kUpdate, "update"},
        {"Delete", Kind::kDelete, "delete"},
        {"ConditionCheck", Kind::kConditionCheck, "conditionCheck"}};
    const rapidjson::Value* spec = nullptr;
    const char* member = nullptr;
    ops::TransactAction a;
    int kinds = 0;
    for (const auto& [name, kind, member_name] : kKinds) {
      if (const rapidjson::Value* v = Field(entry, name)) {
        spec = v;
        a.kind = kind;
        member = member_name;
        ++kinds;
      }
    }
    if (kinds == 0) {
      // An action with no operation (a conformance suite's capture against the service).
      return Error::Validation(
          "1 validation error detected: Value '' at 'transactItems' failed to satisfy "
          "constraint: TransactWriteRequest should contain Delete or Put or Update or "
          "ConditionCheck");
    }
    if (kinds != 1) {
      return Error::Validation(
          "TransactItems can only contain one of Check, Put, Update or Delete");
    }
    ASSIGN_OR_RETURN(table_name, ActionTableName(*spec, i, member));
    table_names.push_back(std::move(table_name));
    ASSIGN_OR_RETURN(ph, DecodePlaceholders(*spec));
    ASSIGN_OR_RETURN(condition, ParseCondition(*spec, "ConditionExpression", ph));
    if (a.kind == Kind::kConditionCheck && !condition) {
      return Error::Validation("The ConditionExpression parameter is required for ConditionCheck");
    }
    a.condition = std::move(condition);
    if (a.kind == Kind::kUpdate) {
      ASSIGN_OR_RETURN(text, OptString(*spec, "UpdateExpression"));
      if (!text) {
        return Error::Validation(
            "1 validation error detected: Value null at 'transactItems." + std::to_string(i + 1) +
            ".member.update.updateExpression' failed to satisfy constraint: Member must not be "
            "null");
      }
      ASSIGN_OR_RETURN(update, expr::Update::Parse(*text, ph));
      a.update = std::move(update);
    }
    RETURN_IF_ERROR(CheckPlaceholdersUsed(ph));
    ASSIGN_OR_RETURN(on_failure, OptString(*spec, "ReturnValuesOnConditionCheckFailure"));
    a.return_old_on_failure = on_failure == "ALL_OLD";
    const char* item_field = a.kind == Kind::kPut ? "Item" : "Key";
    ASSIGN_OR_RETURN(item_json, OptObject(*spec, item_field));
    if (item_json) {
      ASSIGN_OR_RETURN(item, DecodeItem(*item_json));
      a.item = std::move(item);
    }
    if (a.kind == Kind::kPut && model::ItemSize(a.item) > model::kMaxItemBytes) {
      return Error::Validation("Item size has exceeded the maximum allowed size");
    }
    actions.push_back(std::move(a));
  }
  // Then each action's table, and what its schema says of the action.
  for (rapidjson::SizeType i = 0; i < items->Size(); ++i) {
    using Kind = ops::TransactAction::Kind;
    ops::TransactAction& a = actions[i];
    ASSIGN_OR_RETURN(table, s.catalog.Get(table_names[i]));
    a.table = table;
    // What the request and the schema show to be wrong fails it: an empty key value.
    RETURN_IF_ERROR(ops::CheckKeyNotEmpty(*table, a.item));
    if (a.kind == Kind::kPut) {
      RETURN_IF_ERROR(index::CheckIndexKeysNotEmpty(*table, a.item, index::IndexKeyWrite::kPut));
    }
    // Other key problems cancel the transaction rather than fail the request, as the service does.
    Status key_ok = a.kind == Kind::kPut ? ops::ValidateItemKey(*table, a.item)
                                         : ops::ValidateKey(*table, a.item);
    if (key_ok && a.update) {
      for (const auto& path : a.update->TargetPaths()) {
        const std::string& top = path.front().name;
        if (top == table->key.hash.name || (table->key.range && top == table->key.range->name)) {
          key_ok = Error::Validation("One or more parameter values were invalid: Cannot update "
                                     "attribute " + top + ". This attribute is part of the key");
        }
      }
    }
    if (!key_ok) {
      // Only the first action found invalid is named; the others, valid or not, say None
      // (Alternator's test_transact_write_cancellation_reasons_validationerror).
      if (!any_invalid) invalid[i] = {"ValidationError", key_ok.error().message(), std::nullopt};
      any_invalid = true;
      continue;
    }
    if (!seen.insert(ops::EncodedKey(*table, a.item)).second) {
      return Error::Validation("Transaction request cannot include multiple operations on one item");
    }
    units[table->name].table += 2 * ops::WriteCapacityUnits(model::ItemSize(a.item));
  }
  if (any_invalid) return TransactionCancelled(invalid);
  size_t total_bytes = 0;
  for (const auto& a : actions) total_bytes += model::ItemSize(a.item);
  if (total_bytes > kMaxTransactBytes) {
    // The service speaks of the transaction's payload (Alternator's
    // test_transact_write_items_put_5MB matches "size cannot exceed" against the service);
    // this is the wording DynamoDB Local gives in full.
    return Error::Validation("Transaction payload size cannot exceed 4MB. Payload Size: " +
                             std::to_string(total_bytes));
  }

  // A token seen before with the same request answers as the first time, without writing again:
  // this process remembers its own answers; the token's record in the database, read and
  // written by the transaction itself, covers other processes and restarts
  // (ops/request_tokens.h).
  std::string fingerprint;
  std::optional<ops::TokenGuard> reservation;  // abandoned on any early return
  std::optional<ops::TokenUse> token_use;
  if (token) {
    rapidjson::StringBuffer buf;
    JsonWriter w(buf);
    Field(req, "TransactItems")->Accept(w);
    fingerprint = Finish(buf);
    ASSIGN_OR_RETURN(cached, s.tokens.Begin(*token, fingerprint));
    if (cached) return std::move(*cached);
    reservation.emplace(s.tokens, *token);
    token_use = ops::TokenUse{*token, ops::RequestHash(fingerprint), s.clock.NowMs()};
  }
  bool charged = capacity && *capacity != "NONE";
  ops::IndexCosts index_costs;
  ASSIGN_OR_RETURN(outcome, ops::TransactWrite(s.items, actions, charged ? &index_costs : nullptr,
                                               token_use ? &*token_use : nullptr));
  if (outcome.cancelled) return TransactionCancelled(outcome.reasons);
  if (outcome.repeated) {
    // Applied before (through another process, or before a restart): "subsequent
    // TransactWriteItems calls with the same client token return the number of read capacity
    // units consumed in reading the item" (the API reference, ClientRequestToken).
    std::string response =
        RepeatedTransactionResponse(actions, outcome.sizes, capacity, /*statements=*/false);
    reservation->Complete(response);
    return response;
  }
  // The items are charged twice (prepare and commit); an index entry is written once, at the
  // commit.
  for (size_t i = 0; i < index_costs.size(); ++i) {
    units[actions[i].table->name].AddIndexes(index_costs[i]);
  }
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  WriteCapacityList(w, capacity, units);
  w.EndObject();
  std::string response = Finish(buf);
  if (reservation) reservation->Complete(response);
  return response;
}

Result<std::string> TransactGetItems(const Services& s, const rapidjson::Value& req) {
  ASSIGN_OR_RETURN(capacity, OptString(req, "ReturnConsumedCapacity"));
  Constraints c;
  c.Enum("returnConsumedCapacity", capacity, {"INDEXES", "TOTAL", "NONE"});
  if (!c.ok()) return c.ToError();
  ASSIGN_OR_RETURN(items, TransactItems(req, "TransactGetItem"));
  std::vector<ops::TransactGet> gets;
  std::vector<std::optional<expr::Projection>> projections;
  std::vector<ops::CancellationReason> invalid(items->Size(), {"None", "", std::nullopt});
  bool any_invalid = false;
  std::set<std::string> seen;
  for (rapidjson::SizeType i = 0; i < items->Size(); ++i) {
    const rapidjson::Value* spec = Field((*items)[i], "Get");
    if (!spec) {
      return Error::Validation(
          "1 validation error detected: Value null at 'transactItems." + std::to_string(i + 1) +
          ".member.get' failed to satisfy constraint: Member must not be null");
    }
    ASSIGN_OR_RETURN(table_name, ActionTableName(*spec, i, "get"));
    ASSIGN_OR_RETURN(table, s.catalog.Get(table_name));
    ASSIGN_OR_RETURN(ph, DecodePlaceholders(*spec));
    ASSIGN_OR_RETURN(projection, ParseProjection(*spec, ph));
    RETURN_IF_ERROR(CheckPlaceholdersUsed(ph));
    ops::TransactGet g{table, {}};
    ASSIGN_OR_RETURN(key_json, OptObject(*spec, "Key"));
    if (key_json) {
      ASSIGN_OR_RETURN(key, DecodeItem(*key_json));
      g.key = std::move(key);
    }
    RETURN_IF_ERROR(ops::CheckKeyNotEmpty(*table, g.key));
    if (Status ok = ops::ValidateKey(*table, g.key); !ok) {
      if (!any_invalid) invalid[i] = {"ValidationError", ok.error().message(), std::nullopt};
      any_invalid = true;
    } else if (!seen.insert(ops::EncodedKey(*table, g.key)).second) {
      return Error::Validation("Transaction request cannot include multiple operations on one item");
    }
    gets.push_back(std::move(g));
    projections.push_back(std::move(projection));
  }
  if (any_invalid) return TransactionCancelled(invalid);
  ASSIGN_OR_RETURN(outcomes, ops::TransactRead(s.items, gets));
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  std::map<std::string, double> units;
  w.StartObject();
  w.Key("Responses");
  w.StartArray();
  for (size_t i = 0; i < outcomes.size(); ++i) {
    units[gets[i].table->name] += 2 * ops::ReadCapacityUnits(outcomes[i].size, true);
    w.StartObject();
    if (outcomes[i].item &&
        !model::IsHiddenExpired(*gets[i].table, *outcomes[i].item, s.clock.NowMs())) {
      w.Key("Item");
      WriteProjected(w, *outcomes[i].item, projections[i]);
    }
    w.EndObject();
  }
  w.EndArray();
  WriteCapacityList(w, capacity, units);
  w.EndObject();
  return Finish(buf);
}

}  // namespace ttlstore::api
