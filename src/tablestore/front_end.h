// The Tablestore front end's entry point: one HTTP request (POST /<Action> with a protobuf body)
// in, one response out. It verifies the request signature and content MD5 (tablestore/signing.h),
// dispatches to the operation's handler, turns errors into protobuf Error bodies with the
// service's codes and statuses, and adds the response headers the SDKs check, signed with the
// caller's secret (tablestore-protocol.md sections 1.2, 1.4, 3).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tablestore/ots_error.h"
#include "tablestore/services.h"

namespace ttlstore::tablestore {

struct HttpResponse {
  int status = 200;
  std::string body;
  // Extra header lines, each "Name: value\r\n".
  std::string headers;
  // For metrics and logs: the action, or "unknown" for one not served.
  std::string action;
  std::string error_code;
  std::string error_message;
};

using HeaderList = std::vector<std::pair<std::string, std::string>>;

// The service's cap on a request body (5 MB); a larger one is refused with 413
// OTSRequestBodyTooLarge before it is verified or parsed (docs/limits.md).
inline constexpr size_t kMaxRequestBodyBytes = 5 * 1024 * 1024;

// The answer to a request whose body is over kMaxRequestBodyBytes, for a caller that stopped
// reading it (the HTTP server refuses bodies over 16 MiB from their headers).
HttpResponse BodyTooLarge(const Services& s, std::string_view target, const HeaderList& headers);

// A body the client sent compressed (the Java SDK's request compression:
// `x-ots-request-compress-type: deflate` with `x-ots-request-compress-size`), as the HTTP layer
// decoded it: the decoded bytes, or the error to answer once the request is verified.
struct DecodedBody {
  std::string bytes;
  std::optional<OtsError> error;
};

// `headers`: the request's x-ots-* headers (any case), as received. `body`: the bytes as sent,
// which the content MD5 covers; `decoded`, when the client compressed them, what is parsed.
HttpResponse HandleRequest(const Services& s, std::string_view method, std::string_view target,
                           const HeaderList& headers, std::string_view body,
                           const DecodedBody* decoded = nullptr);

}  // namespace ttlstore::tablestore
