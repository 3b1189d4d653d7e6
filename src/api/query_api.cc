// Query and Scan handlers: request checks in the service's order, then one page from
// ops::Query / ops::Scan, rendered with Count, ScannedCount, LastEvaluatedKey and capacity.
#include "api/expression_params.h"
#include "api/handlers.h"
#include "api/index_projection.h"
#include "api/item_common.h"
#include "api/legacy.h"
#include "index/index_key.h"
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

// Select against the projection, with the service's messages. `projection_field`: the
// parameter the projection came in (AttributesToGet or ProjectionExpression; null: none), which
// the refusals name ("Cannot specify the ProjectionExpression when choosing to get
// ALL_ATTRIBUTES": ScyllaDB's Alternator test_query_select and test_scan_select, run against
// the service, and implementations checked against it; docs/compatibility.md). Query wraps
// these in "1 validation error detected: ", Scan does not (ExtendDB's
// tests/test_wording_parity_validation.py, verified against the service).
Status CheckSelect(const ReadHead& r, const char* projection_field, bool query) {
  const bool has_projection = projection_field != nullptr;
  const std::string envelope = query ? "1 validation error detected: " : "";
  auto refused = [&](const std::string& what) {
    return Error::Validation(envelope + "Cannot specify the " + projection_field +
                             " when choosing to get " + what);
  };
  if (r.select == "SPECIFIC_ATTRIBUTES" && !has_projection) {
    return Error::Validation(
        envelope +
        "Must specify the AttributesToGet or ProjectionExpression when choosing to get "
        "SPECIFIC_ATTRIBUTES");
  }
  if (r.select == "COUNT" && has_projection) return refused("only the Count");
  if (r.select == "ALL_ATTRIBUTES" && has_projection) return refused("ALL_ATTRIBUTES");
  if (r.select == "ALL_PROJECTED_ATTRIBUTES" && !r.index_name) {
    return Error::Validation(
        "ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName");
  }
  if (r.select == "ALL_PROJECTED_ATTRIBUTES" && has_projection) {
    return refused("ALL_PROJECTED_ATTRIBUTES");
  }
  return Status::Ok();
}

// The parameter a read's projection came in (the two are never both there: CheckNoMixing).
const char* ProjectionField(const rapidjson::Value& req) {
  if (Field(req, "ProjectionExpression")) return "ProjectionExpression";
  if (Field(req, "AttributesToGet")) return "AttributesToGet";
  return nullptr;
}

// The index named by IndexName (null without one), checked as the service does.
Result<const model::SecondaryIndex*> ResolveIndex(const ReadHead& r) {
  if (!r.index_name) return static_cast<const model::SecondaryIndex*>(nullptr);
  const model::SecondaryIndex* ix = index::FindIndex(*r.head.table, *r.index_name);
  // Vector indexes are read with SearchVectors only (developer guide, vector index
  // requirements and limitations: "Vector indexes do not support Query or Scan operations").
  if (!ix || ix->IsVector()) {
    return Error::Validation("The table does not have the specified index: " + *r.index_name);
  }
  if (ix->global && r.consistent) {
    return Error::Validation("Consistent reads are not supported on global secondary indexes");
  }
  if (ix->status == model::IndexStatus::kCreating) {
    return Error::Validation("Cannot read from backfilling global secondary index: " + ix->name);
  }
  return ix;
}

// What a read of an index may ask for beyond the index's projection. A global index holds only
// its projection, so asking for more is an error; a local index lives with its table, so the
// service fetches the table's items instead (returns true then).
Result<bool> CheckIndexAttributes(const ReadHead& r, const model::SecondaryIndex& ix,
                                  const std::optional<expr::Projection>& projection,
                                  const std::optional<expr::Condition>& filter) {
  const model::TableDescriptor& table = *r.head.table;
  if (ix.projection == model::ProjectionType::kAll) return false;
  bool fetch_base = false;
  if (r.select == "ALL_ATTRIBUTES") {
    if (ix.global) {
      return Error::Validation(
          "One or more parameter values were invalid: Select type ALL_ATTRIBUTES is not "
          "supported for global secondary index " + ix.name +
          " because its projection type is not ALL");
    }
    fetch_base = true;
  }
  if (projection) {
    ASSIGN_OR_RETURN(fetch, CheckIndexProjects(table, ix, projection->paths()));
    fetch_base = fetch_base || fetch;
  }
  if (filter && !fetch_base) RETURN_IF_ERROR(CheckIndexFilter(table, ix, *filter));
  return fetch_base;
}

