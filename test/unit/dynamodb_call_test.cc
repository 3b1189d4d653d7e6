// The CLI's DynamoDB call helpers (cli/dynamodb_call.h): reading members of a response without
// the JSON library, quoting, and endpoint URLs.
#include "cli/dynamodb_call.h"

#include <gtest/gtest.h>

namespace ttlstore::cli {
namespace {

TEST(JsonMemberText, ReadsStringsNumbersAndNestedMembers) {
  const std::string body =
      R"({"ExportDescription":{"ExportArn":"arn:x/export/1","ExportStatus" : "COMPLETED",)"
      R"("ItemCount":42,"FailureMessage":"say \"hi\"\n","Nested":{"Deep":true}}})";
  EXPECT_EQ(JsonMemberText(body, "ExportArn"), "arn:x/export/1");
  EXPECT_EQ(JsonMemberText(body, "ExportStatus"), "COMPLETED");
  EXPECT_EQ(JsonMemberText(body, "ItemCount"), "42");
  EXPECT_EQ(JsonMemberText(body, "FailureMessage"), "say \"hi\"\n");
  EXPECT_EQ(JsonMemberText(body, "Deep"), "true");
  EXPECT_EQ(JsonMemberText(body, "Missing"), std::nullopt);
}

TEST(JsonMemberText, AStringValueSpellingTheNameIsNotAMember) {
  EXPECT_EQ(JsonMemberText(R"({"a":"ExportStatus","ExportStatus":"FAILED"})", "ExportStatus"),
            "FAILED");
  EXPECT_EQ(JsonMemberText(R"({"a":"ExportStatus"})", "ExportStatus"), std::nullopt);
}

TEST(JsonMemberText, TruncatedBodiesEndWithoutReadingPastThem) {
  EXPECT_EQ(JsonMemberText(R"({"ExportArn":)", "ExportArn"), std::nullopt);
  EXPECT_EQ(JsonMemberText(R"({"ExportArn":"abc)", "ExportArn"), "abc");
  EXPECT_EQ(JsonMemberText(R"({"ExportArn":"abc\)", "ExportArn"), "abc\\");
}

TEST(JsonQuote, EscapesQuotesBackslashesAndControlCharacters) {
  EXPECT_EQ(JsonQuote("a\"b\\c\n\x01 é"), "\"a\\\"b\\\\c\\u000a\\u0001 é\"");
}

TEST(HttpEndpoint, TakesHttpUrlsWithOrWithoutAPort) {
  HttpEndpoint e;
  EXPECT_TRUE(e.SetUrl("http://127.0.0.1:8123/"));
  EXPECT_EQ(e.host, "127.0.0.1");
  EXPECT_EQ(e.port, "8123");
  EXPECT_TRUE(e.SetUrl("http://localhost"));
  EXPECT_EQ(e.port, "80");
  EXPECT_FALSE(e.SetUrl("https://127.0.0.1:8000"));
  EXPECT_FALSE(e.SetUrl("http://127.0.0.1:8000/path"));
  EXPECT_FALSE(e.SetUrl("http://127.0.0.1:"));
}

}  // namespace
}  // namespace ttlstore::cli
