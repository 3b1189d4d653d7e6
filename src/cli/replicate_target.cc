#include "cli/replicate_target.h"

#include <boost/json.hpp>
#include <chrono>
#include <thread>

#include "client/json.h"

namespace ttlstore::cli {
namespace {

namespace json = boost::json;

Error Remote(const std::string& what, const client::CallResult& r) {
  return Error(r.error_type == "ResourceNotFoundException" ? ErrorCode::kResourceNotFound
                                                            : ErrorCode::kInternal,
               what + ": " + r.Describe());
}

void CopyIf(const json::object& from, json::object& to, std::string_view key) {
  if (const json::value* v = from.if_contains(key)) to[key] = *v;
}

std::string Str(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

json::object Throughput(const json::object& described) {
  json::object t;
  if (const json::value* p = described.if_contains("ProvisionedThroughput"); p && p->is_object()) {
    CopyIf(p->as_object(), t, "ReadCapacityUnits");
    CopyIf(p->as_object(), t, "WriteCapacityUnits");
  }
  return t;
}

bool AllActive(const json::object& table) {
  if (Str(table, "TableStatus") != "ACTIVE") return false;
  if (const json::value* g = table.if_contains("GlobalSecondaryIndexes"); g && g->is_array()) {
    for (const json::value& i : g->as_array()) {
      if (i.is_object() && Str(i.as_object(), "IndexStatus") != "ACTIVE") return false;
    }
  }
  return true;
}

// The TTL setting of `table` (DescribeTable does not carry it): the attribute when ENABLED or
// ENABLING, else "".
Result<std::string> TtlAttribute(client::DynamoDbClient& ddb, const std::string& table) {
  json::object req;
  req["TableName"] = table;
  client::CallResult r = ddb.Call("DescribeTimeToLive", json::serialize(req));
  if (!r.ok()) return Remote("DescribeTimeToLive " + table, r);
  auto doc = client::ParseJson(r.body);
  if (!doc) return doc.error();
  const json::value* d = client::Member(*doc, "TimeToLiveDescription");
  if (!d || !d->is_object()) return std::string();
  std::string status = Str(d->as_object(), "TimeToLiveStatus");
  if (status != "ENABLED" && status != "ENABLING") return std::string();
  return Str(d->as_object(), "AttributeName");
}

}  // namespace

Status CopyTtlSetting(client::DynamoDbClient& source_ddb, const std::string& source_table,
                      client::DynamoDbClient& target_ddb, const std::string& target_table) {
  ASSIGN_OR_RETURN(source_attr, TtlAttribute(source_ddb, source_table));
  if (source_attr.empty()) return Status::Ok();
  ASSIGN_OR_RETURN(target_attr, TtlAttribute(target_ddb, target_table));
  if (!target_attr.empty()) return Status::Ok();  // set already (by us before a restart, or by the user)
  json::object req;
  req["TableName"] = target_table;
  json::object spec;
  spec["Enabled"] = true;
  spec["AttributeName"] = source_attr;
  req["TimeToLiveSpecification"] = std::move(spec);
  client::CallResult u = target_ddb.Call("UpdateTimeToLive", json::serialize(req));
  if (!u.ok()) return Remote("UpdateTimeToLive " + target_table, u);
  return Status::Ok();
}

Result<TableDescription> DescribeTable(client::DynamoDbClient& ddb, const std::string& table) {
  json::object req;
  req["TableName"] = table;
  client::CallResult r = ddb.Call("DescribeTable", json::serialize(req));
  if (!r.ok()) return Remote("DescribeTable " + table + " at " + ddb.options().endpoint.Url(), r);
  auto doc = client::ParseJson(r.body);
  if (!doc) return doc.error();
  const json::value* t = client::Member(*doc, "Table");
  if (!t || !t->is_object()) return Error(ErrorCode::kInternal, "DescribeTable answered no Table");
  return t->as_object();
}

json::object CreateTableRequestFrom(const TableDescription& source, const std::string& target) {
  json::object req;
  req["TableName"] = target;
  CopyIf(source, req, "AttributeDefinitions");
  CopyIf(source, req, "KeySchema");
  std::string billing = "PROVISIONED";
  if (const json::value* b = source.if_contains("BillingModeSummary"); b && b->is_object()) {
    std::string mode = Str(b->as_object(), "BillingMode");
    if (!mode.empty()) billing = mode;
  }
  req["BillingMode"] = billing;
  bool provisioned = billing == "PROVISIONED";
  if (provisioned) req["ProvisionedThroughput"] = Throughput(source);
  if (const json::value* g = source.if_contains("GlobalSecondaryIndexes"); g && g->is_array()) {
    json::array out;
    for (const json::value& iv : g->as_array()) {
      if (!iv.is_object()) continue;
      const json::object& i = iv.as_object();
      json::object gi;
      CopyIf(i, gi, "IndexName");
      CopyIf(i, gi, "KeySchema");
      CopyIf(i, gi, "Projection");
      if (provisioned) gi["ProvisionedThroughput"] = Throughput(i);
      out.push_back(std::move(gi));
    }
    if (!out.empty()) req["GlobalSecondaryIndexes"] = std::move(out);
  }
  if (const json::value* l = source.if_contains("LocalSecondaryIndexes"); l && l->is_array()) {
    json::array out;
    for (const json::value& iv : l->as_array()) {
      if (!iv.is_object()) continue;
      json::object li;
      CopyIf(iv.as_object(), li, "IndexName");
      CopyIf(iv.as_object(), li, "KeySchema");
      CopyIf(iv.as_object(), li, "Projection");
      out.push_back(std::move(li));
    }
    if (!out.empty()) req["LocalSecondaryIndexes"] = std::move(out);
  }
  if (const json::value* s = source.if_contains("StreamSpecification"); s && s->is_object()) {
    const json::value* enabled = s->as_object().if_contains("StreamEnabled");
    if (enabled && enabled->is_bool() && enabled->as_bool()) req["StreamSpecification"] = *s;
  }
  if (const json::value* c = source.if_contains("TableClassSummary"); c && c->is_object()) {
    std::string cls = Str(c->as_object(), "TableClass");
    if (!cls.empty() && cls != "STANDARD") req["TableClass"] = cls;  // the default stays implicit
  }
  if (const json::value* d = source.if_contains("DeletionProtectionEnabled");
      d && d->is_bool() && d->as_bool()) {
    req["DeletionProtectionEnabled"] = true;
  }
  return req;
}

Result<TableDescription> WaitActive(client::DynamoDbClient& ddb, const std::string& table,
                                    int timeout_s, const std::atomic<bool>& stop) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  while (true) {
    auto t = DescribeTable(ddb, table);
    if (!t) return t.error();
    if (AllActive(*t)) return t;
    if (stop.load()) return Error(ErrorCode::kInternal, "stopped while waiting for " + table);
    if (std::chrono::steady_clock::now() > deadline) {
      return Error(ErrorCode::kInternal, "table " + table + " not ACTIVE after " +
                                             std::to_string(timeout_s) + " s");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

Status EnsureTarget(client::DynamoDbClient& source_ddb, const TableDescription& source,
                    client::DynamoDbClient& target_ddb, const std::string& target_table,
                    const std::atomic<bool>& stop, bool* created) {
  *created = false;
  auto existing = DescribeTable(target_ddb, target_table);
  if (existing) {
    const json::value* a = existing->if_contains("KeySchema");
    const json::value* b = source.if_contains("KeySchema");
    if (!a || !b || *a != *b) {
      return Error(ErrorCode::kValidation, "target table " + target_table +
                                               " exists with another key schema than the source");
    }
    auto active = WaitActive(target_ddb, target_table, 600, stop);
    if (!active) return active.error();
    // A restart after CreateTable but before UpdateTimeToLive finds the table without TTL.
    return CopyTtlSetting(source_ddb, Str(source, "TableName"), target_ddb, target_table);
  }
  if (existing.error().code() != ErrorCode::kResourceNotFound) return existing.error();
  client::CallResult r =
      target_ddb.Call("CreateTable", json::serialize(CreateTableRequestFrom(source, target_table)));
  if (!r.ok()) return Remote("CreateTable " + target_table, r);
  *created = true;
  auto active = WaitActive(target_ddb, target_table, 600, stop);
  if (!active) return active.error();
  return CopyTtlSetting(source_ddb, Str(source, "TableName"), target_ddb, target_table);
}

std::string NewImageStreamViewType(const TableDescription& source, std::string* why) {
  const json::value* s = source.if_contains("StreamSpecification");
  bool enabled = false;
  std::string view;
  if (s && s->is_object()) {
    const json::value* e = s->as_object().if_contains("StreamEnabled");
    enabled = e && e->is_bool() && e->as_bool();
    view = Str(s->as_object(), "StreamViewType");
  }
  if (!enabled || Str(source, "LatestStreamArn").empty()) {
    *why = "it has no stream";
    return "";
  }
  if (view != "NEW_IMAGE" && view != "NEW_AND_OLD_IMAGES") {
    *why = "its stream records " + view + ", not new images";
    return "";
  }
  return view;
}

Result<TableDescription> EnableSourceStream(client::DynamoDbClient& ddb, const std::string& table,
                                            const std::atomic<bool>& stop) {
  json::object req;
  req["TableName"] = table;
  json::object spec;
  spec["StreamEnabled"] = true;
  spec["StreamViewType"] = "NEW_AND_OLD_IMAGES";
  req["StreamSpecification"] = std::move(spec);
  client::CallResult r = ddb.Call("UpdateTable", json::serialize(req));
  if (!r.ok()) return Remote("UpdateTable " + table + " (enabling its stream)", r);
  return WaitActive(ddb, table, 600, stop);
}

}  // namespace ttlstore::cli
