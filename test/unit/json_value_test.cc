#include "api/json_value.h"

#include <gtest/gtest.h>

namespace ttlstore::api {
namespace {

Result<model::AttributeValue> FromJson(const char* text) {
  rapidjson::Document doc;
  doc.Parse(text);
  EXPECT_FALSE(doc.HasParseError()) << text;
  return DecodeAttributeValue(doc);
}

std::string ToJson(const model::AttributeValue& v) {
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  WriteAttributeValue(w, v);
  return buf.GetString();
}

std::string RoundTrip(const char* text) {
  auto v = FromJson(text);
  EXPECT_TRUE(v.ok()) << text << ": " << (v.ok() ? "" : v.error().message());
  return v.ok() ? ToJson(*v) : "";
}

std::string ErrorOf(const char* text) {
  auto v = FromJson(text);
  EXPECT_FALSE(v.ok()) << text;
  return v.ok() ? "" : v.error().message();
}

// An item that is not a map at all is refused, never read as one (the fuzzer's find: the
// ordering pass of DecodeItem once walked it regardless).
TEST(JsonValue, AnItemThatIsNotAMapIsRefused) {
  for (const char* text : {"[]", "\"x\"", "1", "null", "[{\"S\":\"x\"}]"}) {
    rapidjson::Document doc;
    doc.Parse(text);
    ASSERT_FALSE(doc.HasParseError()) << text;
    EXPECT_FALSE(DecodeItem(doc).ok()) << text;
  }
  rapidjson::Document deep;
  deep.Parse(R"({"m":{"M":{"":{"S":"x"}}}})");
  auto refused = DecodeItem(deep);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message(), "Empty attribute name");
}

TEST(JsonValue, EveryTypeRoundTrips) {
  EXPECT_EQ(RoundTrip(R"({"S":"h\u00e9"})"), "{\"S\":\"h\xc3\xa9\"}");
  EXPECT_EQ(RoundTrip(R"({"N":"12"})"), R"({"N":"12"})");
  EXPECT_EQ(RoundTrip(R"({"B":"AAEC"})"), R"({"B":"AAEC"})");
  EXPECT_EQ(RoundTrip(R"({"BOOL":false})"), R"({"BOOL":false})");
  EXPECT_EQ(RoundTrip(R"({"NULL":true})"), R"({"NULL":true})");
  EXPECT_EQ(RoundTrip(R"({"M":{"a":{"L":[{"N":"1"},{"SS":["x","y"]}]}}})"),
            R"({"M":{"a":{"L":[{"N":"1"},{"SS":["x","y"]}]}}})");
  EXPECT_EQ(RoundTrip(R"({"NS":["1","2.5"]})"), R"({"NS":["1","2.5"]})");
  EXPECT_EQ(RoundTrip(R"({"BS":["AA==","AQ=="]})"), R"({"BS":["AA==","AQ=="]})");
}

TEST(JsonValue, NumbersAreNormalisedOnTheWayIn) {
  EXPECT_EQ(RoundTrip(R"({"N":"1.0"})"), R"({"N":"1"})");
  EXPECT_EQ(RoundTrip(R"({"N":"01"})"), R"({"N":"1"})");
  EXPECT_EQ(RoundTrip(R"({"N":"1e2"})"), R"({"N":"100"})");
  EXPECT_EQ(RoundTrip(R"({"N":"-0"})"), R"({"N":"0"})");
  EXPECT_EQ(RoundTrip(R"({"NS":["1.50"]})"), R"({"NS":["1.5"]})");
}

TEST(JsonValue, RejectsEmptyAndMultiTypedValues) {
  EXPECT_EQ(ErrorOf("{}"),
            "Supplied AttributeValue is empty, must contain exactly one of the supported "
            "datatypes");
  EXPECT_EQ(ErrorOf(R"({"S":"a","N":"1"})"),
            "Supplied AttributeValue has more than one datatypes set, must contain exactly one of "
            "the supported datatypes");
}

TEST(JsonValue, RejectsBadSetsWithTheServiceWording) {
  EXPECT_EQ(ErrorOf(R"({"SS":[]})"),
            "One or more parameter values were invalid: An string set  may not be empty");
  EXPECT_EQ(ErrorOf(R"({"NS":[]})"),
            "One or more parameter values were invalid: An number set  may not be empty");
  EXPECT_EQ(ErrorOf(R"({"SS":["a","a"]})"),
            "One or more parameter values were invalid: Input collection [a, a] contains "
            "duplicates.");
}

TEST(JsonValue, RejectsNullFalseAndBadNumbers) {
  EXPECT_EQ(ErrorOf(R"({"NULL":false})"),
            "One or more parameter values were invalid: Null attribute value types must have the "
            "value of true");
  EXPECT_EQ(ErrorOf(R"({"N":"abc"})"), "The parameter cannot be converted to a numeric value: abc");
}

TEST(JsonValue, WrongJsonTypesAreSerializationErrors) {
  auto v = FromJson(R"({"S":5})");
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.error().code(), ErrorCode::kSerialization);
}

TEST(JsonValue, NestingIsLimitedTo32LevelsCountingTheAttribute) {
  std::string ok = R"({"N":"1"})", too_deep;
  for (int i = 0; i < 31; ++i) ok = R"({"L":[)" + ok + "]}";
  EXPECT_TRUE(FromJson(ok.c_str()).ok());
  too_deep = R"({"M":{"x":)" + ok + "}}";
  EXPECT_EQ(ErrorOf(too_deep.c_str()),
            "Nesting Levels have exceeded supported limits: Attributes in the item have nested "
            "levels beyond supported limit");
}

TEST(JsonValue, DuplicateWordingDiffersBySetType) {
  EXPECT_EQ(ErrorOf(R"({"NS":["1","1.0"]})"), "Input collection contains duplicates");
  EXPECT_EQ(ErrorOf(R"({"BS":["Yg==","Yg=="]})"),
            "One or more parameter values were invalid: Input collection [Yg==, Yg==]of type BS "
            "contains duplicates.");
}

TEST(JsonValue, UnknownTypeNamesCountAsEmpty) {
  EXPECT_EQ(ErrorOf(R"({"s":"a"})"),
            "Supplied AttributeValue is empty, must contain exactly one of the supported "
            "datatypes");
}

}  // namespace
}  // namespace ttlstore::api
