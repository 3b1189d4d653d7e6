// The headers the DynamoDB service puts on its responses, and how it answers CORS.
//
// A response of the service carries `Server: Server`, `Date`, `x-amzn-RequestId` (52 characters of
// [A-Z0-9]) and, when it has a body, `x-amz-crc32` (the CRC-32 of the body; the SDKs check it). A
// request with an `Origin` header gets `Access-Control-Allow-Origin: *` and the exposed headers; a
// preflight (OPTIONS with Origin) is answered 200 with no body, echoing the requested method and
// headers as allowed, with a max age of two days. Sources: a capture of the service's preflight
// answer (AWS SDK team's CORS survey, 2021: `Server: Server`, the expose list, `Max-Age: 172800`),
// dynalite's connection tests (validated against the service) and Scylla Alternator's
// test_cors.py (run against the service): docs/compatibility.md, "The HTTP surface".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ttlstore::server {

// Appends 52 random characters of [A-Z0-9], the shape of the service's request ids.
void AppendRequestId(std::string* out);

// zlib's CRC-32 of `s` (the polynomial of the service's x-amz-crc32).
uint32_t Crc32(std::string_view s);

// Appends the current time as an HTTP date (IMF-fixdate, "Tue, 16 Feb 2021 17:30:27 GMT").
// Formats at most once a second per thread.
void AppendHttpDate(std::string* out);
// The same for a given time, in seconds since the epoch (for tests).
std::string FormatHttpDate(int64_t epoch_seconds);

// What a request asks of CORS.
struct CorsRequest {
  std::string_view origin;           // the Origin header; empty: not a CORS request
  std::string_view request_method;   // Access-Control-Request-Method (preflight only)
  std::string_view request_headers;  // Access-Control-Request-Headers (preflight only)
};

// The headers expose to a page's script: those the SDKs read from a response.
inline constexpr std::string_view kCorsExposeHeaders =
    "x-amzn-RequestId,x-amzn-ErrorType,x-amzn-ErrorMessage,Date";
// How long a browser may cache a preflight answer, in seconds.
inline constexpr int kCorsMaxAgeSeconds = 172800;

// Appends the CORS header lines ("Name: value\r\n") for a response to `request`: nothing when it
// has no Origin; the preflight's allow lines and max age only when `preflight`. Header values
// that could split the response (CR, LF, NUL) are dropped rather than echoed.
void AppendCorsHeaders(const CorsRequest& request, bool preflight, std::string* out);

}  // namespace ttlstore::server
