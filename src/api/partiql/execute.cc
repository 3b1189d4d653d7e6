#include "api/partiql/execute.h"

#include <algorithm>
#include <numeric>

#include "common/base64.h"
#include "api/item_common.h"
#include "api/json_parse.h"
#include "api/partiql/index_read.h"
#include "api/partiql/parser.h"
#include "api/request.h"
#include "expr/condition_check.h"
#include "expr/projection.h"
#include "model/expiry.h"
#include "model/item_size.h"
#include "ops/query_scan.h"

namespace ttlstore::api::partiql {
namespace {

// A SELECT inside a batch or transaction must name one item; the service says so in these
// words rather than with the single-item key errors UPDATE and DELETE give.
constexpr char kBatchSelect[] =
    "Select statements within BatchExecuteStatement must specify the primary key in the where "
    "clause.";
constexpr char kTransactSelect[] =
    "Select statements within ExecuteTransaction must specify the primary key in the where "
    "clause.";

bool IsMissingKeyError(const Error& e) {
  const std::string& m = e.message();
  return m.rfind("Where clause does not contain", 0) == 0 ||
         m.rfind("Multiple conditions on same key", 0) == 0;
}

// ORDER BY pk sorts the partitions of an IN list; the token's partition index refers to this
// order, which is deterministic for a given statement.
void OrderPartitions(ReadPlan& plan) {
  if (plan.partition_order == ReadPlan::PartitionOrder::kAsWritten) return;
  std::vector<size_t> order(plan.partitions.size());
  std::iota(order.begin(), order.end(), 0);
  bool descending = plan.partition_order == ReadPlan::PartitionOrder::kDescending;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    int c = expr::CompareScalars(plan.partitions[a], plan.partitions[b]);
    return descending ? c > 0 : c < 0;
  });
  ReadPlan sorted = plan;
  for (size_t i = 0; i < order.size(); ++i) {
    sorted.partitions[i] = plan.partitions[order[i]];
    sorted.key_conditions[i] = plan.key_conditions[order[i]];
  }
  plan = std::move(sorted);
}

struct TokenState {
  size_t index = 0;
  std::optional<model::Item> key;
};

std::string EncodeToken(const std::string& fingerprint, size_t index,
                        const std::optional<model::Item>& key) {
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  w.Key("h");
  WriteString(w, fingerprint);
  w.Key("i");
  w.Uint64(index);
  if (key) {
    w.Key("k");
    WriteItem(w, *key);
  }
  w.EndObject();
  return Base64Encode(std::string_view(buf.GetString(), buf.GetSize()));
}

Result<TokenState> DecodeToken(const std::string& token, const std::string& fingerprint,
                               const Prepared& p) {
  const Error invalid = Error::Validation("Invalid NextToken");
  auto json = Base64Decode(token);
  if (!json) return invalid;
  rapidjson::Document doc;
  if (ParseJson(*json, &doc) != JsonParse::kOk || !doc.IsObject()) return invalid;
  const rapidjson::Value* h = Field(doc, "h");
  const rapidjson::Value* i = Field(doc, "i");
  if (!h || !h->IsString() || !i || !i->IsUint64()) return invalid;
  if (std::string(h->GetString(), h->GetStringLength()) != fingerprint) {
    return Error::Validation("NextToken does not match request");
  }
  TokenState state;
  state.index = i->GetUint64();
  if (state.index >= std::max<size_t>(1, p.key_conditions.size())) return invalid;
  if (const rapidjson::Value* k = Field(doc, "k")) {
    auto key = DecodeItem(*k);
    if (!key) return invalid;
    if (p.index ? !ValidIndexPosition(*p.table, *p.index, *key)
                : !ops::ValidateKey(*p.table, *key)) {
      return invalid;
    }
    state.key = std::move(*key);
  }
  return state;
}

