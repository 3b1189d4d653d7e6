#include "api/batch_names.h"

#include <string>
#include <string_view>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace ttlstore::api {
namespace {

bool BatchTableName(std::string_view name) {
  if (name.size() < 3 || name.size() > 255) return false;
  for (char ch : name) {
    const bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                    (ch >= '0' && ch <= '9') || ch == '_' || ch == '.' || ch == '-';
    if (!ok) return false;
  }
  return true;
}

std::string Compact(const rapidjson::Value& v) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  v.Accept(w);
  return std::string(buf.GetString(), buf.GetSize());
}

// An attribute value as the Java SDK prints it: AttributeValue(S=a), AttributeValue(M={...}).
std::string JavaValue(const rapidjson::Value& v);

std::string JavaMap(const rapidjson::Value& m) {
  if (!m.IsObject()) return Compact(m);
  std::string out = "{";
  for (const auto& member : m.GetObject()) {
    if (out.size() > 1) out += ", ";
    out += std::string(member.name.GetString(), member.name.GetStringLength()) + "=" +
           JavaValue(member.value);
  }
  return out + "}";
}

std::string JavaValue(const rapidjson::Value& v) {
  if (!v.IsObject() || v.MemberCount() != 1) return Compact(v);
  const auto& member = *v.MemberBegin();
  std::string type(member.name.GetString(), member.name.GetStringLength());
  std::string value;
  if (member.value.IsString()) {
    value = std::string(member.value.GetString(), member.value.GetStringLength());
  } else if (type == "M") {
    value = JavaMap(member.value);
  } else if (type == "L" && member.value.IsArray()) {
    value = "[";
    for (const auto& e : member.value.GetArray()) {
      value += (value.size() > 1 ? ", " : "") + JavaValue(e);
    }
    value += "]";
  } else {
    value = Compact(member.value);
  }
  return "AttributeValue(" + type + "=" + value + ")";
}

std::string JavaWriteRequests(const rapidjson::Value& items) {
  std::string out = "{";
  for (const auto& t : items.GetObject()) {
    if (out.size() > 1) out += ", ";
    out += std::string(t.name.GetString(), t.name.GetStringLength()) + "=[";
    if (t.value.IsArray()) {
      bool first = true;
      for (const auto& request : t.value.GetArray()) {
        out += first ? "" : ", ";
        first = false;
        const rapidjson::Value* put = request.IsObject() ? Field(request, "PutRequest") : nullptr;
        const rapidjson::Value* del =
            request.IsObject() ? Field(request, "DeleteRequest") : nullptr;
        if (put && put->IsObject()) {
          const rapidjson::Value* item = Field(*put, "Item");
          out += "WriteRequest(putRequest=PutRequest(item=" + (item ? JavaMap(*item) : "null") +
                 "))";
        } else if (del && del->IsObject()) {
          const rapidjson::Value* key = Field(*del, "Key");
          out += "WriteRequest(deleteRequest=DeleteRequest(key=" +
                 (key ? JavaMap(*key) : "null") + "))";
        } else {
          out += "WriteRequest()";
        }
      }
    }
    out += "]";
  }
  return out + "}";
}

}  // namespace

void CheckBatchTableNames(const rapidjson::Value& items, bool writes, Constraints& c) {
  if (!items.IsObject()) return;
  bool bad = false;
  for (const auto& t : items.GetObject()) {
    bad = bad || !BatchTableName(std::string_view(t.name.GetString(), t.name.GetStringLength()));
  }
  if (!bad) return;
  c.Add("Value '" + (writes ? JavaWriteRequests(items) : Compact(items)) +
        "' at 'requestItems' failed to satisfy constraint: Map keys must satisfy constraint: "
        "[Member must have length less than or equal to 255, Member must have length greater "
        "than or equal to 3, Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+]");
}

}  // namespace ttlstore::api
