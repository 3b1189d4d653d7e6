// The tagging calls: TagResource, UntagResource, ListTagsOfResource. Tag and ARN rules in
// tags.h; the merge (and the 50-tag limit over old and new tags) in ops/table_ops.
#include "api/handlers.h"
#include "api/request.h"
#include "api/tags.h"

namespace ttlstore::api {
namespace {

std::string Finish(const rapidjson::StringBuffer& buf) { return {buf.GetString(), buf.GetSize()}; }

// How each tagging call reports a table that is not there (or not in this account).
enum class MissingTable { kNotFoundArn, kNotFound, kAccessDenied };

// Resolves ResourceArn "arn:aws:dynamodb:<region>:<account>:table/<name>" to a table. An ARN of
// another region is refused as malformed, as the service refuses it; one of another account is
// a missing table.
Result<ops::TablePtr> TableForArn(const Services& s, const rapidjson::Value& req,
                                  const char* action, MissingTable missing) {
  ASSIGN_OR_RETURN(arn, OptString(req, "ResourceArn"));
  Constraints c;
  c.NotNull("resourceArn", arn.has_value());
  if (!c.ok()) return c.ToError();
  ASSIGN_OR_RETURN(parts, ParseTableArn(*arn));
  if (parts.region != s.region) {
    return Error::Validation("Invalid TableArn: Invalid ResourceArn provided as input " + *arn);
  }
  ops::TablePtr table;
  if (parts.account == s.account_id) table = s.catalog.Find(parts.table);
  if (table) return table;
  switch (missing) {
    case MissingTable::kNotFoundArn:
      return Error::ResourceNotFound("Requested resource not found: ResourcArn: " + *arn +
                                     " not found");
    case MissingTable::kNotFound:
      return Error::ResourceNotFound("Requested resource not found");
    case MissingTable::kAccessDenied:
      return Error(ErrorCode::kAccessDenied, "User: arn:aws:iam::" + s.account_id +
                                                 ":root is not authorized to perform: dynamodb:" +
                                                 action + " on resource: " + *arn);
  }
  return Error::ResourceNotFound("Requested resource not found");
}

}  // namespace

Result<std::string> TagResource(const Services& s, const rapidjson::Value& req) {
  Constraints c;
  ASSIGN_OR_RETURN(tags_json, OptArray(req, "Tags"));
  c.NotNull("tags", tags_json != nullptr);
  if (!c.ok()) return c.ToError();
  ASSIGN_OR_RETURN(tags, DecodeTags(*tags_json));
  if (tags.empty()) return Error::Validation("Atleast one Tag needs to be provided as Input.");
  ASSIGN_OR_RETURN(table, TableForArn(s, req, "TagResource", MissingTable::kNotFoundArn));
  RETURN_IF_ERROR(s.catalog.Tag(table->name, tags));
  return std::string();  // no output shape: an empty body (docs/compatibility.md, "Tags")
}

Result<std::string> UntagResource(const Services& s, const rapidjson::Value& req) {
  Constraints c;
  ASSIGN_OR_RETURN(keys_json, OptArray(req, "TagKeys"));
  c.NotNull("tagKeys", keys_json != nullptr);
  if (!c.ok()) return c.ToError();
  std::vector<std::string> keys;
  for (const auto& k : keys_json->GetArray()) {
    if (!k.IsString()) return Error::Serialization("Unexpected field type");
    keys.emplace_back(k.GetString(), k.GetStringLength());
  }
  if (keys.empty()) return Error::Validation("Atleast one Tag Key needs to be provided as Input.");
  for (const auto& key : keys) RETURN_IF_ERROR(CheckTagKey(key));
  if (keys.size() > 50) return Error::Validation(kTooManyTags);
  ASSIGN_OR_RETURN(table, TableForArn(s, req, "UntagResource", MissingTable::kNotFound));
  RETURN_IF_ERROR(s.catalog.Untag(table->name, keys));
  return std::string();  // no output shape, as TagResource
}

Result<std::string> ListTagsOfResource(const Services& s, const rapidjson::Value& req) {
  ASSIGN_OR_RETURN(table,
                   TableForArn(s, req, "ListTagsOfResource", MissingTable::kAccessDenied));
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  w.Key("Tags");
  w.StartArray();
  for (const auto& tag : table->tags) {
    w.StartObject();
    w.Key("Key");
    WriteString(w, tag.key);
    w.Key("Value");
    WriteString(w, tag.value);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return Finish(buf);
}

}  // namespace ttlstore::api
