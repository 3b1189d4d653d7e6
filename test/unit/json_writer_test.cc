// JsonWriter escapes strings a run at a time; its output must be RapidJSON's Writer's, byte for
// byte, whatever the bytes and wherever they fall relative to the 16-byte blocks it scans.
#include "api/json_writer.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace ttlstore::api {
namespace {

std::string Reference(const std::string& key, const std::string& value) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  w.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
  w.String(value.data(), static_cast<rapidjson::SizeType>(value.size()));
  w.EndObject();
  return {buf.GetString(), buf.GetSize()};
}

std::string Ours(const std::string& key, const std::string& value) {
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  w.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
  w.String(value.data(), static_cast<rapidjson::SizeType>(value.size()));
  w.EndObject();
  return {buf.GetString(), buf.GetSize()};
}

TEST(JsonWriter, EveryByteAloneAndInsideABlock) {
  for (int c = 0; c < 256; ++c) {
    std::string one(1, static_cast<char>(c));
    EXPECT_EQ(Ours(one, one), Reference(one, one)) << "byte " << c;
    for (size_t at : {0u, 7u, 15u, 16u, 17u, 31u, 39u}) {
      std::string s(40, 'a');
      s[at] = static_cast<char>(c);
      EXPECT_EQ(Ours("k", s), Reference("k", s)) << "byte " << c << " at " << at;
    }
  }
}

TEST(JsonWriter, RandomStringsOfEveryLengthMatchRapidJson) {
  std::mt19937 rng(7);
  // Mostly plain text, with quotes, backslashes, control characters and UTF-8 mixed in.
  const std::string alphabet = std::string("abcXYZ019 \"\\\x01\x1f\n\t\r\b\f\x7f") + "\xc3\xa9";
  for (size_t len = 0; len < 200; ++len) {
    for (int round = 0; round < 5; ++round) {
      std::string s;
      for (size_t i = 0; i < len; ++i) {
        s += (rng() % 4 == 0) ? alphabet[rng() % alphabet.size()] : static_cast<char>('a' + rng() % 26);
      }
      ASSERT_EQ(Ours(s, s), Reference(s, s)) << "length " << len;
    }
  }
}

TEST(JsonWriter, EmptyStringsNulBytesAndLiterals) {
  EXPECT_EQ(Ours("", ""), R"({"":""})");
  std::string nul("a\0b", 3);
  EXPECT_EQ(Ours(nul, nul), Reference(nul, nul));
  EXPECT_EQ(Ours(nul, nul), R"({"a\u0000b":"a\u0000b"})");
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartArray();
  w.String("lit\"eral");
  w.String(std::string("std\\string"));
  w.EndArray();
  EXPECT_EQ(std::string(buf.GetString(), buf.GetSize()), R"(["lit\"eral","std\\string"])");
}

TEST(JsonWriter, LargeStringsAreWrittenWhole) {
  std::string big(1 << 20, 'x');
  big[123457] = '"';
  big.back() = '\n';
  EXPECT_EQ(Ours("k", big), Reference("k", big));
}

}  // namespace
}  // namespace ttlstore::api
