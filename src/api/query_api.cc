// Query and Scan handlers: request checks in the service's order, then one page from
// ops::Query / ops::Scan, rendered with Count, ScannedCount, LastEvaluatedKey and capacity.
#include "api/expression_params.h"
#include "api/handlers.h"
#include "api/item_common.h"
#include "api/legacy.h"
#include "ops/capacity.h"
#include "ops/item_ops.h"
#include "ops/query_scan.h"
#include "storage/key_codec.h"

namespace ttlstore::api {
namespace {

struct ReadHead {
  ItemRequest head;
  std::optional<std::string> select;
  std::optional<int64_t> limit;
  bool consistent = false;
  std::optional<std::string> index_name;
};

Result<ReadHead> ParseReadHead(const rapidjson::Value& req, bool is_query, Constraints& c) {
  ReadHead r;
  ASSIGN_OR_RETURN(select, OptString(req, "Select"));
  ASSIGN_OR_RETURN(limit, OptInt(req, "Limit"));
  ASSIGN_OR_RETURN(consistent, OptBool(req, "ConsistentRead"));
  ASSIGN_OR_RETURN(index_name, OptString(req, "IndexName"));
  c.Enum("select", select, {"SPECIFIC_ATTRIBUTES", "COUNT", "ALL_ATTRIBUTES",
                            "ALL_PROJECTED_ATTRIBUTES"});
  if (limit && *limit < 1) {
    // The service words this one differently for Query and Scan.
    c.Add(is_query ? "Value at 'Limit' failed to satisfy constraint: Member must have value "
                     "greater than or equal to 1"
                   : "Value '" + std::to_string(*limit) +
                         "' at 'limit' failed to satisfy constraint: Member must have value "
                         "greater than or equal to 1");
  }
  c.TableName("indexName", index_name, 3);
  ASSIGN_OR_RETURN(head, ParseHead(req, nullptr, nullptr, c));
  r.head = std::move(head);
  r.select = std::move(select);
  r.limit = limit;
  r.consistent = consistent.value_or(false);
  r.index_name = std::move(index_name);
  return r;
}

// Select against the projection, with the service's messages.
Status CheckSelect(const ReadHead& r, bool has_projection) {
  if (r.select == "SPECIFIC_ATTRIBUTES" && !has_projection) {
    return Error::Validation(
        "Must specify the AttributesToGet or ProjectionExpression when choosing to get "
        "SPECIFIC_ATTRIBUTES");
  }
  if (r.select == "COUNT" && has_projection) {
    return Error::Validation(
        "Cannot specify the AttributesToGet when choosing to get only the Count");
  }
  if (r.select == "ALL_ATTRIBUTES" && has_projection) {
    return Error::Validation(
        "Cannot specify the AttributesToGet when choosing to get ALL_ATTRIBUTES");
  }
  if (r.select == "ALL_PROJECTED_ATTRIBUTES" && !r.index_name) {
    return Error::Validation(
        "ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName");
  }
  return Status::Ok();
}

// Secondary indexes are declared but not yet maintained (issue #5): refuse rather than answer
// from an empty index.
Status CheckIndex(const ReadHead& r) {
  if (!r.index_name) return Status::Ok();
  for (const auto& ix : r.head.table->indexes) {
    if (ix.name != *r.index_name) continue;
    if (ix.global && r.consistent) {
      return Error::Validation("Consistent reads are not supported on global secondary indexes");
    }
    return Error::Validation("Reading secondary index " + ix.name +
                             " is not supported by this server yet");
  }
  return Error::Validation("The table does not have the specified index: " + *r.index_name);
}

Result<std::optional<model::Item>> DecodeStartKey(const rapidjson::Value& req,
                                                  const model::TableDescriptor& table) {
  ASSIGN_OR_RETURN(json, OptObject(req, "ExclusiveStartKey"));
  if (!json) return std::optional<model::Item>();
  ASSIGN_OR_RETURN(key, DecodeItem(*json));
  if (Status s = ops::ValidateKey(table, key); !s) {
    return Error::Validation("The provided starting key is invalid: " + s.error().message());
  }
  return std::optional<model::Item>(std::move(key));
}

std::string RenderPage(const ReadHead& r, const ops::Page& page,
                       const std::optional<expr::Projection>& projection) {
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  if (r.select != "COUNT") {
    w.Key("Items");
    w.StartArray();
    for (const auto& item : page.items) WriteItem(w, projection ? projection->Apply(item) : item);
    w.EndArray();
  }
  w.Key("Count");
  w.Uint64(page.items.size());
  w.Key("ScannedCount");
  w.Uint64(page.scanned_count);
  if (page.last_evaluated_key) {
    w.Key("LastEvaluatedKey");
    WriteItem(w, *page.last_evaluated_key);
  }
  WriteCapacity(w, r.head, ops::ReadCapacityUnits(page.bytes_read, r.consistent));
  w.EndObject();
  return Finish(buf);
}

}  // namespace

Result<std::string> Query(const Services& s, const rapidjson::Value& req) {
  Constraints c;
  ASSIGN_OR_RETURN(r, ParseReadHead(req, /*is_query=*/true, c));
  ASSIGN_OR_RETURN(forward, OptBool(req, "ScanIndexForward"));
  RETURN_IF_ERROR(CheckNoMixing(
      req, {"KeyConditions", "QueryFilter", "ConditionalOperator", "AttributesToGet"},
      {"KeyConditionExpression", "FilterExpression", "ProjectionExpression"}));
  if (!Field(req, "KeyConditionExpression") && !Field(req, "KeyConditions")) {
    return Error::Validation(
        "Either the KeyConditions or KeyConditionExpression parameter must be specified in the "
        "request.");
  }
  ASSIGN_OR_RETURN(ph, DecodePlaceholders(req));
  ASSIGN_OR_RETURN(projection, ParseProjection(req, ph));
  RETURN_IF_ERROR(CheckSelect(r, projection.has_value()));
  ASSIGN_OR_RETURN(filter, ParseCondition(req, "FilterExpression", ph));
  if (!filter) {
    ASSIGN_OR_RETURN(legacy, LegacyCondition(req, "QueryFilter", ph));
    filter = std::move(legacy);
  }
  RETURN_IF_ERROR(Resolve(s, r.head));
  const model::TableDescriptor& table = *r.head.table;
  RETURN_IF_ERROR(CheckIndex(r));
  ASSIGN_OR_RETURN(text, OptString(req, "KeyConditionExpression"));
  std::optional<expr::KeyCondition> condition;
  if (text) {
    ASSIGN_OR_RETURN(parsed, expr::KeyCondition::Parse(*text, table.key, ph));
    condition = std::move(parsed);
  } else {
    ASSIGN_OR_RETURN(legacy, LegacyKeyConditions(req, table.key, ph));
    condition = std::move(legacy);
  }
  RETURN_IF_ERROR(CheckPlaceholdersUsed(ph));
  if (filter) {
    // A Query's key attributes belong in its key condition, never its filter.
    for (const std::string& name : filter->TopLevelNames()) {
      if (name == table.key.hash.name || (table.key.range && name == table.key.range->name)) {
        return Error::Validation(
            "Filter Expression can only contain non-primary key attributes: Primary key "
            "attribute: " + name);
      }
    }
  }
  ASSIGN_OR_RETURN(start, DecodeStartKey(req, table));
  if (start) {
    bool inside = start->at(table.key.hash.name) == condition->partition &&
                  (!table.key.range || condition->MatchesSort(start->at(table.key.range->name)));
    if (!inside) {
      return Error::Validation(
          "The provided starting key is outside query boundaries based on provided conditions");
    }
  }
  ops::PageOptions options;
  options.filter = filter ? &*filter : nullptr;
  options.limit = r.limit;
  options.now_ms = s.clock.NowMs();
  options.exclusive_start_key = start ? &*start : nullptr;
  ASSIGN_OR_RETURN(page, ops::Query(s.items.store(), table, *condition, forward.value_or(true),
                                    options));
  return RenderPage(r, page, projection);
}

Result<std::string> Scan(const Services& s, const rapidjson::Value& req) {
  Constraints c;
  ASSIGN_OR_RETURN(segment, OptInt(req, "Segment"));
  ASSIGN_OR_RETURN(total, OptInt(req, "TotalSegments"));
  c.Min("segment", segment, 0);
  c.Max("segment", segment, 999999);
  c.Min("totalSegments", total, 1);
  c.Max("totalSegments", total, 1000000);
  ASSIGN_OR_RETURN(r, ParseReadHead(req, /*is_query=*/false, c));
  if (segment && !total) {
    return Error::Validation(
        "The TotalSegments parameter is required but was not present in the request when "
        "Segment parameter is present");
  }
  if (total && !segment) {
    return Error::Validation(
        "The Segment parameter is required but was not present in the request when parameter "
        "TotalSegments is present");
  }
  if (segment && *segment >= *total) {
    return Error::Validation(
        "The Segment parameter is zero-based and must be less than parameter TotalSegments: "
        "Segment: " + std::to_string(*segment) + " is not less than TotalSegments: " +
        std::to_string(*total));
  }
  RETURN_IF_ERROR(CheckNoMixing(req, {"ScanFilter", "ConditionalOperator", "AttributesToGet"},
                                {"FilterExpression", "ProjectionExpression"}));
  ASSIGN_OR_RETURN(ph, DecodePlaceholders(req));
  ASSIGN_OR_RETURN(projection, ParseProjection(req, ph));
  RETURN_IF_ERROR(CheckSelect(r, projection.has_value()));
  ASSIGN_OR_RETURN(filter, ParseCondition(req, "FilterExpression", ph));
  if (!filter) {
    ASSIGN_OR_RETURN(legacy, LegacyCondition(req, "ScanFilter", ph));
    filter = std::move(legacy);
  }
  RETURN_IF_ERROR(CheckPlaceholdersUsed(ph));
  RETURN_IF_ERROR(Resolve(s, r.head));
  const model::TableDescriptor& table = *r.head.table;
  RETURN_IF_ERROR(CheckIndex(r));
  ASSIGN_OR_RETURN(start, DecodeStartKey(req, table));
  uint32_t seg = static_cast<uint32_t>(segment.value_or(0));
  uint32_t segs = static_cast<uint32_t>(total.value_or(1));
  if (start && segs > 1 && ops::SegmentOfKey(ops::EncodedKey(table, *start), segs) != seg) {
    return Error::Validation(
        "The provided Exclusive start key does not map to the provided Segment and "
        "TotalSegments values.");
  }
  ops::PageOptions options;
  options.filter = filter ? &*filter : nullptr;
  options.limit = r.limit;
  options.now_ms = s.clock.NowMs();
  options.exclusive_start_key = start ? &*start : nullptr;
  ASSIGN_OR_RETURN(page, ops::Scan(s.items.store(), table, seg, segs, options));
  return RenderPage(r, page, projection);
}

}  // namespace ttlstore::api
