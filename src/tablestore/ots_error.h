// OtsError: an error as the Tablestore protocol reports it: an HTTP status and a protobuf Error
// body with the service's code string and message (tablestore-protocol.md section 3).
#pragma once

#include <string>

namespace ttlstore::tablestore {

struct OtsError {
  int http_status = 400;
  std::string code;
  std::string message;
};

}  // namespace ttlstore::tablestore
