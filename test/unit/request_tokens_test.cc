// ClientRequestToken records in the database (ops/request_tokens.h), on every backend
// (store_fixture.h): the record's codec, what a record read in a transaction says of a request
// (new, repeat, mismatch, expired), and the trimmer (only records past their time go, a token
// used again after its time keeps its new record, groups past kTrimGroup).
#include "ops/request_tokens.h"

#include <gtest/gtest.h>

#include "store_fixture.h"

namespace ttlstore::ops {
namespace {

using storage::Family;
using storage::StoreFixture;

constexpr int64_t kNow = 1'700'000'000'000;

class RequestTokensTest : public StoreFixture {
 protected:
  // Records `token` for `hash` as a transaction at `now_ms` would.
  void Record(const std::string& token, const std::string& hash, int64_t now_ms) {
    auto read = store_->Get(Family::kTokens, TokenKey(token));
    ASSERT_TRUE(read.ok());
    storage::WriteBatch batch(*store_);
    RecordToken(batch, TokenUse{token, hash, now_ms}, *read);
    ASSERT_TRUE(store_->Write(batch).ok());
  }
  std::optional<std::string> Read(const std::string& token) {
    auto read = store_->Get(Family::kTokens, TokenKey(token));
    EXPECT_TRUE(read.ok());
    return read.ok() ? *read : std::nullopt;
  }
  size_t CountIndexEntries() {
    size_t n = 0;
    auto it = store_->ScanFamily(Family::kTokens, "x", "y", false, nullptr);
    for (; it->Valid(); it->Next()) ++n;
    return n;
  }
};

INSTANTIATE_TEST_SUITE_P(Backends, RequestTokensTest, ::testing::Values("rocksdb", "postgresql"),
                         [](const auto& info) { return info.param; });

TEST(RequestTokenRecordTest, RoundTripsAndRefusesGarbage) {
  TokenRecord r{kNow, RequestHash("request")};
  auto back = DecodeTokenRecord(EncodeTokenRecord(r));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->expires_ms, kNow);
  EXPECT_EQ(back->request_hash, r.request_hash);
  EXPECT_EQ(r.request_hash.size(), 64u);
  EXPECT_NE(RequestHash("request"), RequestHash("request2"));
  EXPECT_FALSE(DecodeTokenRecord(""));
  EXPECT_FALSE(DecodeTokenRecord(std::string("\x01\x00\x00", 3)));
  EXPECT_FALSE(DecodeTokenRecord(std::string("\x02", 1) + std::string(8, '\0')));
}

TEST(RequestTokenRecordTest, ARecordSaysNewRepeatOrMismatch) {
  const std::string hash = RequestHash("a");
  const TokenUse use{"tok", hash, kNow};
  EXPECT_EQ(IsRepeat(std::nullopt, use).value(), false);
  EXPECT_EQ(IsRepeat(EncodeTokenRecord({kNow + 1, hash}), use).value(), true);
  auto other = IsRepeat(EncodeTokenRecord({kNow + 1, RequestHash("b")}), use);
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.error().code(), ErrorCode::kIdempotentParameterMismatch);
  // Past its time a record says nothing: the request is new, whatever it was.
  EXPECT_EQ(IsRepeat(EncodeTokenRecord({kNow, RequestHash("b")}), use).value(), false);
}

TEST_P(RequestTokensTest, TheTrimmerRemovesOnlyRecordsPastTheirTime) {
  Record("old1", "h", kNow - kTokenLifetimeMs - 1000);
  Record("old2", "h", kNow - kTokenLifetimeMs - 1);
  Record("live", "h", kNow - kTokenLifetimeMs + 1000);
  // Used again after its time: the new record replaces the old one and its index entry.
  Record("again", "h", kNow - kTokenLifetimeMs - 5000);
  Record("again", "h2", kNow - 10);
  EXPECT_EQ(CountIndexEntries(), 4u);
  TokenTrimmer trimmer(*store_, SystemClock(), 60'000);
  auto removed = trimmer.TrimOnce(kNow);
  ASSERT_TRUE(removed.ok()) << removed.error().message();
  EXPECT_EQ(*removed, 2u);
  EXPECT_FALSE(Read("old1"));
  EXPECT_FALSE(Read("old2"));
  EXPECT_TRUE(Read("live"));
  ASSERT_TRUE(Read("again"));
  EXPECT_EQ(DecodeTokenRecord(*Read("again"))->request_hash, "h2");
  EXPECT_EQ(CountIndexEntries(), 2u);
  EXPECT_EQ(*trimmer.TrimOnce(kNow), 0u);
  // Later, everything is past its time.
  EXPECT_EQ(*trimmer.TrimOnce(kNow + kTokenLifetimeMs + 1), 2u);
  EXPECT_EQ(CountIndexEntries(), 0u);
  EXPECT_EQ(trimmer.trimmed(), 4u);
}

TEST_P(RequestTokensTest, ManyRecordsAreTrimmedInGroups) {
  const size_t n = TokenTrimmer::kTrimGroup * 2 + 7;
  for (size_t i = 0; i < n; ++i) Record("t" + std::to_string(i), "h", kNow - kTokenLifetimeMs - 1);
  TokenTrimmer trimmer(*store_, SystemClock(), 60'000);
  EXPECT_EQ(*trimmer.TrimOnce(kNow), n);
  EXPECT_EQ(CountIndexEntries(), 0u);
}

}  // namespace
}  // namespace ttlstore::ops
