// Running PartiQL statements: the shared middle of ExecuteStatement, BatchExecuteStatement and
// ExecuteTransaction (partiql_api.cc). A statement goes through
//   ParseStatement  text + Parameters -> Statement (syntax, parameter count)
//   Prepare         -> Prepared: table resolved, WHERE/SET translated (translate.h) and the
//                      resulting expression text parsed by the expression engine
//   RunSelect / RunGet / RunWrite, or ToAction / ToGet for a transaction.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "api/dispatch.h"
#include "api/json_value.h"
#include "api/partiql/translate.h"
#include "expr/condition.h"
#include "expr/key_condition.h"
#include "expr/update.h"
#include "ops/item_ops.h"
#include "ops/multi_item_ops.h"
#include "ops/table_ops.h"

namespace ttlstore::api::partiql {

inline constexpr char kDuplicateItemMessage[] = "Duplicate primary key exists in table";

// DuplicateItemException "Duplicate primary key exists in table": an INSERT of an item that
// exists.
inline Error DuplicateItem() { return Error(ErrorCode::kDuplicateItem, kDuplicateItemMessage); }
inline bool IsDuplicateItem(const Error& e) { return e.code() == ErrorCode::kDuplicateItem; }

// Parses `text` and checks that `params` has a value for each `?` (extra values are ignored):
// "Number of parameters in request and statement don't match."
Result<Statement> ParseStatement(std::string_view text, const Params& params);

// Decodes a request's "Parameters" array (absent: none).
Result<Params> DecodeParameters(const rapidjson::Value& request);

// Where a statement runs. Batches and transactions read single items only, each with its own
// wording for a SELECT that does not name one.
enum class Mode { kStatement, kBatch, kTransaction };

struct Prepared {
  Statement statement;
  ops::TablePtr table;
  expr::Placeholders ph;
  // SELECT in kStatement mode: a Query per key condition, or a Scan when there is none.
  ReadPlan read;
  std::vector<expr::KeyCondition> key_conditions;
  // Every other statement: the item (INSERT) or key, and the parsed expressions. For a
  // single-item SELECT, `condition` is its filter.
  ItemPlan item;
  std::optional<expr::Condition> condition;
  std::optional<expr::Update> update;
  std::optional<expr::Condition> filter;  // kStatement SELECT only
  // A kStatement SELECT of "table"."index": the index it reads, and whether each item is
  // fetched from the table (a local index asked for attributes it does not project).
  const model::SecondaryIndex* index = nullptr;
  bool fetch_base = false;
};

// Resolves the table (ResourceNotFoundException) and translates the statement for `mode`.
// `consistent`: the request's ConsistentRead (refused on a global index).
Result<Prepared> Prepare(const Services& s, Statement statement, const Params& params, Mode mode,
                         bool consistent = false);

// The RocksDB key of a single-item statement, to find two statements on one item.
std::string TargetKey(const Prepared& p);

// One page of a SELECT. The NextToken is opaque base64 of {"h": request fingerprint,
// "i": partition index, "k": last evaluated key}; `fingerprint` ties it to the statement and
// parameters so a token cannot be replayed against another request.
struct SelectPage {
  std::vector<model::Item> items;  // projected
  size_t bytes_read = 0;
  size_t base_bytes_read = 0;  // the part of bytes_read an index read read from the table
  std::optional<std::string> next_token;
};
Result<SelectPage> RunSelect(const Services& s, const Prepared& p, std::optional<int64_t> limit,
                             const std::optional<std::string>& next_token,
                             const std::string& fingerprint);

// A single-item SELECT: the projected item, if it exists and passes the filter.
struct GetResult {
  std::optional<model::Item> item;
  size_t bytes_read = 0;
};
Result<GetResult> RunGet(const Services& s, const Prepared& p);

// INSERT, UPDATE or DELETE. A false condition is returned as outcome.condition_failed; turn it
// into the statement's error with FailedCondition.
Result<ops::WriteOutcome> RunWrite(const Services& s, const Prepared& p);
// DuplicateItem for an INSERT, ConditionalCheckFailed (with the old item when `return_old`)
// otherwise.
Error FailedCondition(const Prepared& p, const ops::WriteOutcome& outcome, bool return_old);
// What RETURNING asks for, if anything.
std::optional<model::Item> Returned(const Prepared& p, const ops::WriteOutcome& outcome);

// The statement as a transaction action / read. REQUIRES: not a kStatement-mode SELECT.
ops::TransactAction ToAction(const Prepared& p, bool return_old_on_failure);

// A stable hash of a request part (statement text, parameters JSON), as hex.
std::string Fingerprint(std::string_view text, const rapidjson::Value* params);

}  // namespace ttlstore::api::partiql
