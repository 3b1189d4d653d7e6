#include "storage/key_codec.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "model/number.h"

namespace ttlstore::storage {
namespace {

using model::AttributeValue;

std::string Enc(const AttributeValue& v) {
  std::string out;
  AppendKeyValue(&out, v);
  return out;
}

AttributeValue N(const char* text) { return AttributeValue::Num(model::Number::Parse(text)->ToString()); }

TEST(KeyCodec, StringEncodingGoldenBytes) {
  EXPECT_EQ(Enc(AttributeValue::String("ab")), std::string("ab\x00\x01", 4));
  EXPECT_EQ(Enc(AttributeValue::String(std::string("a\0b", 3))), std::string("a\x00\xff" "b\x00\x01", 6));
  EXPECT_EQ(Enc(AttributeValue::Binary("")), std::string("\x00\x01", 2));
}

TEST(KeyCodec, NumberEncodingGoldenBytes) {
  EXPECT_EQ(Enc(N("12")), std::string("\x03\x80\x01\x02\x03\x00", 6));
  EXPECT_EQ(Enc(N("0")), std::string("\x02", 1));
}

TEST(KeyCodec, StringOrderMatchesUtf8ByteOrder) {
  std::vector<std::string> values = {"", "a", std::string("a\0", 2), std::string("a\0b", 3),
                                     "ab", "b", "\xc3\xa9", "\xff", "aa"};
  for (const auto& x : values) {
    for (const auto& y : values) {
      std::string ex = Enc(AttributeValue::String(x)), ey = Enc(AttributeValue::String(y));
      EXPECT_EQ(x < y, ex < ey) << "'" << x << "' vs '" << y << "'";
    }
  }
}

TEST(KeyCodec, NumberOrderMatchesNumericOrder) {
  std::vector<const char*> texts = {"-1e125", "-100", "-1.5", "-1", "-0.001", "0",  "1e-130",
                                    "0.001",  "1",    "1.5",  "2",  "10",     "100", "9.99e125"};
  for (size_t i = 0; i + 1 < texts.size(); ++i) {
    EXPECT_LT(Enc(N(texts[i])), Enc(N(texts[i + 1]))) << texts[i] << " < " << texts[i + 1];
  }
  EXPECT_EQ(Enc(N("1.0")), Enc(N("1")));
}

TEST(KeyCodec, ItemKeyRoundTripsThroughDecode) {
  model::KeySchema schema{
      {"pk", model::ValueType::kS}, model::KeyElement{"sk", model::ValueType::kN}, {}, {}};
  AttributeValue pk = AttributeValue::String(std::string("user\0one", 8));
  AttributeValue sk = N("-42.5");
  std::string key = ItemKey(7, pk, &sk);
  uint32_t table_id = 0;
  AttributeValue got_pk;
  std::optional<AttributeValue> got_sk;
  ASSERT_TRUE(DecodeItemKey(key, schema, &table_id, &got_pk, &got_sk));
  EXPECT_EQ(table_id, 7u);
  EXPECT_EQ(got_pk, pk);
  ASSERT_TRUE(got_sk.has_value());
  EXPECT_EQ(*got_sk, sk);
}

TEST(KeyCodec, ItemsOfOnePartitionShareItsPrefixAndSortBySortKey) {
  AttributeValue pk = AttributeValue::String("p");
  std::string prefix = PartitionPrefix(3, pk);
  std::vector<std::string> keys;
  for (const char* sk : {"-5", "0", "3", "20", "100"}) {
    AttributeValue v = N(sk);
    keys.push_back(ItemKey(3, pk, &v));
    EXPECT_EQ(keys.back().compare(0, prefix.size(), prefix), 0);
  }
  EXPECT_TRUE(std::is_sorted(keys.begin(), keys.end()));
  EXPECT_EQ(TablePrefix(3), std::string("\x00\x00\x00\x03", 4));
  EXPECT_EQ(prefix.substr(0, 4), TablePrefix(3));
}

TEST(KeyCodec, DecodeRejectsTruncatedAndGarbageKeys) {
  model::KeySchema schema{{"pk", model::ValueType::kS}, std::nullopt, {}, {}};
  uint32_t id;
  AttributeValue pk;
  std::optional<AttributeValue> sk;
  std::string key = ItemKey(1, AttributeValue::String("abc"), nullptr);
  EXPECT_FALSE(DecodeItemKey(key.substr(0, key.size() - 1), schema, &id, &pk, &sk));
  EXPECT_FALSE(DecodeItemKey("xy", schema, &id, &pk, &sk));
  std::mt19937 rng(7);
  for (int i = 0; i < 2000; ++i) {
    std::string junk(rng() % 24, '\0');
    for (auto& c : junk) c = static_cast<char>(rng());
    (void)DecodeItemKey(junk, schema, &id, &pk, &sk);  // must not crash
  }
}

TEST(KeyCodec, PrefixSuccessorIsTheSmallestKeyAfterThePrefix) {
  EXPECT_EQ(PrefixSuccessor(std::string("\x00\x00\x00\x03", 4)), std::string("\x00\x00\x00\x04", 4));
  EXPECT_EQ(PrefixSuccessor(std::string("a\xff", 2)), "b");
}

}  // namespace
}  // namespace ttlstore::storage
