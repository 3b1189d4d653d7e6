#include "model/item_size.h"

#include <gtest/gtest.h>

namespace ttlstore::model {
namespace {

TEST(ItemSize, ScalarsCountNameAndValueBytes) {
  EXPECT_EQ(ItemSize({{"ab", AttributeValue::String("xyz")}}), 5u);
  EXPECT_EQ(ItemSize({{"b", AttributeValue::Binary("12")}}), 3u);
  EXPECT_EQ(ItemSize({{"t", AttributeValue::Bool(true)}}), 2u);
  EXPECT_EQ(ItemSize({{"z", AttributeValue::Null()}}), 2u);
}

TEST(ItemSize, NumbersCountOneBytePerTwoSignificantDigitsPlusOne) {
  EXPECT_EQ(ValueSize(AttributeValue::Num("0")), 1u);
  EXPECT_EQ(ValueSize(AttributeValue::Num("7")), 2u);
  EXPECT_EQ(ValueSize(AttributeValue::Num("12")), 2u);
  EXPECT_EQ(ValueSize(AttributeValue::Num("123")), 3u);
  EXPECT_EQ(ValueSize(AttributeValue::Num("100000")), 2u);  // one significant digit
  EXPECT_EQ(ValueSize(AttributeValue::Num("-0.0015")), 2u);
  EXPECT_EQ(ValueSize(AttributeValue::Num("10.5")), 3u);
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
}

}  // namespace
}  // namespace ttlstore::model
