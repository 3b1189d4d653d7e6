// The Tablestore protocol's authentication against the vectors in the protocol notes (section
// 1.2 request, 1.4 response), and VerifyRequest's checks with the service's codes.
#include "tablestore/signing.h"

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

namespace ttlstore::tablestore {
namespace {

Headers NodePutRowHeaders() {
  return {
      {"x-ots-apiversion", "2015-12-31"},
      {"x-ots-instancename", "my-local_inst1"},
      {"x-ots-contentmd5", "b/ORe5b+03Z8LG0X0TtScQ=="},
      {"Host", "127.0.0.1"},
      {"x-ots-date", "2026-11-22T03:32:11.732Z"},
      {"x-ots-accesskeyid", "testAccessKeyId"},
      {"x-ots-signature", "1OgaOUFFdj9stPnyocHQxPPvFRg="},
  };
}

TEST(TablestoreSigning, RequestVectorCapturedFromTheNodeSdk) {
  std::string to_sign = RequestStringToSign("PutRow", NodePutRowHeaders());
  EXPECT_EQ(to_sign,
            "/PutRow\nPOST\n\nx-ots-accesskeyid:testAccessKeyId\nx-ots-apiversion:2015-12-31\n"
            "x-ots-contentmd5:b/ORe5b+03Z8LG0X0TtScQ==\nx-ots-date:2026-11-22T03:32:11.732Z\n"
            "x-ots-instancename:my-local_inst1\n");
  EXPECT_EQ(HmacSha1Base64("testSecret", to_sign), "1OgaOUFFdj9stPnyocHQxPPvFRg=");
}

TEST(TablestoreSigning, HeaderNamesAreCaseInsensitiveAndValuesTrimmed) {
  Headers h = NodePutRowHeaders();
  h[0] = {"X-OTS-APIVersion", "  2015-12-31 "};
  EXPECT_EQ(HmacSha1Base64("testSecret", RequestStringToSign("PutRow", h)),
            "1OgaOUFFdj9stPnyocHQxPPvFRg=");
}

TEST(TablestoreSigning, ResponseVector) {
  Headers h = {
      {"x-ots-contentmd5", "1B2M2Y8AsgTpgAmY7PhCfg=="},
      {"x-ots-contenttype", "protocol buffer"},
      {"x-ots-date", "2024-01-01T00:00:00.000000Z"},
      {"x-ots-requestid", "00000000-0000-0000-0000-000000000001"},
  };
  EXPECT_EQ(ResponseAuthorization("id", "testSecret", "CreateTable", h),
            "OTS id:28o53UwNe2WzR/6UQSualwFLkus=");
}

TEST(TablestoreSigning, ContentMd5OfEmptyBody) {
  EXPECT_EQ(ContentMd5(""), "1B2M2Y8AsgTpgAmY7PhCfg==");
}

TEST(TablestoreSigning, DatesParseLenientlyAndFormatWithMicroseconds) {
  const int64_t expected = 1795318331000;  // 2026-11-22T03:32:11Z
  for (const char* d : {"2026-11-22T03:32:11.732Z", "2026-11-22T03:32:11.000Z",
                        "2026-11-22T03:32:11Z", "2026-11-22T03:32:11.123456789Z"}) {
    auto ms = ParseOtsDate(d);
    ASSERT_TRUE(ms.ok()) << d;
    EXPECT_EQ(*ms, expected) << d;
  }
  for (const char* d : {"", "2026-11-22 03:32:11Z", "2026-13-22T03:32:11Z", "2026-11-22T03:32:11",
                        "Sun, 22 Nov 2026 03:32:11 GMT"}) {
    auto ms = ParseOtsDate(d);
    ASSERT_FALSE(ms.ok()) << d;
    EXPECT_EQ(ms.error().message(), std::string("Invalid date format: ") + d + ".");
  }
  EXPECT_EQ(FormatOtsDate(1599640631680), "2020-09-09T08:37:11.680000Z");
}

TEST(TablestoreSigning, CredentialsFile) {
  auto c = Credentials::Parse("# keys\n\n  a  s1 \nb s2\n");
  ASSERT_TRUE(c.ok());
  ASSERT_NE(c->SecretFor("a"), nullptr);
  EXPECT_EQ(*c->SecretFor("a"), "s1");
  EXPECT_EQ(c->SecretFor("c"), nullptr);
  EXPECT_FALSE(Credentials::Parse("only-one-field\n").ok());
  EXPECT_FALSE(Credentials::Parse("a b c\n").ok());
}

class VerifyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto c = Credentials::Parse("testAccessKeyId testSecret\n");
    ASSERT_TRUE(c.ok());
    creds_ = *c;
  }
  // A request signed like the Node SDK, at `now_`.
  Headers Signed(const std::string& body, const std::string& secret = "testSecret") {
    Headers h = {{"x-ots-date", FormatOtsDate(now_)},
                 {"x-ots-apiversion", "2015-12-31"},
                 {"x-ots-accesskeyid", "testAccessKeyId"},
                 {"x-ots-instancename", "i"},
                 {"x-ots-contentmd5", ContentMd5(body)}};
    h.push_back({"x-ots-signature", HmacSha1Base64(secret, RequestStringToSign("GetRow", h))});
    return h;
  }
  std::optional<OtsError> Verify(const Headers& h, const std::string& body,
                                 const Credentials* c) {
    return VerifyRequest(c, "GetRow", h, body, now_, &secret_);
  }
  Credentials creds_;
  int64_t now_ = 1795318331000;
  std::string secret_;
};

