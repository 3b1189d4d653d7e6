#include "storage/item_codec.h"

#include <gtest/gtest.h>

#include <random>

namespace ttlstore::storage {
namespace {

using model::AttributeValue;
using model::ValueType;

model::Item EveryType() {
  model::Item item;
  item["s"] = AttributeValue::String("h\xc3\xa9llo");
  item["empty"] = AttributeValue::String("");
  item["n"] = AttributeValue::Num("-12.5");
  item["b"] = AttributeValue::Binary(std::string("\x00\x01\xff", 3));
  item["t"] = AttributeValue::Bool(true);
  item["f"] = AttributeValue::Bool(false);
  item["null"] = AttributeValue::Null();
  item["ss"] = AttributeValue::Set(ValueType::kSS, {"a", "b"});
  item["ns"] = AttributeValue::Set(ValueType::kNS, {"1", "2.5"});
  item["bs"] = AttributeValue::Set(ValueType::kBS, {std::string("\x00", 1), "x"});
  model::Map inner;
  inner["l"] = AttributeValue::OfList({AttributeValue::Num("1"), AttributeValue::OfMap({})});
  item["m"] = AttributeValue::OfMap(inner);
  return item;
}

TEST(ItemCodec, EveryTypeRoundTrips) {
  model::Item item = EveryType();
  auto decoded = DecodeItem(EncodeItem(item));
  ASSERT_TRUE(decoded.has_value());
  EXPECT_EQ(*decoded, item);
}

TEST(ItemCodec, GoldenBytesOfASmallItem) {
  model::Item item;
  item["a"] = AttributeValue::Num("1");
  item["b"] = AttributeValue::Bool(true);
  // format 01, 2 attributes, "a" N "1", "b" BOOL 1
  EXPECT_EQ(EncodeItem(item), std::string("\x01\x02\x01" "a\x02\x01" "1\x01" "b\x04\x01", 11));
}

TEST(ItemCodec, DeepNestingRoundTrips) {
  AttributeValue v = AttributeValue::Num("7");
  for (int i = 0; i < 32; ++i) v = AttributeValue::OfList({v});
  model::Item item{{"deep", v}};
  auto decoded = DecodeItem(EncodeItem(item));
  ASSERT_TRUE(decoded.has_value());
  EXPECT_EQ(*decoded, item);
}

TEST(ItemCodec, RejectsTruncationAndUnknownFormat) {
  std::string bytes = EncodeItem(EveryType());
  for (size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_FALSE(DecodeItem(bytes.substr(0, n)).has_value()) << "prefix of length " << n;
  }
  bytes[0] = 0x7f;
  EXPECT_FALSE(DecodeItem(bytes).has_value());
}

TEST(ItemCodec, SurvivesRandomBytes) {
  std::mt19937 rng(11);
  std::string good = EncodeItem(EveryType());
  for (int i = 0; i < 5000; ++i) {
    std::string junk = good;
    for (int k = 0; k < 3; ++k) junk[rng() % junk.size()] = static_cast<char>(rng());
    (void)DecodeItem(junk);  // must not crash or loop
  }
}

}  // namespace
}  // namespace ttlstore::storage
