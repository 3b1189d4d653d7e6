// libFuzzer target: the decoder of compressed request bodies (server/content_decoding.h).
// Input: the first byte picks the Content-Encoding (gzip, deflate, or an unknown one), the rest is
// the body. Checks that a decoded body never passes the limit and that a failure leaves nothing.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "server/content_decoding.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static constexpr std::string_view kEncodings[] = {"gzip", "deflate", "GZIP", "identity", "br"};
  std::string_view encoding = kEncodings[data[0] % 5];
  std::string_view body(reinterpret_cast<const char*>(data + 1), size - 1);
  constexpr size_t kLimit = 1 << 20;
  std::string out;
  using ttlstore::server::Decoding;
  Decoding d = ttlstore::server::DecodeContent(encoding, body, kLimit, &out);
  if (out.size() > kLimit) std::abort();
  if (d != Decoding::kDecoded && !out.empty()) std::abort();
  return 0;
}
