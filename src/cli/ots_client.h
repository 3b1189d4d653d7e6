// OtsClient: a minimal synchronous client of the Tablestore protocol for the command line
// (`ttlstore alter`, `ttlstore describe`): one signed POST /<Action> with a protobuf body, the
// response body back, or the service's error.
#pragma once

#include <cstdint>
#include <string>

#include "common/result.h"
#include "tablestore/ots_error.h"

namespace ttlstore::cli {

struct OtsEndpoint {
  bool https = false;
  std::string host = "127.0.0.1";
  std::string port = "8000";
  std::string access_key_id = "local";
  std::string access_key_secret = "local";
  std::string instance = "ttlstore";

  // Parses "http[s]://host[:port][/]" (client/endpoint.h); false if it is not of that form.
  bool SetUrl(const std::string& url);
};

struct OtsCallResult {
  bool ok = false;
  std::string body;              // the response message when ok
  tablestore::OtsError error;    // when !ok (http_status 0: transport failure)
};

OtsCallResult CallOts(const OtsEndpoint& endpoint, const std::string& action,
                      const std::string& body);

}  // namespace ttlstore::cli
