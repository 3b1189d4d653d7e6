// OtsClient: a minimal synchronous client of the Tablestore protocol for the command line
// (`ttlstore alter`, `ttlstore describe`): one signed POST /<Action> with a protobuf body, the
// response body back, or the service's error.
#pragma once

#include <cstdint>
#include <string>

#include "cli/http_post.h"
#include "common/result.h"
#include "tablestore/ots_error.h"

namespace ttlstore::cli {

struct OtsEndpoint : HttpEndpoint {
  std::string access_key_id = "local";
  std::string access_key_secret = "local";
  std::string instance = "ttlstore";
};

struct OtsCallResult {
  bool ok = false;
  std::string body;              // the response message when ok
  tablestore::OtsError error;    // when !ok (http_status 0: transport failure)
};

OtsCallResult CallOts(const OtsEndpoint& endpoint, const std::string& action,
                      const std::string& body);

}  // namespace ttlstore::cli