// A parameter's numbers, at any depth, are converted by the PartiQL engine before DynamoDB's
// number checks (lexer.h, ExponentConvertible). `v` is bounded in depth by the request parser.
Status CheckConvertible(const rapidjson::Value& v) {
  if (!v.IsObject()) return Status::Ok();
  auto refuse = [](const rapidjson::Value& n) -> Status {
    if (!n.IsString()) return Status::Ok();
    std::string_view text(n.GetString(), n.GetStringLength());
    // An empty one: the text without a colon, here (the same capture).
    if (text.empty()) {
      return Error::Validation("The parameter cannot be converted to a numeric value");
    }
    if (ExponentConvertible(text)) return Status::Ok();
    return Error::Validation("The parameter cannot be converted to a numeric value: " +
                             std::string(text));
  };
  for (const auto& m : v.GetObject()) {
    std::string_view type(m.name.GetString(), m.name.GetStringLength());
    if (type == "N") {
      RETURN_IF_ERROR(refuse(m.value));
    } else if (type == "NS" && m.value.IsArray()) {
      for (const auto& n : m.value.GetArray()) RETURN_IF_ERROR(refuse(n));
    } else if (type == "L" && m.value.IsArray()) {
      for (const auto& e : m.value.GetArray()) RETURN_IF_ERROR(CheckConvertible(e));
    } else if (type == "M" && m.value.IsObject()) {
      for (const auto& e : m.value.GetObject()) RETURN_IF_ERROR(CheckConvertible(e.value));
    }
  }
  return Status::Ok();
}

}  // namespace

Result<Statement> ParseStatement(std::string_view text, const Params& params) {
  ASSIGN_OR_RETURN(statement, Parse(text));
  // Too few values is an error; extra ones are ignored, as DynamoDB Local (AWS's own emulator,
  // built on the service's PartiQL library) does.
  if (static_cast<size_t>(statement.parameter_count) > params.size()) {
    return Error::Validation("Number of parameters in request and statement don't match.");
  }
  return statement;
}

Result<Params> DecodeParameters(const rapidjson::Value& request) {
  ASSIGN_OR_RETURN(list, OptArray(request, "Parameters"));
  Params params;
  if (!list) return params;
  for (const auto& v : list->GetArray()) {
    RETURN_IF_ERROR(CheckConvertible(v));
    ASSIGN_OR_RETURN(value, DecodeAttributeValue(v));
    params.push_back(std::move(value));
  }
  return params;
}

// The service counts a WHERE clause's operators like an expression's, and words the error
// without an "Invalid ...Expression" prefix (DynamoDB Local: "The expression contains too many
// operators; operator count: 301"). Checked once WHERE has been translated, so that the
// translation's own errors (an unknown function, IN with over 100 operands) come first.
Status CheckOperatorCount(const Statement& st) {
  if (st.where_operators <= expr::kMaxOperators) return Status::Ok();
  return Error::Validation("The expression contains too many operators; operator count: " +
                           std::to_string(expr::kMaxOperators + 1));
}

// The expressions WHERE and SET are translated into are the service's, not the caller's, so
// their errors lose the "Invalid ConditionExpression: " prefix, as the service words them
// ("The IN operator is provided with too many operands; number of operands: 101").
template <typename T>
Result<T> Unprefixed(Result<T> r) {
  if (r || r.error().code() != ErrorCode::kValidation) return r;
  const std::string& m = r.error().message();
  for (const char* kind : {"Invalid ConditionExpression: ", "Invalid FilterExpression: ",
                           "Invalid KeyConditionExpression: ", "Invalid UpdateExpression: "}) {
    if (m.rfind(kind, 0) == 0) return Error::Validation(m.substr(std::string_view(kind).size()));
  }
  return r;
}

