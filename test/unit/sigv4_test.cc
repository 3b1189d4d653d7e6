// SigV4 verification against AWS's documented example (IAM ListUsers, 2015-08-30), and the
// refusals: unknown key, bad signature, skew, missing and incomplete signatures.
#include "auth/sigv4.h"

#include <gtest/gtest.h>

namespace ttlstore::auth {
namespace {

constexpr char kSecret[] = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
constexpr int64_t kSignedAt = 1440938160000;  // 2015-08-30T12:36:00Z

class SigV4Test : public ::testing::Test {
 protected:
  void SetUp() override {
    auto c = Credentials::Parse(std::string("AKIDEXAMPLE ") + kSecret + "\n");
    ASSERT_TRUE(c.ok());
    creds_ = *c;
    verifier_ = std::make_unique<SigV4Verifier>(creds_);
  }
  HeaderPairs Headers(std::string_view signature) {
    auth_ = "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/iam/aws4_request, "
            "SignedHeaders=content-type;host;x-amz-date, Signature=" + std::string(signature);
    return {{"Host", "iam.amazonaws.com"},
            {"Content-Type", "application/x-www-form-urlencoded; charset=utf-8"},
            {"X-Amz-Date", "20150830T123600Z"},
            {"Authorization", auth_}};
  }
  Status Verify(const HeaderPairs& h, int64_t now = kSignedAt,
                std::string_view target = "/?Action=ListUsers&Version=2010-05-08") {
    return verifier_->Verify({"GET", target, h, ""}, now);
  }

  Credentials creds_;
  std::unique_ptr<SigV4Verifier> verifier_;
  std::string auth_;
};

constexpr char kGoodSignature[] = "5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7";

TEST_F(SigV4Test, DerivedKeyAndCanonicalRequestMatchTheDocumentedExample) {
  EXPECT_EQ(Hex(verifier_->SigningKey(kSecret, "20150830", "us-east-1", "iam")),
            "c4afb1cc5771d871763a393e44b703571b55cc28424d1a5e86da6ed3c154a4b9");
  HeaderPairs h = Headers(kGoodSignature);
  std::string canonical = SigV4Verifier::CanonicalRequest(
      {"GET", "/?Action=ListUsers&Version=2010-05-08", h, ""},
      {"content-type", "host", "x-amz-date"}, Sha256Hex(""), false);
  EXPECT_EQ(Sha256Hex(canonical),
            "f536975d06c0309214f805bb90ccff089219ecd68b2577efef23edd43b7e1a59");
}

TEST_F(SigV4Test, AcceptsTheDocumentedSignatureWithin15Minutes) {
  EXPECT_TRUE(Verify(Headers(kGoodSignature)).ok());
  EXPECT_TRUE(Verify(Headers(kGoodSignature), kSignedAt + 14 * 60 * 1000).ok());
  // Query parameters in another order canonicalize the same.
  EXPECT_TRUE(Verify(Headers(kGoodSignature), kSignedAt, "/?Version=2010-05-08&Action=ListUsers").ok());
}

TEST_F(SigV4Test, RefusesWithTheServiceErrors) {
  auto bad = Verify(Headers("0" + std::string(kGoodSignature).substr(1)));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code(), ErrorCode::kInvalidSignature);

  bad = Verify(Headers(kGoodSignature), kSignedAt, "/?Action=ListUsers&Version=2010-05-09");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code(), ErrorCode::kInvalidSignature);

  bad = Verify(Headers(kGoodSignature), kSignedAt + 16 * 60 * 1000);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message(),
            "Signature expired: 20150830T123600Z is now earlier than 20150830T123700Z "
            "(20150830T125200Z - 15 min.)");
  bad = Verify(Headers(kGoodSignature), kSignedAt - 16 * 60 * 1000);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message(),
            "Signature not yet current: 20150830T123600Z is still later than 20150830T123500Z "
            "(20150830T122000Z + 15 min.)");

  HeaderPairs h = Headers(kGoodSignature);
  std::string other = auth_;
  other.replace(other.find("AKIDEXAMPLE"), 11, "AKIDUNKNOWN");
  h[3].second = other;
  bad = Verify(h);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code(), ErrorCode::kUnrecognizedClient);

  h = Headers(kGoodSignature);
  h.pop_back();
  bad = Verify(h);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code(), ErrorCode::kMissingAuthenticationToken);

  h = Headers(kGoodSignature);
  std::string incomplete = "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/iam/aws4_request";
  h[3].second = incomplete;
  bad = Verify(h);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code(), ErrorCode::kIncompleteSignature);
  EXPECT_NE(bad.error().message().find("Authorization header requires 'Signature' parameter."),
            std::string::npos);

  h = Headers(kGoodSignature);
  h[3].second = "AWS3 whatever";
  bad = Verify(h);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code(), ErrorCode::kIncompleteSignature);
}