TEST_F(VerifyTest, AcceptsAGoodSignature) {
  EXPECT_FALSE(Verify(Signed("body"), "body", &creds_).has_value());
  EXPECT_EQ(secret_, "testSecret");
}

TEST_F(VerifyTest, RefusesWithTheServiceCodes) {
  auto e = Verify(Signed("body", "wrong"), "body", &creds_);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->http_status, 403);
  EXPECT_EQ(e->code, "OTSAuthFailed");
  EXPECT_EQ(e->message, "Signature mismatch.");

  e = Verify(Signed("body"), "other body", &creds_);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->message,
            "Mismatch between MD5 value of request body and x-ots-contentmd5 in header.");

  Headers h = Signed("body");
  h[2].second = "nobody";
  e = Verify(h, "body", &creds_);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->code, "OTSAuthFailed");
  EXPECT_TRUE(secret_.empty());

  h = Signed("body");
  h.erase(h.begin() + 1);
  e = Verify(h, "body", &creds_);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->http_status, 400);
  EXPECT_EQ(e->code, "OTSParameterInvalid");
  EXPECT_EQ(e->message, "Missing header: x-ots-apiversion.");

  h = Signed("body");
  h[0].second = "yesterday";
  e = Verify(h, "body", &creds_);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->message, "Invalid date format: yesterday.");

  h = Signed("body");
  now_ += 16 * 60 * 1000;
  e = Verify(h, "body", &creds_);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->http_status, 403);
  EXPECT_TRUE(e->message.starts_with("Mismatch between system time and x-ots-date: 20"))
      << e->message;
}

TEST(TablestoreSigning, V4SigningKeyVector) {
  // tablestore-protocol.md 1.3, recomputed with Python's hmac: secret testSecret, 20240101,
  // cn-hangzhou.
  EXPECT_EQ(V4SigningKey("testSecret", "20240101", "cn-hangzhou"),
            "C2fnhRmbR+sDWsDhpFvrxM5By7JKHCgbTKO04UCTDwE=");
}

TEST_F(VerifyTest, V4SignaturesAreVerifiedAndTheDerivedKeySignsTheAnswer) {
  // 1795318331000 ms is 2026-11-22 (UTC).
  auto signed_v4 = [&](const std::string& date, const std::string& secret) {
    Headers h = {{"x-ots-date", FormatOtsDate(now_)},
                 {"x-ots-apiversion", "2015-12-31"},
                 {"x-ots-accesskeyid", "testAccessKeyId"},
                 {"x-ots-instancename", "i"},
                 {"x-ots-contentmd5", ContentMd5("body")},
                 {"x-ots-signdate", date},
                 {"x-ots-signregion", "cn-hangzhou"}};
    std::string key = V4SigningKey(secret, date, "cn-hangzhou");
    unsigned char mac[64];
    unsigned int len = 0;
    std::string text = RequestStringToSign("GetRow", h, "x-ots-signaturev4") + "ots";
    HMAC(EVP_sha256(), key.data(), int(key.size()),
         reinterpret_cast<const unsigned char*>(text.data()), text.size(), mac, &len);
    std::string sig(4 * ((len + 2) / 3), '\0');
    sig.resize(EVP_EncodeBlock(reinterpret_cast<unsigned char*>(sig.data()), mac, int(len)));
    h.push_back({"x-ots-signaturev4", sig});
    return h;
  };
  EXPECT_FALSE(Verify(signed_v4("20261122", "testSecret"), "body", &creds_).has_value());
  EXPECT_EQ(secret_, V4SigningKey("testSecret", "20261122", "cn-hangzhou"));
  // A day on either side is accepted; further is not.
  EXPECT_FALSE(Verify(signed_v4("20261121", "testSecret"), "body", &creds_).has_value());
  EXPECT_FALSE(Verify(signed_v4("20261123", "testSecret"), "body", &creds_).has_value());
  auto e = Verify(signed_v4("20261120", "testSecret"), "body", &creds_);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->message, "Invalid x-ots-signdate: 20261120.");
  e = Verify(signed_v4("20261122", "wrong"), "body", &creds_);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->code, "OTSAuthFailed");
  EXPECT_EQ(e->message, "Signature mismatch.");
  Headers h = signed_v4("20261122", "testSecret");
  h.erase(h.begin() + 6);  // no region
  e = Verify(h, "body", &creds_);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->message, "Missing header: x-ots-signregion.");
}

TEST_F(VerifyTest, WithoutCredentialsAnyKeyPassesButTheMd5IsChecked) {
  Headers h = Signed("body", "anything");
  EXPECT_FALSE(Verify(h, "body", nullptr).has_value());
  EXPECT_TRUE(Verify(h, "tampered", nullptr).has_value());
}

}  // namespace
}  // namespace ttlstore::tablestore
