// Resource tags as the service checks them (TagResource, UntagResource, CreateTable's Tags), and
// the ResourceArn of the tagging calls.
//
// Rules and texts: the developer guide's "Tagging restrictions in DynamoDB" (at most 50 tags a
// resource; keys 1-128 and values 0-256 Unicode characters; letters, numbers and spaces of any
// script plus + - = . _ : / @; the aws: prefix reserved) and a catalogue of the service's live
// answers (us-west-2 / us-east-1, 2026-10) for the message texts: docs/compatibility.md, "Tags".
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <rapidjson/document.h>

#include "common/result.h"
#include "model/table.h"

namespace ttlstore::api {

// Tags: [{"Key": k, "Value": v}] into tags; a member of the wrong JSON type is a
// SerializationException, a missing Key or Value the service's "The Tag Key provided is
// invalid, Key: null" (resp. Value), and every key and value is held to the rules above.
// Duplicate keys are refused.
Result<std::vector<model::Tag>> DecodeTags(const rapidjson::Value& tags);

// One tag key as TagResource and UntagResource check it.
Status CheckTagKey(std::string_view key);

// The text of the service's refusal of more than 50 tags on one resource.
inline constexpr char kTooManyTags[] =
    "Number of Tags exceed the current limit for the provided ResourceArn";

// The parts of a ResourceArn "arn:aws:dynamodb:<region>:<account>:table/<name>".
struct TableArnParts {
  std::string region;
  std::string account;
  std::string table;
};

// Parses a tagging call's ResourceArn, refusing it as the service does: not an ARN, not a
// DynamoDB ARN, not a table (an index ARN), or a table name the service would not accept.
Result<TableArnParts> ParseTableArn(const std::string& arn);

}  // namespace ttlstore::api
