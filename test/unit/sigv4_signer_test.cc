// The signer against AWS's published SigV4 test suite (aws-sig-v4-test-suite: get-vanilla,
// post-vanilla, get-vanilla-query-order-key-case, post-x-www-form-urlencoded; credentials
// AKIDEXAMPLE, 2015-08-30T12:36:00Z, us-east-1, service "service"), and a round trip through our
// own verifier with a session token.
#include "auth/sigv4_signer.h"

#include <gtest/gtest.h>

#include "auth/credentials.h"
#include "auth/sigv4.h"

namespace ttlstore::auth {
namespace {

constexpr char kSecret[] = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
constexpr int64_t kSignedAt = 1440938160000;  // 2015-08-30T12:36:00Z

SigningIdentity Suite() {
  SigningIdentity id;
  id.access_key_id = "AKIDEXAMPLE";
  id.secret_access_key = kSecret;
  id.region = "us-east-1";
  id.service = "service";
  return id;
}

std::string Sign(std::string_view method, std::string_view target, OwnedHeaders headers,
                 std::string_view body = "") {
  SignRequest(Suite(), method, target, headers, body, kSignedAt);
  return headers.back().second;
}

constexpr char kPrefix[] =
    "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, ";

TEST(SigV4Signer, GetVanilla) {
  EXPECT_EQ(Sign("GET", "/", {{"Host", "example.amazonaws.com"}}),
            std::string(kPrefix) + "SignedHeaders=host;x-amz-date, Signature="
                                   "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31");
}

TEST(SigV4Signer, PostVanilla) {
  EXPECT_EQ(Sign("POST", "/", {{"Host", "example.amazonaws.com"}}),
            std::string(kPrefix) + "SignedHeaders=host;x-amz-date, Signature="
                                   "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b");
}

TEST(SigV4Signer, QueryParametersAreSortedByKey) {
  EXPECT_EQ(Sign("GET", "/?Param2=value2&Param1=value1", {{"Host", "example.amazonaws.com"}}),
            std::string(kPrefix) + "SignedHeaders=host;x-amz-date, Signature="
                                   "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500");
}

TEST(SigV4Signer, SignsTheBodyAndContentType) {
  EXPECT_EQ(Sign("POST", "/",
                 {{"Content-Type", "application/x-www-form-urlencoded"},
                  {"Host", "example.amazonaws.com"}},
                 "Param1=value1"),
            std::string(kPrefix) + "SignedHeaders=content-type;host;x-amz-date, Signature="
                                   "ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a");
}

TEST(SigV4Signer, OurVerifierAcceptsWhatItSignsAndRefusesATamperedBody) {
  auto creds = Credentials::Parse(std::string("AKIDEXAMPLE ") + kSecret + "\n");
  ASSERT_TRUE(creds.ok());
  SigV4Verifier verifier(*creds);
  SigningIdentity id = Suite();
  id.service = "dynamodb";
  id.session_token = "FwoGZXIvYXdzEXAMPLE";
  OwnedHeaders headers = {{"Host", "127.0.0.1:8000"},
                          {"Content-Type", "application/x-amz-json-1.0"},
                          {"X-Amz-Target", "DynamoDB_20120810.ListTables"}};
  std::string body = "{}";
  SignRequest(id, "POST", "/", headers, body, kSignedAt);
  EXPECT_EQ(headers[4].first, "X-Amz-Security-Token");
  HeaderPairs views(headers.begin(), headers.end());
  EXPECT_TRUE(verifier.Verify({"POST", "/", views, body}, kSignedAt).ok());
  EXPECT_FALSE(verifier.Verify({"POST", "/", views, "{ }"}, kSignedAt).ok());
}

}  // namespace
}  // namespace ttlstore::auth
