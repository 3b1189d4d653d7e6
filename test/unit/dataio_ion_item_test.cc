// Ion item lines (dataio/ion_item.h): the developer guide's export example, every type both
// ways, the Ion spellings a person may write, every refusal, the nesting bound, and a seeded
// round trip of random items (format, then parse, gives the same item).
#include "dataio/ion_item.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>

#include "model/number.h"

namespace ttlstore::dataio {
namespace {

using model::AttributeValue;
using model::ValueType;

TEST(IonItem, ReadsTheGuidesExportExample) {
  auto item = ParseIonItemLine(
      "$ion_1_0 {\n    Item:{\n        Authors:$dynamodb_SS::[\"Author1\",\"Author2\"],\n"
      "        Dimensions:\"8.5 x 11.0 x 1.5\",\n        ISBN:\"333-3333333333\",\n"
      "        Id:103.,\n        InPublication:false,\n        PageCount:6d2,\n"
      "        Price:2d3,\n        ProductCategory:\"Book\",\n        Title:\"Book 103 Title\"\n"
      "    }\n}");
  ASSERT_TRUE(item) << item.error().message();
  EXPECT_EQ(item->size(), 9u);
  EXPECT_EQ(item->at("Id"), AttributeValue::Num("103"));
  EXPECT_EQ(item->at("PageCount"), AttributeValue::Num("600"));
  EXPECT_EQ(item->at("Price"), AttributeValue::Num("2000"));
  EXPECT_EQ(item->at("InPublication"), AttributeValue::Bool(false));
  EXPECT_EQ(item->at("Authors"), AttributeValue::Set(ValueType::kSS, {"Author1", "Author2"}));
  EXPECT_EQ(item->at("Title"), AttributeValue::String("Book 103 Title"));
}

TEST(IonItem, ReadsEveryType) {
  auto item = ParseIonItemLine(
      R"({Item:{s:"x",n:-1.50,i:42,h:0x1F,bin:0b101,u:1_000,f:2.5e3,b:{{aGk=}},c:{{"raw"}},t:true,)"
      R"(z:null,zt:null.string,l:[1.,"a",[null]],m:{'quoted name':{"k":"v"}},)"
      R"(ns:$dynamodb_NS::[1.,2d0,3.5],bs:$dynamodb_BS::[{{AQ==}},{{Ag==}}]}})");
  ASSERT_TRUE(item) << item.error().message();
  const auto& m = *item;
  EXPECT_EQ(m.at("s"), AttributeValue::String("x"));
  EXPECT_EQ(m.at("n"), AttributeValue::Num("-1.5"));
  EXPECT_EQ(m.at("i"), AttributeValue::Num("42"));
  EXPECT_EQ(m.at("h"), AttributeValue::Num("31"));
  EXPECT_EQ(m.at("bin"), AttributeValue::Num("5"));
  EXPECT_EQ(m.at("u"), AttributeValue::Num("1000"));
  EXPECT_EQ(m.at("f"), AttributeValue::Num("2500"));
  EXPECT_EQ(m.at("b"), AttributeValue::Binary("hi"));
  EXPECT_EQ(m.at("c"), AttributeValue::Binary("raw"));
  EXPECT_EQ(m.at("t"), AttributeValue::Bool(true));
  EXPECT_EQ(m.at("z"), AttributeValue::Null());
  EXPECT_EQ(m.at("zt"), AttributeValue::Null());
  EXPECT_EQ(m.at("l").list().size(), 3u);
  EXPECT_EQ(m.at("m").map().at("quoted name").map().at("k"), AttributeValue::String("v"));
  EXPECT_EQ(m.at("ns"), AttributeValue::Set(ValueType::kNS, {"1", "2", "3.5"}));
  EXPECT_EQ(m.at("bs"), AttributeValue::Set(ValueType::kBS, {"\x01", "\x02"}));
}

TEST(IonItem, StringsEscapesCommentsAndLongStrings) {
  auto item = ParseIonItemLine(
      "/* c */ $ion_1_0 // line comment\n {Item:{a:\"q\\\"\\\\\\n\\x41\\u00e9\\U0001F600\\uD83D\\uDE00\","
      "b:'''one ''' /* between */ '''two''', c:\"\"}}");
  ASSERT_TRUE(item) << item.error().message();
  EXPECT_EQ(item->at("a").scalar(), "q\"\\\nA\xc3\xa9\xf0\x9f\x98\x80\xf0\x9f\x98\x80");
  EXPECT_EQ(item->at("b").scalar(), "one two");
  EXPECT_EQ(item->at("c").scalar(), "");
}

TEST(IonItem, Refusals) {
  const char* bad[] = {
      "",                                          // nothing
      "{}",                                        // no Item
      "{Other:{a:1.}}",                            // not Item
      "{Item:{a:2007-02-23T12:14Z}}",              // timestamp
      "{Item:{a:sym}}",                            // symbol value
      "{Item:{a:'sym'}}",                          // quoted symbol value
      "{Item:{a:(1 2)}}",                          // s-expression
      "{Item:{a:nan}}",                            // nan
      "{Item:{a:+inf}}",                           // infinity
      "{Item:{a:foo::1.}}",                        // unknown annotation
      "{Item:{a:$dynamodb_SS::\"x\"}}",            // set annotation on a non-list
      "{Item:{a:$dynamodb_SS::[]}}",               // empty set
      "{Item:{a:$dynamodb_SS::[\"x\",\"x\"]}}",    // duplicate members
      "{Item:{a:$dynamodb_NS::[1.,1.0]}}",         // duplicate numbers by value
      "{Item:{a:$dynamodb_NS::[\"1\"]}}",          // string in NS
      "{Item:{a:$dynamodb_BS::[1.]}}",             // number in BS
      "{Item:{a:\"unterminated}}",                 // unterminated string
      "{Item:{a:\"new\nline\"}}",                  // raw newline in a short string
      "{Item:{a:\"\\q\"}}",                        // unknown escape
      "{Item:{a:\"\\uD800\"}}",                    // lone surrogate
      "{Item:{a:\"\xff\"}}",                       // not UTF-8
      "{Item:{a:{{not base64!}}}}",                // bad blob
      "{Item:{a:1e999}}",                          // number out of range
      "{Item:{a:123456789012345678901234567890123456789}}",  // 39 digits
      "{Item:{a:1__0}}",                           // bad separator
      "{Item:{\"\":1.}}",                          // empty attribute name
      "{Item:{a:1.} x",                            // text after the item
      "{Item:{a:1. b:2.}}",                        // missing comma
      "{Item:[1.]}",                               // Item not a struct
      "{Item:{a:1.}} /* unterminated",             // unterminated comment
  };
  for (const char* text : bad) {
    auto r = ParseIonItemLine(text);
    EXPECT_FALSE(r) << "accepted: " << text;
    if (!r) {
      EXPECT_NE(r.error().message().find("Invalid Ion at byte"), std::string::npos);
    }
  }
}

TEST(IonItem, NestingIsBoundedBeforeRecursing) {
  std::string deep = "{Item:{a:";
  for (int i = 0; i < 100000; ++i) deep += '[';
  EXPECT_FALSE(ParseIonItemLine(deep));
  std::string ok = "{Item:{a:";
  for (int i = 0; i < 31; ++i) ok += '[';
  ok += "1.";
  for (int i = 0; i < 31; ++i) ok += ']';
  ok += "}}";
  EXPECT_TRUE(ParseIonItemLine(ok)) << ParseIonItemLine(ok).error().message();
}

TEST(IonItem, FormatsWhatTheExporterWrites) {
  model::Item item;
  item["Id"] = AttributeValue::Num("103");
  item["Price"] = AttributeValue::Num("-0.25");
  item["Authors"] = AttributeValue::Set(ValueType::kSS, {"A", "B"});
  item["bytes"] = AttributeValue::Binary("hi");
  item["odd name"] = AttributeValue::String("say \"x\"\n");
  item["$x"] = AttributeValue::Null();
  EXPECT_EQ(FormatIonItemLine(item),
            "$ion_1_0 {Item:{\"$x\":null,Authors:$dynamodb_SS::[\"A\",\"B\"],Id:103.,"
            "Price:-0.25,bytes:{{aGk=}},\"odd name\":\"say \\\"x\\\"\\x0a\"}}");
}

AttributeValue RandomValue(std::mt19937& rng, int depth) {
  auto pick = [&](int n) { return static_cast<int>(rng() % n); };
  auto text = [&] {
    std::string s;
    int len = pick(6);
    for (int i = 0; i < len; ++i) {
      static const char* pieces[] = {"a", "Z", " ", "\"", "\\", "\n", "\x01", "\xc3\xa9", "'", "{"};
      s += pieces[pick(10)];
    }
    return s;
  };
  auto number = [&] {
    static const char* numbers[] = {"0", "1", "-1", "3.25", "-0.0001", "12345678901234567890",
                                    "1E+20", "9.9E-100"};
    return model::Number::Parse(numbers[pick(8)])->ToString();
  };
  int kind = depth > 3 ? pick(5) : pick(10);
  switch (kind) {
    case 0: return AttributeValue::String(text());
    case 1: return AttributeValue::Num(number());
    case 2: return AttributeValue::Binary(text());
    case 3: return AttributeValue::Bool(pick(2));
    case 4: return AttributeValue::Null();
    case 5: {
      model::Map m;
      for (int i = pick(4); i > 0; --i) m[text() + "k"] = RandomValue(rng, depth + 1);
      return AttributeValue::OfMap(std::move(m));
    }
    case 6: {
      model::List l;
      for (int i = pick(4); i > 0; --i) l.push_back(RandomValue(rng, depth + 1));
      return AttributeValue::OfList(std::move(l));
    }
    default: {
      ValueType t = kind == 7 ? ValueType::kSS : kind == 8 ? ValueType::kNS : ValueType::kBS;
      std::vector<std::string> members;
      for (int i = 1 + pick(3); i > 0; --i) {
        std::string m = t == ValueType::kNS ? number() : text() + std::to_string(i);
        if (std::find(members.begin(), members.end(), m) == members.end()) members.push_back(m);
      }
      return AttributeValue::Set(t, std::move(members));
    }
  }
}

TEST(IonItem, RandomItemsRoundTrip) {
  std::mt19937 rng(2026);
  for (int round = 0; round < 2000; ++round) {
    model::Item item;
    for (int i = static_cast<int>(rng() % 6); i >= 0; --i) {
      item["a" + std::to_string(i)] = RandomValue(rng, 1);
    }
    std::string line = FormatIonItemLine(item);
    ASSERT_EQ(line.find('\n'), std::string::npos) << line;
    auto back = ParseIonItemLine(line);
    ASSERT_TRUE(back) << line << ": " << back.error().message();
    ASSERT_EQ(*back, item) << line;
  }
}

}  // namespace
}  // namespace ttlstore::dataio