// Regression (found by fuzz/sigv4_fuzzer.cc): a huge X-Amz-Expires overflowed expires * 1000.
TEST_F(SigV4Test, PresignedExpiresIsBoundedToAWeek) {
  HeaderPairs h = {{"Host", "h"}};
  std::string target =
      "/?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIDEXAMPLE%2F20150830%2Fus-east-1"
      "%2Fdynamodb%2Faws4_request&X-Amz-Date=20150830T123600Z&X-Amz-Expires="
      "35555555555555555555500&X-Amz-SignedHeaders=host&X-Amz-Signature=abc";
  auto r = verifier_->Verify({"POST", target, h, "{}"}, kSignedAt);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), ErrorCode::kIncompleteSignature);
  EXPECT_EQ(r.error().message(),
            "X-Amz-Expires must be less than a week (in seconds) that is 604800");
}

TEST_F(SigV4Test, DerivedKeysAreCached) {
  std::string a = verifier_->SigningKey(kSecret, "20150830", "us-east-1", "iam");
  std::string b = verifier_->SigningKey(kSecret, "20150830", "us-east-1", "iam");
  EXPECT_EQ(a, b);
  EXPECT_NE(a, verifier_->SigningKey(kSecret, "20150831", "us-east-1", "iam"));
}

}  // namespace
}  // namespace ttlstore::auth

namespace ttlstore::auth {
namespace {

// Hostile Authorization headers: whatever their size, the verifier answers in time and with
// bounded memory, and nothing unsigned passes.
TEST_F(SigV4Test, RepeatedSignedHeadersAreRefusedNotExpanded) {
  HeaderPairs h = Headers(kGoodSignature);
  std::string big(30000, 'v');
  h.emplace_back("x-big", big);
  // 15,000 repeats of a 30 KB header would make a 450 MB canonical request.
  std::string names = "content-type;host;x-amz-date";
  for (int i = 0; i < 15000; ++i) names += ";x-big";
  auth_ = "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/iam/aws4_request, "
          "SignedHeaders=" + names + ", Signature=" + kGoodSignature;
  h[3].second = auth_;
  Status s = Verify(h);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code(), ErrorCode::kInvalidSignature);
}

TEST_F(SigV4Test, ThousandsOfHeadersAndSignedHeadersAreCheckedInLinearTime) {
  HeaderPairs h = Headers(kGoodSignature);
  std::string names = "content-type;host;x-amz-date";
  // HeaderPairs holds views: the names live here, reserved so that no view moves.
  std::vector<std::string> storage;
  storage.reserve(20000);
  for (int i = 0; i < 20000; ++i) {
    storage.push_back("x-h" + std::to_string(i));
    h.emplace_back(storage.back(), "v");
    names += ";" + storage.back();
  }
  auth_ = "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/iam/aws4_request, "
          "SignedHeaders=" + names + ", Signature=" + kGoodSignature;
  h[3].second = auth_;
  Status s = Verify(h);  // was 20,000 x 20,000 lower-cased comparisons
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code(), ErrorCode::kInvalidSignature);
}

TEST_F(SigV4Test, AbsurdAuthorizationHeadersGetTheServiceErrors) {
  for (size_t n : {33u, 1000u, 100000u, 1000000u}) {
    HeaderPairs h = Headers(kGoodSignature);
    // HeaderPairs holds views: each value lives in auth_ while the request is verified.
    auth_ = "AWS4-HMAC-SHA256 " + std::string(n, ',');
    h[3].second = auth_;
    Status s = Verify(h);
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.error().code(), ErrorCode::kIncompleteSignature) << n;
    auth_ = "AWS4-HMAC-SHA256 Credential=" + std::string(n, '/') +
            ", SignedHeaders=host, Signature=x";
    h[3].second = auth_;
    s = Verify(h);
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.error().code(), ErrorCode::kIncompleteSignature) << n;
  }
}

}  // namespace
}  // namespace ttlstore::auth