Result<Prepared> Prepare(const Services& s, Statement statement, const Params& params, Mode mode,
                         bool consistent) {
  Prepared p;
  p.statement = std::move(statement);
  const Statement& st = p.statement;
  // Checked before the table is looked up, as the service does (dynoxide's tests, captured
  // against the service).
  if (st.index && st.kind == Statement::Kind::kInsert) {
    return Error::Validation(
        "FROM clause may only contain a single table name in data manipulation statements");
  }
  if (st.index && !st.IsRead()) {
    return Error::Validation("This operation is not supported on an index");
  }
  ASSIGN_OR_RETURN(table, s.catalog.Get(st.table));
  p.table = table;
  ASSIGN_OR_RETURN(index, ResolveReadIndex(st, *table, mode == Mode::kBatch, consistent));
  p.index = index;
  ExpressionWriter w(p.ph, params);

  if (st.IsRead() && mode == Mode::kStatement) {
    const model::KeySchema& key = p.index ? p.index->key : table->key;
    ASSIGN_OR_RETURN(read, PlanSelect(st, key, w));
    RETURN_IF_ERROR(CheckOperatorCount(st));
    p.read = std::move(read);
    OrderPartitions(p.read);
    for (const std::string& text : p.read.key_conditions) {
      ASSIGN_OR_RETURN(kc, Unprefixed(expr::KeyCondition::Parse(text, key, p.ph, true)));
      p.key_conditions.push_back(std::move(kc));
    }
    if (!p.read.filter.empty()) {
      ASSIGN_OR_RETURN(filter,
                       Unprefixed(expr::Condition::Parse(p.read.filter, "FilterExpression", p.ph, true)));
      p.filter = std::move(filter);
    }
    if (p.index) {
      ASSIGN_OR_RETURN(fetch, CheckIndexAttributes(st, *table, *p.index,
                                                   p.filter ? &*p.filter : nullptr,
                                                   !p.key_conditions.empty()));
      p.fetch_base = fetch;
    }
    return p;
  }

  auto plan = PlanItem(st, table->key, w);
  if (!plan) {
    if (st.IsRead() && IsMissingKeyError(plan.error())) {
      return Error::Validation(mode == Mode::kBatch ? kBatchSelect : kTransactSelect);
    }
    return std::move(plan).error();
  }
  RETURN_IF_ERROR(CheckOperatorCount(st));
  p.item = std::move(*plan);
  if (st.kind == Statement::Kind::kInsert) {
    RETURN_IF_ERROR(ops::ValidateItemKey(*table, p.item.item));
    if (model::ItemSize(p.item.item) > model::kMaxItemBytes) {
      return Error::Validation("Item size has exceeded the maximum allowed size");
    }
  } else {
    RETURN_IF_ERROR(ops::ValidateKey(*table, p.item.item));
  }
  if (!p.item.update.empty()) {
    ASSIGN_OR_RETURN(update, Unprefixed(expr::Update::Parse(p.item.update, p.ph, true)));
    p.update = std::move(update);
  }
  if (!p.item.condition.empty()) {
    ASSIGN_OR_RETURN(condition, Unprefixed(expr::Condition::Parse(
                                    p.item.condition, "ConditionExpression", p.ph, true)));
    p.condition = std::move(condition);
  }
  return p;
}

std::string TargetKey(const Prepared& p) { return ops::EncodedKey(*p.table, p.item.item); }

Result<SelectPage> RunSelect(const Services& s, const Prepared& p, std::optional<int64_t> limit,
                             const std::optional<std::string>& next_token,
                             const std::string& fingerprint) {
  TokenState start;
  if (next_token) {
    ASSIGN_OR_RETURN(decoded, DecodeToken(*next_token, fingerprint, p));
    start = std::move(decoded);
  }
  SelectPage page;
  const storage::Store& store = s.items.store();
  const model::TableDescriptor& table = *p.table;
  ops::PageOptions options;
  options.filter = p.filter ? &*p.filter : nullptr;
  options.now_ms = s.clock.NowMs();  // for tables that hide expired items
  options.index = p.index;
  options.fetch_base_items = p.fetch_base;
  auto take = [&](const ops::Page& r) {
    for (const auto& item : r.items) page.items.push_back(Project(p.statement, item));
    page.bytes_read += r.bytes_read;
    page.base_bytes_read += r.base_bytes_read;
  };

  if (p.key_conditions.empty()) {
    options.limit = limit;
    options.exclusive_start_key = start.key ? &*start.key : nullptr;
    ASSIGN_OR_RETURN(r, ops::Scan(store, table, 0, 1, options));
    take(r);
    if (r.last_evaluated_key) page.next_token = EncodeToken(fingerprint, 0, r.last_evaluated_key);
    return page;
  }

  // pk IN [...] reads the partitions one after another; Limit and the 1 MB page bound apply to
  // the whole page, and the token records which partition to resume in.
  std::optional<int64_t> remaining = limit;
  for (size_t i = start.index; i < p.key_conditions.size(); ++i) {
    options.limit = remaining;
    options.exclusive_start_key = i == start.index && start.key ? &*start.key : nullptr;
    ASSIGN_OR_RETURN(r, ops::Query(store, table, p.key_conditions[i], p.read.forward, options));
    take(r);
    if (remaining) *remaining -= static_cast<int64_t>(r.scanned_count);
    if (r.last_evaluated_key) {
      page.next_token = EncodeToken(fingerprint, i, r.last_evaluated_key);
      break;
    }
    bool more = i + 1 < p.key_conditions.size();
    if (more && ((remaining && *remaining <= 0) || page.bytes_read >= ops::kMaxPageBytes)) {
      page.next_token = EncodeToken(fingerprint, i + 1, std::nullopt);
      break;
    }
  }
  return page;
}

