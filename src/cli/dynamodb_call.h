// CallDynamoDb: one DynamoDB API call from the command line (`ttlstore export` / `ttlstore
// import` against a running server): a SigV4-signed POST / with X-Amz-Target
// DynamoDB_20120810.<Operation> and a JSON body; the response body, or the error's type and
// message. The one place the CLI's online mode talks HTTP, so it can move to a shared client.
//
// The CLI does not include the JSON library (only api/ does): the few response members it reads
// are found with JsonMemberText, which reads the first member of that name anywhere in the body,
// bounded by the body's size.
#pragma once

#include <optional>
#include <string>

#include "cli/http_post.h"

namespace ttlstore::cli {

struct DynamoDbEndpoint : HttpEndpoint {
  std::string access_key_id = "local";
  std::string secret_access_key = "local";
  std::string region = "us-east-1";
};

struct DynamoDbReply {
  bool ok = false;
  std::string body;        // the response when ok
  std::string error_type;  // e.g. "ValidationException"; "ConnectionError" if unreachable
  std::string message;
};

DynamoDbReply CallDynamoDb(const DynamoDbEndpoint& endpoint, const std::string& operation,
                           const std::string& json_body);

// The text of the first member named `name` in `json`: a string's unescaped characters (\uXXXX
// escapes beyond ASCII are kept as written), or a number's or literal's characters; nullopt if
// there is none.
std::optional<std::string> JsonMemberText(const std::string& json, const std::string& name);

// `s` as a JSON string literal, quotes included.
std::string JsonQuote(const std::string& s);

}  // namespace ttlstore::cli
