#include "server/health.h"

#include "api/json_writer.h"

namespace ttlstore::server {

Response HealthResponse(const storage::Store& store) {
  Response out;
  out.content_type = "application/json";
  // A point read of a key that need not exist: one round trip to the database.
  auto read = store.Get(storage::Family::kLeases, std::string_view("health"));
  if (read) {
    out.body = R"({"status":"ok","storage":"reachable"})";
    return out;
  }
  out.status = 503;
  rapidjson::StringBuffer buffer;
  api::JsonWriter w(buffer);
  w.StartObject();
  w.Key("status");
  w.String("unavailable");
  w.Key("storage");
  w.String("unreachable");
  w.Key("message");
  const std::string& message = read.error().message();
  w.String(message.c_str(), static_cast<rapidjson::SizeType>(message.size()));
  w.EndObject();
  out.body.assign(buffer.GetString(), buffer.GetSize());
  return out;
}

}  // namespace ttlstore::server
