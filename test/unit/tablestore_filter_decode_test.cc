// The filter decoder (tablestore/filter_decode.h): filters as the SDKs encode them, the
// service's bounds and messages, and hostile bytes (nesting a million levels deep, hundreds of
// thousands of sub-filters, random bytes) that must cost neither stack nor heap beyond 32 nodes.
#include <gtest/gtest.h>

#include <random>

#include "small_stack.h"
#include "tablestore/filter_decode.h"
#include "tablestore/plainbuffer.h"
#include "tablestore/wire_check.h"

namespace ttlstore::tablestore {
namespace {

using model::CellValue;
using versions::Filter;

// ---- a tiny protobuf writer for the tests ------------------------------------------------------

void Varint(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}
size_t VarintSize(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}
void IntField(std::string* out, uint32_t number, uint64_t v) {
  Varint(out, uint64_t{number} << 3);
  Varint(out, v);
}
void BytesField(std::string* out, uint32_t number, std::string_view v) {
  Varint(out, (uint64_t{number} << 3) | 2);
  Varint(out, v.size());
  out->append(v);
}

std::string FilterMsg(uint64_t type, std::string_view inner) {
  std::string out;
  IntField(&out, 1, type);
  BytesField(&out, 2, inner);
  return out;
}

std::string SingleMsg(int comparator, std::string_view column, const CellValue& v,
                      bool filter_if_missing = false, bool latest_only = true) {
  std::string s;
  IntField(&s, 1, comparator);
  BytesField(&s, 2, column);
  BytesField(&s, 3, EncodeValue(v));
  IntField(&s, 4, filter_if_missing);
  IntField(&s, 5, latest_only);
  return FilterMsg(1, s);
}

std::string CompositeMsg(int op, const std::vector<std::string>& subs) {
  std::string s;
  IntField(&s, 1, op);
  for (const auto& sub : subs) BytesField(&s, 2, sub);
  return FilterMsg(2, s);
}

std::string PaginationMsg(int64_t offset, int64_t limit) {
  std::string s;
  IntField(&s, 1, static_cast<uint64_t>(offset));
  IntField(&s, 2, static_cast<uint64_t>(limit));
  return FilterMsg(3, s);
}

std::string ErrorOf(std::string_view bytes, FilterUse use = FilterUse::kRead) {
  auto r = DecodeFilter(bytes, use);
  return r.ok() ? std::string("ok") : r.error().message();
}

const std::string kTooMany = "The count of filter exceeds the max: 32.";

// ---- tests
// ---------------------------------------------------------------------------------------

TEST(FilterDecode, DecodesWhatTheSdksSend) {
  auto r = DecodeFilter(CompositeMsg(2, {SingleMsg(3, "col", CellValue::Integer(5), true, false),
                                         SingleMsg(1, "s", CellValue::String("x"))}),
                        FilterUse::kCondition);
  ASSERT_TRUE(r.ok()) << r.error().message();
  const Filter& f = **r;
  ASSERT_EQ(f.kind, Filter::Kind::kComposite);
  EXPECT_EQ(f.op, versions::LogicOp::kAnd);
  ASSERT_EQ(f.children.size(), 2u);
  EXPECT_EQ(f.children[0].column, "col");
  EXPECT_EQ(f.children[0].comparator, versions::Comparator::kGreaterThan);
  EXPECT_EQ(f.children[0].value, CellValue::Integer(5));
  EXPECT_FALSE(f.children[0].pass_if_missing);
  EXPECT_FALSE(f.children[0].latest_version_only);
  EXPECT_TRUE(f.children[1].pass_if_missing);
  EXPECT_EQ(f.children[1].value, CellValue::String("x"));

  auto p = DecodeFilter(PaginationMsg(2, 3), FilterUse::kRead);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ((*p)->kind, Filter::Kind::kPagination);
  EXPECT_EQ((*p)->offset, 2);
  EXPECT_EQ((*p)->limit, 3);
}

// The shapes of the SDK's restriction tests: deep chains, one wide level, a binary tree.
std::string Chain(int nodes, int op) {
  // The innermost level holds two singles (3 nodes); each level around it adds a single and
  // itself (2 nodes). REQUIRES: nodes odd, >= 3.
  std::string inner = CompositeMsg(
      op, {SingleMsg(1, "b", CellValue::String("B")), SingleMsg(1, "c", CellValue::String("C"))});
  for (int count = 3; count < nodes; count += 2) {
    inner = CompositeMsg(op, {SingleMsg(1, "a", CellValue::String("A")), inner});
  }
  return inner;
}

std::string Wide(int nodes, int op) {
  std::vector<std::string> subs(nodes - 1, SingleMsg(4, "w", CellValue::String("A")));
  return CompositeMsg(op, subs);
}

std::string Binary(int number, int nodes, int op) {  // heap numbering, as the SDK's test builds
  bool left = 2 * number <= nodes, right = 2 * number + 1 <= nodes;
  if (!left) return SingleMsg(1, "x", CellValue::String("A"));
  std::vector<std::string> subs = {Binary(2 * number, nodes, op)};
  if (right) subs.push_back(Binary(2 * number + 1, nodes, op));
  return CompositeMsg(right ? op : 1, subs);
}

TEST(FilterDecode, ThirtyTwoFiltersPassAndThirtyThreeFailWhateverTheShape) {
  for (int op : {2, 3}) {
    EXPECT_EQ(ErrorOf(Chain(31, op)), "ok");
    EXPECT_EQ(ErrorOf(Chain(33, op)), kTooMany);
    EXPECT_EQ(ErrorOf(Wide(32, op)), "ok");
    EXPECT_EQ(ErrorOf(Wide(33, op)), kTooMany);
    EXPECT_EQ(ErrorOf(Binary(1, 32, op)), "ok");
    EXPECT_EQ(ErrorOf(Binary(1, 33, op)), kTooMany);
    EXPECT_EQ(ErrorOf(Binary(1, 33, op), FilterUse::kCondition), kTooMany);
  }
  // The count wins over an arity error elsewhere in the tree.
  std::vector<std::string> subs(32, SingleMsg(1, "w", CellValue::Integer(1)));
  subs.push_back(CompositeMsg(1, {}));
  EXPECT_EQ(ErrorOf(CompositeMsg(2, subs)), kTooMany);
}

TEST(FilterDecode, TheServicesArityRules) {
  auto s = SingleMsg(1, "c", CellValue::Boolean(false));
  EXPECT_EQ(ErrorOf(CompositeMsg(3, {s})),
            "Invalid AND/OR operator: the number of sub-filters must be more than 1.");
  EXPECT_EQ(ErrorOf(CompositeMsg(2, {s})),
            "Invalid AND/OR operator: the number of sub-filters must be more than 1.");
  EXPECT_EQ(ErrorOf(CompositeMsg(1, {s, s})),
            "Invalid NOT operator: the number of sub-filters must be 1.");
  EXPECT_EQ(ErrorOf(CompositeMsg(1, std::vector<std::string>(9, s))),
            "Invalid NOT operator: the number of sub-filters must be 1.");
  EXPECT_EQ(ErrorOf(CompositeMsg(1, {})),
            "Invalid NOT operator: the number of sub-filters must be 1.");
  EXPECT_EQ(ErrorOf(CompositeMsg(1, {s})), "ok");
}

TEST(FilterDecode, ValuesNamesAndPaginationAreChecked) {
  std::string big(2 * 1024 * 1024 + 1, 'a');
  EXPECT_EQ(ErrorOf(SingleMsg(1, "Column", CellValue::String(big))),
            "The length of attribute column: 'Column' exceeds the MaxLength:2097152 with "
            "CurrentLength:2097153.");
  EXPECT_EQ(ErrorOf(CompositeMsg(3, {SingleMsg(1, "Column", CellValue::Blob(big)),
                                     SingleMsg(1, "Column1", CellValue::Boolean(false))})),
            "The length of attribute column: 'Column' exceeds the MaxLength:2097152 with "
            "CurrentLength:2097153.");
  EXPECT_EQ(ErrorOf(SingleMsg(1, "Column", CellValue::String(std::string(2 << 20, 'a')))), "ok");
  EXPECT_EQ(ErrorOf(SingleMsg(1, "", CellValue::Integer(1))), "Invalid column name: ''.");
  EXPECT_EQ(ErrorOf(SingleMsg(1, std::string(256, 'n'), CellValue::Integer(1))),
            "Invalid column name: '" + std::string(256, 'n') + "'.");
  EXPECT_EQ(ErrorOf(PaginationMsg(0, 1), FilterUse::kCondition),
            "ColumnPaginationFilter cannot be used as a column condition.");
  EXPECT_EQ(
      ErrorOf(CompositeMsg(2, {PaginationMsg(0, 1), SingleMsg(1, "c", CellValue::Integer(1))})),
      "ColumnPaginationFilter cannot be a sub-filter of a composite filter.");
  EXPECT_EQ(ErrorOf(PaginationMsg(-1, 1)),
            "Invalid ColumnPaginationFilter: offset and limit must not be negative.");
  EXPECT_EQ(ErrorOf(FilterMsg(4, "")), "Invalid filter type: 4.");
}

TEST(FilterDecode, BytesThatDoNotParseOrLackARequiredField) {
  const std::string parse_failed(kParseFailedMessage);
  EXPECT_EQ(ErrorOf(std::string("\x08", 1)), parse_failed);      // truncated varint
  EXPECT_EQ(ErrorOf(std::string("\x12\x05", 2)), parse_failed);  // length past the end
  EXPECT_EQ(ErrorOf(std::string("\x0b", 1)), parse_failed);      // a group
  EXPECT_EQ(ErrorOf(FilterMsg(1, "")), parse_failed);            // single without fields
  std::string no_value;
  IntField(&no_value, 1, 1);
  BytesField(&no_value, 2, "c");
  IntField(&no_value, 4, 0);
  IntField(&no_value, 5, 1);
  EXPECT_EQ(ErrorOf(FilterMsg(1, no_value)), parse_failed);
  std::string bad_comparator = no_value;
  BytesField(&bad_comparator, 3, EncodeValue(CellValue::Integer(1)));
  EXPECT_EQ(ErrorOf(FilterMsg(1, bad_comparator)), "ok");
  bad_comparator[1] = 7;  // comparator 7
  EXPECT_EQ(ErrorOf(FilterMsg(1, bad_comparator)), parse_failed);
  EXPECT_EQ(ErrorOf(CompositeMsg(4, {})), parse_failed);  // combinator 4
}

// Filter{composite NOT{ ... }} nested `levels` deep around one single filter, built in O(n).
std::string Nested(size_t levels) {
  std::string leaf = SingleMsg(1, "c", CellValue::Integer(1));
  std::vector<size_t> filter_len(levels + 1), composite_len(levels + 1);
  filter_len[0] = leaf.size();
  for (size_t k = 1; k <= levels; ++k) {
    composite_len[k] = 2 + 1 + VarintSize(filter_len[k - 1]) + filter_len[k - 1];
    filter_len[k] = 2 + 1 + VarintSize(composite_len[k]) + composite_len[k];
  }
  std::string out;
  out.reserve(filter_len[levels]);
  for (size_t k = levels; k >= 1; --k) {
    IntField(&out, 1, 2);
    Varint(&out, (2u << 3) | 2);
    Varint(&out, composite_len[k]);
    IntField(&out, 1, 1);  // NOT
    Varint(&out, (2u << 3) | 2);
    Varint(&out, filter_len[k - 1]);
  }
  out += leaf;
  EXPECT_EQ(out.size(), filter_len[levels]);
  return out;
}

TEST(FilterDecode, AMillionLevelsDeepIsRefusedOnASmallStack) {
  EXPECT_EQ(ErrorOf(Nested(31)), "ok");
  EXPECT_EQ(ErrorOf(Nested(32)), kTooMany);
  for (size_t levels : {33u, 1000u, 100000u, 1000000u}) {
    std::string bytes = Nested(levels);
    std::string error;
    size_t peak = testing::PeakStackOnSmallThread([&] { error = ErrorOf(bytes); });
    EXPECT_EQ(error, kTooMany) << levels;
    EXPECT_LT(peak, testing::kSmallStackBytes / 4) << levels;
  }
}

TEST(FilterDecode, HundredsOfThousandsOfSubFiltersAreCountedBeforeAnyIsDecoded) {
  for (size_t n : {33u, 1000u, 200000u, 2000000u}) {
    std::string s;
    IntField(&s, 1, 3);
    for (size_t i = 0; i < n; ++i) BytesField(&s, 2, "");
    EXPECT_EQ(ErrorOf(FilterMsg(2, s)), kTooMany) << n;
  }
}

TEST(FilterDecode, RandomBytesNeverCrash) {
  std::mt19937 rng(99);
  std::string seed =
      CompositeMsg(3, {SingleMsg(1, "a", CellValue::Integer(1)),
                       CompositeMsg(1, {SingleMsg(2, "b", CellValue::String("x"))})});
  int ok = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string bytes = seed;
    int flips = 1 + int(rng() % 4);
    for (int j = 0; j < flips; ++j) bytes[rng() % bytes.size()] = static_cast<char>(rng());
    if (rng() % 4 == 0) bytes.resize(rng() % bytes.size());
    ok += DecodeFilter(bytes, FilterUse::kRead).ok() ? 1 : 0;
  }
  EXPECT_GT(ok, 0);
}

}  // namespace
}  // namespace ttlstore::tablestore