// ExclusiveStartKey: the table key, plus the index key when reading an index.
Result<std::optional<model::Item>> DecodeStartKey(const rapidjson::Value& req,
                                                  const model::TableDescriptor& table,
                                                  const model::SecondaryIndex* ix) {
  ASSIGN_OR_RETURN(json, OptObject(req, "ExclusiveStartKey"));
  if (!json) return std::optional<model::Item>();
  ASSIGN_OR_RETURN(key, DecodeItem(*json));
  if (ix) {
    if (!ValidIndexPosition(table, *ix, key)) {
      return Error::Validation("The provided starting key is invalid");
    }
    return std::optional<model::Item>(std::move(key));
  }
  if (Status s = ops::ValidateKey(table, key); !s) {
    return Error::Validation("The provided starting key is invalid: " + s.error().message());
  }
  return std::optional<model::Item>(std::move(key));
}

void WriteReadCapacity(JsonWriter& w, const ReadHead& r, const ops::Page& page,
                       const model::SecondaryIndex* ix) {
  if (!ix) {
    WriteCapacity(w, r.head, ops::ReadCapacityUnits(page.bytes_read, r.consistent));
    return;
  }
  WriteIndexReadCapacity(w, r.head, *ix, page.bytes_read, page.base_bytes_read, r.consistent);
}

std::string RenderPage(const ReadHead& r, const ops::Page& page,
                       const std::optional<expr::Projection>& projection,
                       const model::SecondaryIndex* ix) {
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  if (r.select != "COUNT") {
    w.Key("Items");
    w.StartArray();
    for (const auto& item : page.items) WriteProjected(w, item, projection);
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
  WriteReadCapacity(w, r, page, ix);
  w.EndObject();
  return Finish(buf);
}

}  // namespace

