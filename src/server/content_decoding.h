// Request bodies sent with `Content-Encoding` (the SDKs' request compression: gzip; deflate
// from hand-made clients). The size limit applies to the decoded body, and decoding stops as
// soon as it is passed, so a small compressed body (a "zip bomb") cannot make the server decode
// more than the limit.
//
// What the service answers (Scylla Alternator's test_compressed_request.py, run against it): a
// valid gzip body, including several gzip members one after the other, is served as if sent
// plain; an unknown encoding, a corrupt or truncated stream and an empty body are answered with
// HTTP 500. docs/compatibility.md, "The HTTP surface".
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace ttlstore::server {

enum class Decoding {
  kPlain,        // no Content-Encoding (or "identity"): the body is used as sent
  kDecoded,      // decoded into *out
  kTooLarge,     // the decoded body would pass the limit
  kUnsupported,  // an encoding other than gzip, deflate or identity
  kCorrupt,      // not a valid stream of that encoding (truncated, trailing bytes, empty)
};

// Decodes `body` as `content_encoding` says (case-insensitive; surrounding spaces ignored) into
// *out, holding it to `limit` decoded bytes. gzip: one or more gzip members; deflate: a zlib
// stream (RFC 1950) or, as some clients send it, raw deflate (RFC 1951).
Decoding DecodeContent(std::string_view content_encoding, std::string_view body, size_t limit,
                       std::string* out);

}  // namespace ttlstore::server