Result<GetResult> RunGet(const Services& s, const Prepared& p) {
  ASSIGN_OR_RETURN(read, s.items.Get(*p.table, p.item.item));
  GetResult g;
  g.bytes_read = read.size;
  if (read.item && model::IsHiddenExpired(*p.table, *read.item, s.clock.NowMs())) {
    read.item.reset();  // the table hides expired items: as if already deleted
  }
  if (read.item && (!p.condition || p.condition->Evaluate(*read.item))) {
    g.item = Project(p.statement, *read.item);
  }
  return g;
}

Result<ops::WriteOutcome> RunWrite(const Services& s, const Prepared& p) {
  const expr::Condition* condition = p.condition ? &*p.condition : nullptr;
  switch (p.statement.kind) {
    case Statement::Kind::kInsert:
      return s.items.Put(*p.table, p.item.item, condition);
    case Statement::Kind::kUpdate:
      return s.items.Update(*p.table, p.item.item, p.update ? &*p.update : nullptr, condition);
    case Statement::Kind::kDelete:
      return s.items.Delete(*p.table, p.item.item, condition);
    default:
      return Error::Internal("RunWrite on a statement that does not write");
  }
}

Error FailedCondition(const Prepared& p, const ops::WriteOutcome& outcome, bool return_old) {
  if (p.statement.kind == Statement::Kind::kInsert) return DuplicateItem();
  return ConditionFailed(outcome.old_item, return_old);
}

std::optional<model::Item> Returned(const Prepared& p, const ops::WriteOutcome& outcome) {
  switch (p.statement.returning) {
    case Returning::kNone:
      return std::nullopt;
    case Returning::kAllOld:
      return outcome.old_item;
    case Returning::kAllNew:
      return outcome.new_item;
    case Returning::kModifiedOld:
      if (!outcome.old_item) return std::nullopt;
      return AtPaths(*outcome.old_item, p.item.targets);
    case Returning::kModifiedNew:
      if (!outcome.new_item) return std::nullopt;
      return AtPaths(*outcome.new_item, p.item.targets);
  }
  return std::nullopt;
}

ops::TransactAction ToAction(const Prepared& p, bool return_old_on_failure) {
  using Kind = ops::TransactAction::Kind;
  ops::TransactAction a;
  switch (p.statement.kind) {
    case Statement::Kind::kInsert:
      a.kind = Kind::kPut;
      break;
    case Statement::Kind::kUpdate:
      a.kind = Kind::kUpdate;
      break;
    case Statement::Kind::kDelete:
      a.kind = Kind::kDelete;
      break;
    default:
      a.kind = Kind::kConditionCheck;
      break;
  }
  a.table = p.table;
  a.item = p.item.item;
  a.condition = p.condition;
  a.update = p.update;
  a.return_old_on_failure = return_old_on_failure;
  return a;
}

std::string Fingerprint(std::string_view text, const rapidjson::Value* params) {
  // FNV-1a, 64 bits: enough to tell requests apart; not a security boundary (the token only
  // ever resumes a read the caller could run anyway).
  uint64_t h = 1469598103934665603ull;
  auto mix = [&h](std::string_view bytes) {
    for (unsigned char c : bytes) {
      h ^= c;
      h *= 1099511628211ull;
    }
  };
  mix(text);
  mix(std::string_view("\0", 1));
  if (params) {
    rapidjson::StringBuffer buf;
    JsonWriter w(buf);
    params->Accept(w);
    mix(std::string_view(buf.GetString(), buf.GetSize()));
  }
  static const char kHex[] = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i, h >>= 4) out[i] = kHex[h & 0xf];
  return out;
}

}  // namespace ttlstore::api::partiql
