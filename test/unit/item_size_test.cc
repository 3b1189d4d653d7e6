#include "model/item_size.h"

#include <utility>

#include "model/number.h"

#include <gtest/gtest.h>

namespace ttlstore::model {
namespace {

TEST(ItemSize, ScalarsCountNameAndValueBytes) {
  EXPECT_EQ(ItemSize({{"ab", AttributeValue::String("xyz")}}), 5u);
  EXPECT_EQ(ItemSize({{"b", AttributeValue::Binary("12")}}), 3u);
  EXPECT_EQ(ItemSize({{"t", AttributeValue::Bool(true)}}), 2u);
  EXPECT_EQ(ItemSize({{"z", AttributeValue::Null()}}), 2u);
}

// The service's sizes of numbers, each measured at the 400 KB gate against eu-west-2 (a
// conformance suite's capture record, tests/tier3/limits/numberByteSize; docs/compatibility.md
// "Item size"): base-100 digits aligned on the decimal point, plus one, plus one if negative.
TEST(ItemSize, NumbersAsTheServiceSizesThem) {
  const std::pair<const char*, size_t> kCaptured[] = {
      {"0", 1},        {"1", 2},        {"12", 2},       {"123", 3},      {"1234", 3},
      {"12345678901234567890123456789012345678", 20},     {"0042", 2},     {"100", 2},
      {"1010", 3},     {"0.0000001", 2}, {"1E125", 2},   {"1E-100", 2},   {"1.5", 3},
      {"15", 2},       {"1.2", 3},      {"1.200", 3},    {"1.234", 4},    {"3.14159", 5},
      {"123456", 4},   {"100.5", 4},    {"0.15", 2},     {"-42", 3},      {"-0", 1},
  };
  for (const auto& [literal, bytes] : kCaptured) {
    auto n = Number::Parse(literal);
    ASSERT_TRUE(n.ok()) << literal;
    EXPECT_EQ(ValueSize(AttributeValue::Num(n->ToString())), bytes) << literal;
  }
  // Between the captured points, the pairs stay aligned on the point: 110 is 01|10, 0.015 is
  // 01|50 (a reading that trims single digits instead would say 2 for both).
  EXPECT_EQ(ValueSize(AttributeValue::Num("110")), 3u);
  EXPECT_EQ(ValueSize(AttributeValue::Num("0.015")), 3u);
  EXPECT_EQ(ValueSize(AttributeValue::Num("-0.0015")), 3u);
  // 38 digits straddling the point, negative: the largest a number can be.
  EXPECT_EQ(ValueSize(AttributeValue::Num("-1234567890123456789.0123456789012345678")), 22u);
}

TEST(ItemSize, DocumentsAddThreeBytesPlusOnePerElement) {
  AttributeValue list = AttributeValue::OfList({AttributeValue::String("ab"), AttributeValue::Bool(false)});
  EXPECT_EQ(ValueSize(list), 3u + (2 + 1) + (1 + 1));
  AttributeValue map = AttributeValue::OfMap({{"k", AttributeValue::String("v")}});
  EXPECT_EQ(ValueSize(map), 3u + (1 + 1 + 1));
}

TEST(ItemSize, SetsSumTheirMembers) {
  EXPECT_EQ(ValueSize(AttributeValue::Set(ValueType::kSS, {"ab", "c"})), 3u);
  EXPECT_EQ(ValueSize(AttributeValue::Set(ValueType::kNS, {"1", "22"})), 4u);
  EXPECT_EQ(ValueSize(AttributeValue::Set(ValueType::kNS, {"1.5", "-42"})), 6u);
}

}  // namespace
}  // namespace ttlstore::model
