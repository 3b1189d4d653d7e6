// UpdateTimeToLive and DescribeTimeToLive (rule D1, D12, D13). Enabling indexes the items the
// table already has before answering, so they expire too.
#include "api/handlers.h"
#include "api/item_common.h"
#include "ttl/backfill.h"

namespace ttlstore::api {
namespace {

Result<std::string> TableNameOf(const rapidjson::Value& req) {
  ASSIGN_OR_RETURN(name, OptString(req, "TableName"));
  Constraints c;
  c.NotNull("tableName", name.has_value());
  c.TableName("tableName", name, 3);
  if (!c.ok()) return c.ToError();
  return std::move(*name);
}

}  // namespace

Result<std::string> UpdateTimeToLive(const Services& s, const rapidjson::Value& req) {
  ASSIGN_OR_RETURN(spec, OptObject(req, "TimeToLiveSpecification"));
  Constraints c;
  c.NotNull("timeToLiveSpecification", spec != nullptr);
  std::optional<bool> enabled;
  std::optional<std::string> attribute;
  if (spec) {
    ASSIGN_OR_RETURN(e, OptBool(*spec, "Enabled"));
    ASSIGN_OR_RETURN(a, OptString(*spec, "AttributeName"));
    enabled = e;
    attribute = std::move(a);
    c.NotNull("timeToLiveSpecification.enabled", enabled.has_value());
    c.NotNull("timeToLiveSpecification.attributeName", attribute.has_value());
    c.Length("timeToLiveSpecification.attributeName", attribute, 1, 255);
  }
  if (!c.ok()) return c.ToError();
  ASSIGN_OR_RETURN(name, TableNameOf(req));
  ASSIGN_OR_RETURN(table, s.catalog.SetTimeToLive(name, *enabled, *attribute));
  if (*enabled) {
    // A write that looked the table up before TTL was on adds no expiry entry; once no request
    // holds such a version, every write keeps the index and the backfill covers the rest.
    s.catalog.WaitForOlderVersions(table->id);
    RETURN_IF_ERROR(ttl::BackfillExpiryIndex(s.items, *table));
  }
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  w.Key("TimeToLiveSpecification");
  w.StartObject();
  w.Key("Enabled");
  w.Bool(*enabled);
  w.Key("AttributeName");
  WriteString(w, *attribute);
  w.EndObject();
  w.EndObject();
  return Finish(buf);
}

Result<std::string> DescribeTimeToLive(const Services& s, const rapidjson::Value& req) {
  ASSIGN_OR_RETURN(name, TableNameOf(req));
  ops::TablePtr table = s.catalog.Find(name);
  if (!table) {
    return Error::ResourceNotFound("Requested resource not found: Table: " + name + " not found");
  }
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  w.Key("TimeToLiveDescription");
  w.StartObject();
  w.Key("TimeToLiveStatus");
  w.String(table->ttl_enabled ? "ENABLED" : "DISABLED");
  if (table->ttl_enabled) {
    w.Key("AttributeName");
    WriteString(w, table->ttl_attribute);
  }
  w.EndObject();
  w.EndObject();
  return Finish(buf);
}

}  // namespace ttlstore::api
