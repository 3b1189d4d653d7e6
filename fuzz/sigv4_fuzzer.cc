// The SigV4 verifier on hostile requests: the input becomes the request target, the
// Authorization / X-Amz-Date / x-amz-content-sha256 headers and the body (split at '\n').
// Any bytes in, never a crash; nothing but a correctly signed request may pass.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "auth/sigv4.h"

using namespace ttlstore;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static auth::Credentials* creds = [] {
    auto c = auth::Credentials::Parse("AKIDEXAMPLE wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY\n");
    return new auth::Credentials(*c);
  }();
  static auth::SigV4Verifier verifier(*creds);
  std::string_view in(reinterpret_cast<const char*>(data), size);
  std::vector<std::string_view> parts;
  for (int i = 0; i < 4; ++i) {
    size_t nl = in.find('\n');
    parts.push_back(in.substr(0, nl));
    in = nl == std::string_view::npos ? std::string_view() : in.substr(nl + 1);
  }
  auth::HeaderPairs headers = {{"Host", "127.0.0.1:8000"},
                               {"Authorization", parts[1]},
                               {"X-Amz-Date", parts[2]},
                               {"x-amz-content-sha256", parts[3]}};
  auth::SignedRequest request{"POST", parts[0], headers, in};
  (void)verifier.Verify(request, 1440938160000);
  auth::HeaderPairs no_auth = {{"Host", "h"}};
  auth::SignedRequest presigned{"POST", parts[0], no_auth, in};
  (void)verifier.Verify(presigned, 1440938160000);
  return 0;
}
