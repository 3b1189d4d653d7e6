// UpdateTimeToLive and DescribeTimeToLive (rule D1, D12, D13). Enabling marks the table's
// expiry-index backfill pending in the same catalog write that turns TTL on, then waits for the
// backfill (ttl/backfill.h) at most kEnableWait: a crash at any moment leaves TTL enabled with
// the backfill pending, and the next start finishes it.
#include "api/handlers.h"
#include "api/item_common.h"
#include "ttl/backfill.h"

namespace ttlstore::api {
namespace {

// How long UpdateTimeToLive waits for the backfill before answering: well under the 60 s read
// timeout of the AWS SDKs, so that a client never retries an enable that worked.
constexpr std::chrono::milliseconds kEnableWait{10'000};

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
    uint32_t table_id = table->id;
    table.reset();  // the backfill waits until no request holds an older version
    if (s.ttl_backfiller) {
      // Most tables are indexed well within the wait, so the answer still means "every item
      // already expires"; a bigger one goes on in the background rather than outlast the
      // client's timeout (DescribeTimeToLive says ENABLED meanwhile, as the service does).
      s.ttl_backfiller->Enqueue(table_id);
      s.ttl_backfiller->WaitUntilDone(table_id, kEnableWait);
    } else {
      RETURN_IF_ERROR(ttl::ExpiryBackfiller(s.catalog, s.items).RunNow(table_id));
    }
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
