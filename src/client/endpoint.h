// Endpoint: where a client command sends its requests, parsed from a URL the user typed
// ("http://127.0.0.1:8000", "https://dynamodb.eu-west-1.amazonaws.com"). Used by the DynamoDB
// client (client/dynamodb_client.h) and the Tablestore one (cli/ots_client.h).
#pragma once

#include <string>

#include "common/result.h"

namespace ttlstore::client {

struct Endpoint {
  bool https = false;
  std::string host = "127.0.0.1";
  std::string port = "8000";

  // "host" or "host:port" as the Host header carries it (the port only when not the scheme's).
  std::string HostHeader() const;
  std::string Url() const;
};

// The region an AWS endpoint's host names ("dynamodb.eu-west-1.amazonaws.com",
// "streams.dynamodb.eu-west-1.amazonaws.com", ".amazonaws.com.cn"), or "" for any other host.
std::string RegionOfHost(const std::string& host);

// Parses "http[s]://host[:port][/]": no path, query, user info or empty port. The error message
// says what is wrong with the URL.
Result<Endpoint> ParseEndpoint(const std::string& url);

}  // namespace ttlstore::client
