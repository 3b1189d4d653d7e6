#include "server/content_decoding.h"
#include "common/ascii.h"

#include <zlib.h>

#include <algorithm>
#include <cctype>

namespace ttlstore::server {
namespace {

constexpr size_t kStep = 64 * 1024;  // decoded bytes added per inflate call

// zlib's window bits for each format.
constexpr int kGzip = 16 + MAX_WBITS;
constexpr int kZlib = MAX_WBITS;
constexpr int kRawDeflate = -MAX_WBITS;

// Inflates `in` into *out. `members`: a stream end followed by more input starts the next
// member (gzip allows several); otherwise trailing bytes make the stream corrupt. The output
// grows by at most kStep past what is decoded, and never past limit + 1 bytes.
Decoding Inflate(std::string_view in, int window_bits, bool members, size_t limit,
                 std::string* out) {
  out->clear();
  z_stream zs{};
  if (inflateInit2(&zs, window_bits) != Z_OK) return Decoding::kCorrupt;
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  Decoding result = Decoding::kCorrupt;
  while (true) {
    size_t used = out->size();
    size_t room = std::min(kStep, limit + 1 - used);
    out->resize(used + room);
    zs.next_out = reinterpret_cast<Bytef*>(out->data() + used);
    zs.avail_out = static_cast<uInt>(room);
    int rc = inflate(&zs, Z_NO_FLUSH);
    out->resize(used + (room - zs.avail_out));
    if (out->size() > limit) {
      result = Decoding::kTooLarge;
      break;
    }
    if (rc == Z_STREAM_END) {
      if (zs.avail_in == 0) {
        result = Decoding::kDecoded;
        break;
      }
      if (!members || inflateReset(&zs) != Z_OK) break;  // trailing bytes
      continue;  // the next member; bytes that are not one fail in inflate
    }
    // Z_OK: progress made. Z_BUF_ERROR with room left: the input ended inside the stream.
    if (rc == Z_OK || (rc == Z_BUF_ERROR && zs.avail_out == 0)) continue;
    break;  // Z_DATA_ERROR, Z_NEED_DICT, Z_MEM_ERROR, truncated input
  }
  inflateEnd(&zs);
  if (result != Decoding::kDecoded) out->clear();
  return result;
}

std::string Lower(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return AsciiLower(s);
}

}  // namespace

Decoding DecodeContent(std::string_view content_encoding, std::string_view body, size_t limit,
                       std::string* out) {
  std::string encoding = Lower(content_encoding);
  if (encoding.empty() || encoding == "identity") return Decoding::kPlain;
  if (encoding == "gzip" || encoding == "x-gzip") {
    return Inflate(body, kGzip, /*members=*/true, limit, out);
  }
  if (encoding == "deflate") {
    Decoding d = Inflate(body, kZlib, /*members=*/false, limit, out);
    if (d == Decoding::kCorrupt) d = Inflate(body, kRawDeflate, /*members=*/false, limit, out);
    return d;
  }
  return Decoding::kUnsupported;
}

}  // namespace ttlstore::server
