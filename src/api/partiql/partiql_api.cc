// The PartiQL handlers: ExecuteStatement, BatchExecuteStatement and ExecuteTransaction.
// Request checks come first (in the service's order), then each statement is parsed, prepared
// and run through execute.h; the item operations underneath are the same as PutItem, UpdateItem,
// DeleteItem, Query, Scan and the Transact* calls.
#include <set>

#include "api/handlers.h"
#include "api/item_common.h"
#include "api/partiql/execute.h"
#include "api/partiql/parser.h"
#include "model/item_size.h"
#include "ops/capacity.h"

namespace ttlstore::api {

using partiql::Mode;
using partiql::Params;
using partiql::Prepared;
using partiql::Statement;

namespace {

// DynamoDB limits (API reference): 25 statements per batch, 100 per transaction.
constexpr size_t kMaxBatchStatements = 25;
constexpr size_t kMaxTransactStatements = 100;

// The list-level constraints of Statements / TransactStatements, and each member's Statement.
void CheckStatementList(Constraints& c, const rapidjson::Value* list, const char* path,
                        const char* element, size_t max) {
  if (!list) {
    c.NotNull(path, false);
    return;
  }
  std::string at = std::string("' at '") + path + "' failed to satisfy constraint: ";
  if (list->Empty()) {
    c.Add("Value '[]" + at + "Member must have length greater than or equal to 1");
  } else if (list->Size() > max) {
    c.Add("Value '[" + std::string(element) + "(...) x " + std::to_string(list->Size()) + "]" + at +
          "Member must have length less than or equal to " + std::to_string(max));
  }
}

// One member of Statements / TransactStatements: its text, parameters and options.
struct Member {
  std::string text;
  Params params;
  bool consistent = false;
  bool return_old = false;
  // Its Parameters did not decode: a batch fails this statement alone (a conformance suite's
  // capture), a transaction fails whole.
  std::optional<Error> params_error;
};

Result<std::vector<Member>> DecodeMembers(const rapidjson::Value& list, const char* path,
                                          Constraints& c) {
  std::vector<Member> members;
  for (rapidjson::SizeType i = 0; i < list.Size(); ++i) {
    const rapidjson::Value& m = list[i];
    if (!m.IsObject()) return Error::Serialization("Unexpected field type");
    std::string at = std::string(path) + "." + std::to_string(i + 1) + ".member.";
    ASSIGN_OR_RETURN(text, OptString(m, "Statement"));
    ASSIGN_OR_RETURN(params_json, OptArray(m, "Parameters"));
    ASSIGN_OR_RETURN(consistent, OptBool(m, "ConsistentRead"));
    ASSIGN_OR_RETURN(on_failure, OptString(m, "ReturnValuesOnConditionCheckFailure"));
    if (!text) {
      c.Add("Value null at '" + at +
            "statement' failed to satisfy constraint: Member must not "
            "be null");
    }
    c.Length(at + "statement", text, 1, partiql::kMaxStatementBytes);
    if (params_json && params_json->Empty()) {
      c.Add("Value '[]' at '" + at +
            "parameters' failed to satisfy constraint: Member must "
            "have length greater than or equal to 1");
    }
    c.Enum(at + "returnValuesOnConditionCheckFailure", on_failure, {"ALL_OLD", "NONE"});
    auto params = partiql::DecodeParameters(m);
    members.push_back({text.value_or(""), params ? std::move(*params) : Params(),
                       consistent.value_or(false), on_failure == "ALL_OLD",
                       params ? std::nullopt : std::optional<Error>(params.error())});
  }
  return members;
}

// BatchStatementError.Code for an error (the service's short codes).
std::string BatchCode(const Error& e) {
  if (partiql::IsDuplicateItem(e)) return "DuplicateItem";
  switch (e.code()) {
    case ErrorCode::kResourceNotFound:
      return "ResourceNotFound";
    case ErrorCode::kConditionalCheckFailed:
      return "ConditionalCheckFailed";
    case ErrorCode::kTransactionCanceled:
      return "TransactionConflict";
    case ErrorCode::kAccessDenied:
      return "AccessDenied";
    case ErrorCode::kLimitExceeded:
      return "RequestLimitExceeded";
    case ErrorCode::kInternal:
    case ErrorCode::kStorageUnavailable:
      return "InternalServerError";
    default:
      return "ValidationError";
  }
}

// What a write statement left in the table, for its index costs: the updated item, or the
// INSERTed one (the put path does not hand it back), or nothing after a DELETE.
const model::Item* WrittenItem(const partiql::Prepared& p, const ops::WriteOutcome& outcome) {
  if (outcome.new_item) return &*outcome.new_item;
  return p.statement.kind == partiql::Statement::Kind::kInsert ? &p.item.item : nullptr;
}

}  // namespace

Result<std::string> ExecuteStatement(const Services& s, const rapidjson::Value& req) {
  ASSIGN_OR_RETURN(text, OptString(req, "Statement"));
  ASSIGN_OR_RETURN(params_json, OptArray(req, "Parameters"));
  ASSIGN_OR_RETURN(consistent, OptBool(req, "ConsistentRead"));
  ASSIGN_OR_RETURN(next_token, OptString(req, "NextToken"));
  ASSIGN_OR_RETURN(capacity, OptString(req, "ReturnConsumedCapacity"));
  ASSIGN_OR_RETURN(limit, OptInt(req, "Limit"));
  ASSIGN_OR_RETURN(on_failure, OptString(req, "ReturnValuesOnConditionCheckFailure"));
  Constraints c;
  c.NotNull("statement", text.has_value());
  c.Length("statement", text, 1, partiql::kMaxStatementBytes);
  if (params_json && params_json->Empty()) {
    c.Add(
        "Value '[]' at 'parameters' failed to satisfy constraint: Member must have length "
        "greater than or equal to 1");
  }
  c.Length("nextToken", next_token, 1, 32768);
  c.Enum("returnConsumedCapacity", capacity, {"INDEXES", "TOTAL", "NONE"});
  c.Min("limit", limit, 1);
  c.Enum("returnValuesOnConditionCheckFailure", on_failure, {"ALL_OLD", "NONE"});
  if (!c.ok()) return c.ToError();
  ASSIGN_OR_RETURN(params, partiql::DecodeParameters(req));
  ASSIGN_OR_RETURN(statement, partiql::ParseStatement(*text, params));
  if (statement.kind == Statement::Kind::kExists) {
    return Error::Validation("EXISTS can only be used in ExecuteTransaction write requests.");
  }
  if (next_token && !statement.IsRead()) {
    return Error::Validation("NextToken is only valid on a SELECT statement");
  }
  ASSIGN_OR_RETURN(p, partiql::Prepare(s, std::move(statement), params, Mode::kStatement,
                                       consistent.value_or(false)));
  ItemRequest head{p.table->name, p.table, capacity};

  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  w.Key("Items");
  w.StartArray();
  if (p.statement.IsRead()) {
    ASSIGN_OR_RETURN(page, partiql::RunSelect(s, p, limit, next_token,
                                              partiql::Fingerprint(*text, params_json)));
    for (const auto& item : page.items) WriteItem(w, item);
    w.EndArray();
    if (page.next_token) {
      w.Key("NextToken");
      WriteString(w, *page.next_token);
    }
    if (p.index) {
      WriteIndexReadCapacity(w, head, *p.index, page.bytes_read, page.base_bytes_read,
                             consistent.value_or(false));
    } else {
      WriteCapacity(w, head, ops::ReadCapacityUnits(page.bytes_read, consistent.value_or(false)));
    }
  } else {
    ASSIGN_OR_RETURN(outcome, partiql::RunWrite(s, p));
    if (outcome.condition_failed) {
      return partiql::FailedCondition(p, outcome, on_failure == "ALL_OLD");
    }
    // Writes answer {"Items": []}, or the RETURNING image.
    if (auto returned = partiql::Returned(p, outcome); returned && !returned->empty()) {
      WriteItem(w, *returned);
    }
    w.EndArray();
    WriteItemWriteCapacity(w, head,
                           ops::WriteCapacityUnits(std::max(outcome.old_size, outcome.new_size)),
                           outcome.old_item ? &*outcome.old_item : nullptr,
                           WrittenItem(p, outcome));
  }
  w.EndObject();
  return Finish(buf);
}

Result<std::string> BatchExecuteStatement(const Services& s, const rapidjson::Value& req) {
  ASSIGN_OR_RETURN(list, OptArray(req, "Statements"));
  ASSIGN_OR_RETURN(capacity, OptString(req, "ReturnConsumedCapacity"));
  Constraints c;
  CheckStatementList(c, list, "statements", "BatchStatementRequest", kMaxBatchStatements);
  c.Enum("returnConsumedCapacity", capacity, {"INDEXES", "TOTAL", "NONE"});
  std::vector<Member> members;
  if (list) {
    ASSIGN_OR_RETURN(decoded, DecodeMembers(*list, "statements", c));
    members = std::move(decoded);
  }
  if (!c.ok()) return c.ToError();

  // Each statement stands alone: its failure is reported in its own response. Only the mix of
  // reads with writes and two statements on one item fail the whole batch.
  const size_t n = members.size();
  std::vector<std::optional<Error>> errors(n);
  std::vector<std::optional<Prepared>> prepared(n);
  std::vector<std::optional<Statement>> parsed(n);
  bool reads = false, writes = false;
  for (size_t i = 0; i < n; ++i) {
    if (members[i].params_error) {
      errors[i] = *members[i].params_error;
      continue;
    }
    auto st = partiql::ParseStatement(members[i].text, members[i].params);
    if (!st) {
      errors[i] = std::move(st).error();
    } else if (st->kind == Statement::Kind::kExists) {
      errors[i] =
          Error::Validation("EXISTS can only be used in ExecuteTransaction write requests.");
    } else {
      (st->IsRead() ? reads : writes) = true;
      parsed[i] = std::move(*st);
    }
  }
  if (reads && writes) {
    return Error::Validation(
        "Read and write requests together in the same batch is not supported.");
  }
  std::set<std::string> targets;
  for (size_t i = 0; i < n; ++i) {
    if (!parsed[i]) continue;
    auto p = partiql::Prepare(s, std::move(*parsed[i]), members[i].params, Mode::kBatch);
    if (!p) {
      errors[i] = std::move(p).error();
      continue;
    }
    if (!targets.insert(partiql::TargetKey(*p)).second) {
      return Error::Validation("Provided list of item keys contains duplicates");
    }
    prepared[i] = std::move(*p);
  }

  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  std::map<std::string, TableCapacity> units;
  w.StartObject();
  w.Key("Responses");
  w.StartArray();
  for (size_t i = 0; i < n; ++i) {
    std::optional<model::Item> item, failed_item;
    if (prepared[i]) {
      const Prepared& p = *prepared[i];
      if (p.statement.IsRead()) {
        auto got = partiql::RunGet(s, p);
        if (got) {
          item = std::move(got->item);
          units[p.table->name].table +=
              ops::ReadCapacityUnits(got->bytes_read, members[i].consistent);
        } else {
          errors[i] = std::move(got).error();
        }
      } else {
        auto outcome = partiql::RunWrite(s, p);
        if (!outcome) {
          errors[i] = std::move(outcome).error();
        } else if (outcome->condition_failed) {
          errors[i] = partiql::FailedCondition(p, *outcome, false);
          if (members[i].return_old && p.statement.kind != Statement::Kind::kInsert) {
            failed_item = outcome->old_item;
          }
        } else {
          TableCapacity& u = units[p.table->name];
          u.table += ops::WriteCapacityUnits(std::max(outcome->old_size, outcome->new_size));
          if (capacity && *capacity != "NONE") {
            u.AddIndexes(ops::IndexWriteCapacity(
                *p.table, outcome->old_item ? &*outcome->old_item : nullptr,
                WrittenItem(p, *outcome)));
          }
        }
      }
    }
    w.StartObject();
    if (errors[i]) {
      std::string code = BatchCode(*errors[i]);
      w.Key("Error");
      w.StartObject();
      w.Key("Code");
      WriteString(w, code);
      w.Key("Message");
      WriteString(w,
                  code == "InternalServerError" ? "Internal server error" : errors[i]->message());
      if (failed_item) {
        w.Key("Item");
        WriteItem(w, *failed_item);
      }
      w.EndObject();
      // The table is echoed for statements that ran and failed, not for rejected ones.
      if (prepared[i] && (code == "ConditionalCheckFailed" || code == "DuplicateItem")) {
        w.Key("TableName");
        WriteString(w, prepared[i]->table->name);
      }
    } else {
      w.Key("TableName");
      WriteString(w, prepared[i]->table->name);
      if (item) {
        w.Key("Item");
        WriteItem(w, *item);
      }
    }
    w.EndObject();
  }
  w.EndArray();
  WriteCapacityList(w, capacity, units);
  w.EndObject();
  return Finish(buf);
}

Result<std::string> ExecuteTransaction(const Services& s, const rapidjson::Value& req) {
  ASSIGN_OR_RETURN(list, OptArray(req, "TransactStatements"));
  ASSIGN_OR_RETURN(token, OptString(req, "ClientRequestToken"));
  ASSIGN_OR_RETURN(capacity, OptString(req, "ReturnConsumedCapacity"));
  Constraints c;
  CheckStatementList(c, list, "transactStatements", "ParameterizedStatement",
                     kMaxTransactStatements);
  c.Length("clientRequestToken", token, 1, 36);
  c.Enum("returnConsumedCapacity", capacity, {"INDEXES", "TOTAL", "NONE"});
  std::vector<Member> members;
  if (list) {
    ASSIGN_OR_RETURN(decoded, DecodeMembers(*list, "transactStatements", c));
    members = std::move(decoded);
  }
  if (!c.ok()) return c.ToError();

  // Unlike a batch, any problem with any statement fails the whole request.
  const size_t n = members.size();
  auto in_statement = [](size_t i, const Error& e) -> Error {
    if (e.code() != ErrorCode::kValidation) return e;
    return Error::Validation("Validation failed in TransactStatements[" + std::to_string(i) +
                             "]: " + e.message());
  };
  std::vector<Statement> parsed;
  size_t reads = 0;
  for (size_t i = 0; i < n; ++i) {
    if (members[i].params_error) return *members[i].params_error;
    auto parsed_st = partiql::ParseStatement(members[i].text, members[i].params);
    // A statement that does not parse is named, as the service names it ("Validation failed in
    // TransactStatements[0]: Statement wasn't well formed, ...": a conformance suite's capture).
    if (!parsed_st) return in_statement(i, parsed_st.error());
    Statement st = std::move(*parsed_st);
    if (st.returning != partiql::Returning::kNone) {
      return in_statement(
          i, Error::Validation("RETURNING clause is not supported in ExecuteTransaction."));
    }
    if (st.IsRead() && st.index) {
      return in_statement(
          i, Error::Validation("Reads on indices are not supported within transactions."));
    }
    reads += st.IsRead() ? 1 : 0;
    parsed.push_back(std::move(st));
  }
  if (reads != 0 && reads != n) {
    return Error::Validation(
        "ExecuteTransaction API does not support both read and write operations in the same "
        "request.");
  }
  std::vector<Prepared> prepared;
  std::set<std::string> targets;
  for (size_t i = 0; i < n; ++i) {
    auto p = partiql::Prepare(s, std::move(parsed[i]), members[i].params, Mode::kTransaction);
    if (!p) return in_statement(i, p.error());
    if (!targets.insert(partiql::TargetKey(*p)).second) {
      return Error::Validation(
          "Transaction request cannot include multiple operations on one item");
    }
    prepared.push_back(std::move(*p));
  }

  // A token seen before with the same statements answers as the first time (within this
  // process); its record in the database covers other processes and restarts, for writes
  // (ops/request_tokens.h).
  std::string fingerprint;
  std::optional<ops::TokenGuard> reservation;  // abandoned on any early return
  std::optional<ops::TokenUse> token_use;
  if (token) {
    fingerprint = "PartiQL:" + partiql::Fingerprint("", Field(req, "TransactStatements"));
    ASSIGN_OR_RETURN(cached, s.tokens.Begin(*token, fingerprint));
    if (cached) return std::move(*cached);
    reservation.emplace(s.tokens, *token);
    token_use = ops::TokenUse{*token, ops::RequestHash(fingerprint), s.clock.NowMs()};
  }

  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  std::map<std::string, TableCapacity> units;
  w.StartObject();
  w.Key("Responses");
  w.StartArray();
  if (reads == n) {
    std::vector<ops::TransactGet> gets;
    for (const Prepared& p : prepared) gets.push_back({p.table, p.item.item});
    ASSIGN_OR_RETURN(outcomes, ops::TransactRead(s.items, gets));
    for (size_t i = 0; i < n; ++i) {
      const Prepared& p = prepared[i];
      units[p.table->name].table += 2 * ops::ReadCapacityUnits(outcomes[i].size, true);
      w.StartObject();
      const auto& item = outcomes[i].item;
      if (item && (!p.condition || p.condition->Evaluate(*item))) {
        w.Key("Item");
        WriteItem(w, partiql::Project(p.statement, *item));
      }
      w.EndObject();
    }
  } else {
    std::vector<ops::TransactAction> actions;
    for (size_t i = 0; i < n; ++i) {
      actions.push_back(partiql::ToAction(prepared[i], members[i].return_old));
      units[prepared[i].table->name].table +=
          2 * ops::WriteCapacityUnits(model::ItemSize(prepared[i].item.item));
    }
    bool charged = capacity && *capacity != "NONE";
    ops::IndexCosts index_costs;
    ASSIGN_OR_RETURN(outcome, ops::TransactWrite(s.items, actions, charged ? &index_costs : nullptr,
                                                 token_use ? &*token_use : nullptr));
    if (outcome.repeated) {
      std::string response =
          RepeatedTransactionResponse(actions, outcome.sizes, capacity, /*statements=*/true);
      reservation->Complete(response);
      return response;
    }
    for (size_t i = 0; i < index_costs.size(); ++i) {
      units[prepared[i].table->name].AddIndexes(index_costs[i]);
    }
    if (outcome.cancelled) {
      // The operations report a failed INSERT as a failed condition; PartiQL names it.
      for (size_t i = 0; i < n; ++i) {
        auto& r = outcome.reasons[i];
        if (r.code == "ConditionalCheckFailed" &&
            prepared[i].statement.kind == Statement::Kind::kInsert) {
          r = {"DuplicateItem", partiql::kDuplicateItemMessage, std::nullopt};
        }
      }
      return TransactionCancelled(outcome.reasons);
    }
  }
  w.EndArray();
  WriteCapacityList(w, capacity, units);
  w.EndObject();
  std::string response = Finish(buf);
  if (reservation) reservation->Complete(response);
  return response;
}

}  // namespace ttlstore::api
