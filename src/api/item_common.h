// What the item handlers (PutItem, GetItem, DeleteItem, UpdateItem, Query, Scan, batches,
// transactions) share: the request head (table name, ReturnConsumedCapacity), parsing of their
// expressions, and rendering of consumed capacity, ReturnValues and condition failures.
#pragma once

#include <map>
#include <optional>
#include <vector>
#include <string>

#include "api/dispatch.h"
#include "api/json_value.h"
#include "ops/capacity.h"
#include "api/request.h"
#include "expr/condition.h"
#include "expr/placeholders.h"
#include "expr/projection.h"
#include "ops/multi_item_ops.h"
#include "ops/table_ops.h"

namespace ttlstore::api {

// ReturnValues as the service lists its enum.
inline constexpr auto kReturnValuesEnum = {"ALL_NEW", "UPDATED_OLD", "ALL_OLD", "NONE",
                                           "UPDATED_NEW"};

struct ItemRequest {
  std::string table_name;
  ops::TablePtr table;  // set by Resolve()
  std::optional<std::string> return_capacity;  // NONE | TOTAL | INDEXES
};

// Checks TableName, ReturnConsumedCapacity and that `item_field` (if given) is present, adding
// constraint errors to `c`; returns them if any. The table is not looked up yet: the service
// checks the request's shape and values before the table's existence.
Result<ItemRequest> ParseHead(const rapidjson::Value& req, const char* item_field,
                              const char* item_path, Constraints& c);
// Looks the table up: ResourceNotFoundException "Requested resource not found".
Status Resolve(const Services& s, ItemRequest& r);

// "Can not use both expression and non-expression parameters in the same request: ..." when
// `req` mixes any of `legacy` with any of `modern`.
Status CheckNoMixing(const rapidjson::Value& req, std::initializer_list<const char*> legacy,
                     std::initializer_list<const char*> modern);

// Parses the optional condition-like expression `field` (ConditionExpression, FilterExpression).
Result<std::optional<expr::Condition>> ParseCondition(const rapidjson::Value& req,
                                                       const char* field, expr::Placeholders& ph);
// Parses ProjectionExpression, or the legacy AttributesToGet.
Result<std::optional<expr::Projection>> ParseProjection(const rapidjson::Value& req,
                                                        expr::Placeholders& ph);
// Writes `item` as JSON, through `projection` if there is one (without copying it if not).
void WriteProjected(JsonWriter& w, const model::Item& item,
                    const std::optional<expr::Projection>& projection);

// Writes "ConsumedCapacity" for one table if the request asked for it: CapacityUnits counts the
// table's units and every index's; INDEXES also breaks them down (Table, and the indexes under
// GlobalSecondaryIndexes / LocalSecondaryIndexes by name).
void WriteCapacity(JsonWriter& w, const ItemRequest& r, double table_units,
                   const std::vector<ops::IndexCapacity>& indexes = {});
// The same for a single-item write that replaced `old_item` with `new_item` (either may be
// null): the table's units and what it wrote to each index (ops::IndexWriteCapacity).
void WriteItemWriteCapacity(JsonWriter& w, const ItemRequest& r, double table_units,
                            const model::Item* old_item, const model::Item* new_item);
// Writes "ConsumedCapacity" as a list with one entry per table (batches, transactions, PartiQL),
// if `mode` asks for it.
void WriteCapacityList(JsonWriter& w, const std::optional<std::string>& mode,
                       const std::map<std::string, double>& units);
// The same for a read of secondary index `ix`: `bytes_read` in all, `base_bytes_read` of them
// read from the table (the items a local index's read fetched), charged to the table.
void WriteIndexReadCapacity(JsonWriter& w, const ItemRequest& r, const model::SecondaryIndex& ix,
                            size_t bytes_read, size_t base_bytes_read, bool consistent);
// A position in index `ix` (a Query's or Scan's ExclusiveStartKey, a PartiQL NextToken): exactly
// the table key and the index key attributes, of their types.
bool ValidIndexPosition(const model::TableDescriptor& table, const model::SecondaryIndex& ix,
                        const model::Item& key);
// One table's share of a multi-item write: its own units and each index's.
struct TableCapacity {
  double table = 0;
  std::vector<ops::IndexCapacity> indexes;
  // Adds what one write cost the table's indexes.
  void AddIndexes(const std::vector<ops::IndexCapacity>& more);
};
// The same list with each table's indexes: counted in CapacityUnits, and named under INDEXES.
void WriteCapacityList(JsonWriter& w, const std::optional<std::string>& mode,
                       const std::map<std::string, TableCapacity>& units);

// The parts of `item` at `paths` (UpdateItem's UPDATED_OLD / UPDATED_NEW, PartiQL's RETURNING
// MODIFIED), through the projection engine so nesting and list indexes behave alike.
model::Item AtPaths(const model::Item& item, const std::vector<expr::Path>& paths);

// ConditionalCheckFailedException, carrying the old item when
// ReturnValuesOnConditionCheckFailure is ALL_OLD.
Error ConditionFailed(const std::optional<model::Item>& old_item, bool return_old);

// TransactionCanceledException with one CancellationReason per action, in request order.
Error TransactionCancelled(const std::vector<ops::CancellationReason>& reasons);

// The answer to a transaction whose ClientRequestToken says it was applied before (by another
// process, or before a restart: ops/request_tokens.h): nothing written, and ConsumedCapacity
// (when asked for) the read units of reading each action's item as it is (`sizes`), per table,
// as the API reference says of repeats. `statements`: ExecuteTransaction's shape (an empty
// Responses list, as its first answer to writes gives) rather than TransactWriteItems'.
std::string RepeatedTransactionResponse(const std::vector<ops::TransactAction>& actions,
                                        const std::vector<size_t>& sizes,
                                        const std::optional<std::string>& capacity,
                                        bool statements);

std::string Finish(const rapidjson::StringBuffer& buf);

}  // namespace ttlstore::api