Result<std::string> Query(const Services& s, const rapidjson::Value& req) {
  Constraints c;
  ASSIGN_OR_RETURN(r, ParseReadHead(req, /*is_query=*/true, c));
  ASSIGN_OR_RETURN(forward, OptBool(req, "ScanIndexForward"));
  // The service lets KeyConditions go with the other expressions when there is no
  // KeyConditionExpression, and names the parameters in this order (dynalite's query tests).
  if (Field(req, "KeyConditionExpression")) {
    RETURN_IF_ERROR(CheckNoMixing(
        req, {"AttributesToGet", "QueryFilter", "ConditionalOperator", "KeyConditions"},
        {"ProjectionExpression", "FilterExpression", "KeyConditionExpression"}));
  } else {
    RETURN_IF_ERROR(CheckNoMixing(req, {"AttributesToGet", "QueryFilter", "ConditionalOperator"},
                                  {"ProjectionExpression", "FilterExpression"}));
  }
  // Before the missing key condition (the order ExtendDB's test_conditional_operator.py finds).
  RETURN_IF_ERROR(CheckConditionalOperator(req, "QueryFilter"));
  if (!Field(req, "KeyConditionExpression") && !Field(req, "KeyConditions")) {
    return Error::Validation(
        "Either the KeyConditions or KeyConditionExpression parameter must be specified in the "
        "request.");
  }
  ASSIGN_OR_RETURN(ph, DecodePlaceholders(req));
  ASSIGN_OR_RETURN(projection, ParseProjection(req, ph));
  RETURN_IF_ERROR(CheckSelect(r, projection ? ProjectionField(req) : nullptr, /*query=*/true));
  ASSIGN_OR_RETURN(filter, ParseCondition(req, "FilterExpression", ph));
  if (!filter) {
    ASSIGN_OR_RETURN(legacy, LegacyCondition(req, "QueryFilter", ph));
    filter = std::move(legacy);
  }
  // What the key condition's text alone shows is reported before the table is looked up.
  ASSIGN_OR_RETURN(text, OptString(req, "KeyConditionExpression"));
  std::optional<expr::CondExpr> key_text;
  if (text) {
    ASSIGN_OR_RETURN(parsed, expr::KeyCondition::ParseText(*text, ph));
    key_text = std::move(parsed);
  }
  RETURN_IF_ERROR(Resolve(s, r.head));
  const model::TableDescriptor& table = *r.head.table;
  ASSIGN_OR_RETURN(ix, ResolveIndex(r));
  // With IndexName the key condition is on the index's key schema.
  const model::KeySchema& key = ix ? ix->key : table.key;
  std::optional<expr::KeyCondition> condition;
  if (key_text) {
    ASSIGN_OR_RETURN(bound, expr::KeyCondition::Bind(*key_text, key));
    condition = std::move(bound);
  } else {
    ASSIGN_OR_RETURN(legacy, LegacyKeyConditions(req, key, ph));
    condition = std::move(legacy);
  }
  RETURN_IF_ERROR(CheckPlaceholdersUsed(ph));
  if (filter) {
    // A Query's key attributes belong in its key condition, never its filter.
    for (const std::string& name : filter->TopLevelNames()) {
      if (key.Contains(name)) {
        return Error::Validation(
            "Filter Expression can only contain non-primary key attributes: Primary key "
            "attribute: " + name);
      }
    }
  }
  bool fetch_base = false;
  if (ix) {
    ASSIGN_OR_RETURN(fetch, CheckIndexAttributes(r, *ix, projection, filter));
    fetch_base = fetch;
  }
  ASSIGN_OR_RETURN(start, DecodeStartKey(req, table, ix));
  if (start) {
    bool inside = condition->Matches(key, *start);
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
  options.index = ix;
  options.fetch_base_items = fetch_base;
  ASSIGN_OR_RETURN(page, ops::Query(s.items.store(), table, *condition, forward.value_or(true),
                                    options));
  return RenderPage(r, page, projection, ix);
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
  RETURN_IF_ERROR(CheckNoMixing(req, {"AttributesToGet", "ScanFilter", "ConditionalOperator"},
                                {"ProjectionExpression", "FilterExpression"}));
  ASSIGN_OR_RETURN(ph, DecodePlaceholders(req));
  ASSIGN_OR_RETURN(projection, ParseProjection(req, ph));
  RETURN_IF_ERROR(CheckSelect(r, projection ? ProjectionField(req) : nullptr, /*query=*/false));
  ASSIGN_OR_RETURN(filter, ParseCondition(req, "FilterExpression", ph));
  if (!filter) {
    ASSIGN_OR_RETURN(legacy, LegacyCondition(req, "ScanFilter", ph));
    filter = std::move(legacy);
  }
  RETURN_IF_ERROR(CheckPlaceholdersUsed(ph));
  RETURN_IF_ERROR(Resolve(s, r.head));
  const model::TableDescriptor& table = *r.head.table;
  ASSIGN_OR_RETURN(ix, ResolveIndex(r));
  bool fetch_base = false;
  if (ix) {
    ASSIGN_OR_RETURN(fetch, CheckIndexAttributes(r, *ix, projection, filter));
    fetch_base = fetch;
  }
  ASSIGN_OR_RETURN(start, DecodeStartKey(req, table, ix));
  uint32_t seg = static_cast<uint32_t>(segment.value_or(0));
  uint32_t segs = static_cast<uint32_t>(total.value_or(1));
  auto start_segment = [&] {
    std::string item_key = ops::EncodedKey(table, *start);
    if (!ix) return ops::SegmentOfKey(item_key, segs);
    auto keys = index::IndexKeyOf(*ix, *start);
    return ops::SegmentOfHash(index::EntryHash(index::EntryKey(table.id, *ix, *keys, item_key)),
                              segs);
  };
  if (start && segs > 1 && start_segment() != seg) {
    return Error::Validation(
        "The provided Exclusive start key does not map to the provided Segment and "
        "TotalSegments values.");
  }
  ops::PageOptions options;
  options.filter = filter ? &*filter : nullptr;
  options.limit = r.limit;
  options.now_ms = s.clock.NowMs();
  options.exclusive_start_key = start ? &*start : nullptr;
  options.index = ix;
  options.fetch_base_items = fetch_base;
  ASSIGN_OR_RETURN(page, ops::Scan(s.items.store(), table, seg, segs, options));
  return RenderPage(r, page, projection, ix);
}

}  // namespace ttlstore::api
