// The SimpleRowMatrix encoder: blocks read back the way the SDKs read them (the Go SDK's
// matrix.go walk: header, names, seek to the options, row count, seek to the data, rows of
// typed cells; plus the Java SDK's SimpleRowMatrixBlockParser checks: options in the order
// TAG_ENTIRE_PRIMARY_KEYS then TAG_ROW_COUNT, the footer's tag and CRC-8), and byte for byte
// against a block written out by hand from that layout. GetRange's field choice and the
// refusals of range_output.h.
#include "tablestore/simple_row_matrix.h"

#include <gtest/gtest.h>

#include <cstring>
#include <optional>

#include "tablestore/range_output.h"

namespace ttlstore::tablestore {
namespace {

using model::CellType;
using model::CellValue;

// A bounds-checked little-endian reader; any short read fails the decode.
class Reader {
 public:
  explicit Reader(std::string_view b) : b_(b) {}
  bool Seek(size_t at) {
    if (at > b_.size()) return false;
    pos_ = at;
    return true;
  }
  size_t pos() const { return pos_; }
  bool Bytes(size_t n, std::string* out) {
    if (b_.size() - pos_ < n) return false;
    out->assign(b_.substr(pos_, n));
    pos_ += n;
    return true;
  }
  bool U8(uint8_t* v) {
    std::string s;
    if (!Bytes(1, &s)) return false;
    *v = static_cast<uint8_t>(s[0]);
    return true;
  }
  template <typename T>
  bool Le(T* v) {
    std::string s;
    if (!Bytes(sizeof(T), &s)) return false;
    uint64_t x = 0;
    for (size_t i = 0; i < sizeof(T); ++i) x |= uint64_t{static_cast<uint8_t>(s[i])} << (8 * i);
    std::memcpy(v, &x, sizeof(T));  // little-endian host
    return true;
  }

 private:
  std::string_view b_;
  size_t pos_ = 0;
};

struct Decoded {
  std::vector<std::string> names;
  int32_t pk_count = 0;
  int32_t attr_count = 0;
  bool entire = false;
  // Per row, per field: the value, or nullopt for NULL.
  std::vector<std::vector<std::optional<CellValue>>> rows;
};

std::optional<CellValue> ReadCell(Reader& r, bool* ok) {
  uint8_t type;
  *ok = false;
  if (!r.U8(&type)) return std::nullopt;
  switch (type) {
    case 0x00: {
      int64_t v;
      if (!r.Le(&v)) return std::nullopt;
      *ok = true;
      return CellValue::Integer(v);
    }
    case 0x01: {
      uint64_t bits;
      if (!r.Le(&bits)) return std::nullopt;
      double d;
      std::memcpy(&d, &bits, 8);
      *ok = true;
      return CellValue::Double(d);
    }
    case 0x02: {
      uint8_t b;
      if (!r.U8(&b) || b > 1) return std::nullopt;
      *ok = true;
      return CellValue::Boolean(b != 0);
    }
    case 0x03:
    case 0x07: {
      int32_t len;
      std::string s;
      if (!r.Le(&len) || len < 0 || !r.Bytes(static_cast<size_t>(len), &s)) return std::nullopt;
      *ok = true;
      return type == 0x03 ? CellValue::String(s) : CellValue::Blob(s);
    }
    case 0x06:
      *ok = true;
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

// nullopt if the block is not one the SDKs read.
std::optional<Decoded> Decode(std::string_view block) {
  Decoded d;
  Reader r(block);
  uint32_t version;
  int32_t data_offset, option_offset;
  if (!r.Le(&version) || version != kMatrixApiVersion) return std::nullopt;
  if (!r.Le(&data_offset) || !r.Le(&option_offset) || !r.Le(&d.pk_count) || !r.Le(&d.attr_count) ||
      data_offset < 0 || option_offset < 0 || d.pk_count < 0 || d.attr_count < 0) {
    return std::nullopt;
  }
  for (int32_t i = 0; i < d.pk_count + d.attr_count; ++i) {
    int16_t len;
    std::string name;
    if (!r.Le(&len) || len < 0 || !r.Bytes(static_cast<size_t>(len), &name)) return std::nullopt;
    d.names.push_back(name);
  }
  // Java: the options follow in this order; Go: skips the first, stops at the row count.
  uint8_t tag, entire;
  int32_t row_count;
  if (!r.Seek(static_cast<size_t>(option_offset)) || !r.U8(&tag) ||
      tag != kMatrixTagEntirePrimaryKeys || !r.U8(&entire) || entire > 1 || !r.U8(&tag) ||
      tag != kMatrixTagRowCount || !r.Le(&row_count) || row_count < 0) {
    return std::nullopt;
  }
  d.entire = entire == 1;
  // Java: the footer is the last two bytes, its CRC over every byte before the CRC.
  if (block.size() < 2 || static_cast<uint8_t>(block[block.size() - 2]) != kMatrixTagChecksum ||
      static_cast<uint8_t>(block.back()) != Crc8(0, block.substr(0, block.size() - 1))) {
    return std::nullopt;
  }
  if (!r.Seek(static_cast<size_t>(data_offset))) return std::nullopt;
  for (int32_t i = 0; i < row_count; ++i) {
    if (!r.U8(&tag) || tag != kMatrixTagRow) return std::nullopt;
    std::vector<std::optional<CellValue>> row;
    for (size_t f = 0; f < d.names.size(); ++f) {
      bool ok;
      auto v = ReadCell(r, &ok);
      if (!ok) return std::nullopt;
      // Go and Java refuse a NULL key cell.
      if (static_cast<int32_t>(f) < d.pk_count && !v) return std::nullopt;
      row.push_back(std::move(v));
    }
    d.rows.push_back(std::move(row));
  }
  // Java reads rows up to the footer: nothing may lie between the last row and it.
  if (r.pos() != block.size() - 2) return std::nullopt;
  return d;
}

PbCell Cell(std::string name, CellValue v, std::optional<int64_t> ts = std::nullopt) {
  PbCell c;
  c.name = std::move(name);
  c.value = std::move(v);
  c.timestamp = ts;
  return c;
}

std::string Hex(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size();) {
    if (hex[i] == ' ') {
      ++i;
      continue;
    }
    out.push_back(static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
    i += 2;
  }
  return out;
}

TEST(SimpleRowMatrix, MatchesTheLayoutByteForByte) {
  // Key pk (INTEGER 5), attribute a (STRING "x"), b absent.
  MatrixFields fields{{"pk"}, {"a", "b"}, true};
  PbRow row;
  row.primary_key.push_back(Cell("pk", CellValue::Integer(5)));
  row.attributes.push_back(Cell("a", CellValue::String("x"), 1000));
  auto block = EncodeSimpleRowMatrix(fields, {row});
  ASSERT_TRUE(block.ok());
  std::string expected =
      Hex("5352 4d30"                                      // api version 0x304d5253
          " 2500 0000"                                     // data offset 37
          " 1e00 0000"                                     // option offset 30
          " 0100 0000 0200 0000"                           // 1 key column, 2 attributes
          " 0200 706b 0100 61 0100 62"                     // "pk", "a", "b"
          " 0a 01 03 0100 0000"                            // entire key, 1 row
          " 02 00 0500 0000 0000 0000 03 0100 0000 78 06"  // row: 5, "x", NULL
          " 01");                                          // checksum tag; CRC appended below
  expected.push_back(static_cast<char>(Crc8(0, expected)));
  EXPECT_EQ(*block, expected);
}

TEST(SimpleRowMatrix, RoundTripsEveryTypeAndNull) {
  MatrixFields fields{{"k1", "k2", "k3"}, {"i", "d", "t", "f", "s", "b", "missing"}, true};
  PbRow row;
  row.primary_key = {Cell("k1", CellValue::String("ké")), Cell("k2", CellValue::Integer(-7)),
                     Cell("k3", CellValue::Blob(std::string("\0\xff", 2)))};
  row.attributes = {Cell("b", CellValue::Blob(std::string(3, '\0'))),
                    Cell("d", CellValue::Double(-2.5)),
                    Cell("f", CellValue::Boolean(false)),
                    Cell("i", CellValue::Integer(INT64_MIN)),
                    Cell("s", CellValue::String("")),
                    Cell("t", CellValue::Boolean(true))};
  auto block = EncodeSimpleRowMatrix(fields, {row, row});
  ASSERT_TRUE(block.ok());
  auto d = Decode(*block);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->pk_count, 3);
  EXPECT_EQ(d->attr_count, 7);
  EXPECT_TRUE(d->entire);
  EXPECT_EQ(d->names,
            (std::vector<std::string>{"k1", "k2", "k3", "i", "d", "t", "f", "s", "b", "missing"}));
  ASSERT_EQ(d->rows.size(), 2u);
  const auto& r = d->rows[1];
  EXPECT_EQ(*r[0], CellValue::String("ké"));
  EXPECT_EQ(*r[1], CellValue::Integer(-7));
  EXPECT_EQ(*r[2], CellValue::Blob(std::string("\0\xff", 2)));
  EXPECT_EQ(*r[3], CellValue::Integer(INT64_MIN));
  EXPECT_EQ(*r[4], CellValue::Double(-2.5));
  EXPECT_EQ(*r[5], CellValue::Boolean(true));
  EXPECT_EQ(*r[6], CellValue::Boolean(false));
  EXPECT_EQ(*r[7], CellValue::String(""));
  EXPECT_EQ(*r[8], CellValue::Blob(std::string(3, '\0')));
  EXPECT_FALSE(r[9].has_value());
}

TEST(SimpleRowMatrix, TakesTheNewestVersionOfEachColumn) {
  // ToPbRow lists a column's versions newest first.
  MatrixFields fields{{"pk"}, {"a"}, true};
  PbRow row;
  row.primary_key.push_back(Cell("pk", CellValue::Integer(1)));
  row.attributes = {Cell("a", CellValue::Integer(3), 3000), Cell("a", CellValue::Integer(2), 2000),
                    Cell("a", CellValue::String("old"), 1000)};
  auto d = Decode(*EncodeSimpleRowMatrix(fields, {row}));
  ASSERT_TRUE(d.has_value());
  ASSERT_EQ(d->rows.size(), 1u);
  EXPECT_EQ(*d->rows[0][1], CellValue::Integer(3));
}

TEST(SimpleRowMatrix, ZeroRowsMakeAValidBlock) {
  auto block = EncodeSimpleRowMatrix({{"pk"}, {"a"}, true}, {});
  ASSERT_TRUE(block.ok());
  auto d = Decode(*block);
  ASSERT_TRUE(d.has_value());
  EXPECT_TRUE(d->rows.empty());
  EXPECT_EQ(d->names, (std::vector<std::string>{"pk", "a"}));
}

TEST(SimpleRowMatrix, ZeroKeyColumnsAndAPartialKey) {
  PbRow row;
  row.primary_key = {Cell("k1", CellValue::Integer(1)), Cell("k2", CellValue::Integer(2))};
  row.attributes = {Cell("a", CellValue::Integer(9))};
  auto none = Decode(*EncodeSimpleRowMatrix({{}, {"a"}, false}, {row}));
  ASSERT_TRUE(none.has_value());
  EXPECT_EQ(none->pk_count, 0);
  EXPECT_FALSE(none->entire);
  EXPECT_EQ(*none->rows[0][0], CellValue::Integer(9));
  auto partial = Decode(*EncodeSimpleRowMatrix({{"k2"}, {"a"}, false}, {row}));
  ASSERT_TRUE(partial.has_value());
  EXPECT_EQ(partial->names, (std::vector<std::string>{"k2", "a"}));
  EXPECT_EQ(*partial->rows[0][0], CellValue::Integer(2));
}

TEST(SimpleRowMatrix, ManyFieldsStayLinear) {
  // 1024 attributes, each with 2 versions, 200 rows: one pass per row, not fields x cells.
  MatrixFields fields{{"pk"}, {}, true};
  PbRow row;
  row.primary_key.push_back(Cell("pk", CellValue::Integer(1)));
  for (int i = 0; i < 1024; ++i) {
    std::string name = "c" + std::to_string(10000 + i);
    fields.attributes.push_back(name);
    row.attributes.push_back(Cell(name, CellValue::Integer(i), 2));
    row.attributes.push_back(Cell(name, CellValue::Integer(-i), 1));
  }
  std::vector<PbRow> rows(200, row);
  auto d = Decode(*EncodeSimpleRowMatrix(fields, rows));
  ASSERT_TRUE(d.has_value());
  ASSERT_EQ(d->rows.size(), 200u);
  EXPECT_EQ(*d->rows[199][1024], CellValue::Integer(1023));
}

TEST(SimpleRowMatrix, FieldsOfAGetRange) {
  const std::vector<std::string> key{"k1", "k2"};
  auto f = MatrixFieldsOf(key, key, {"b", "k2", "a", "b"});
  EXPECT_EQ(f.primary_key, key);
  EXPECT_TRUE(f.entire_primary_key);
  // Key columns named are not attributes; a name asked twice is one field; the order is asked.
  EXPECT_EQ(f.attributes, (std::vector<std::string>{"b", "a"}));
  auto partial = MatrixFieldsOf(key, {"k2"}, {"k2", "a"});
  EXPECT_FALSE(partial.entire_primary_key);
  EXPECT_EQ(partial.primary_key, (std::vector<std::string>{"k2"}));
  EXPECT_EQ(partial.attributes, (std::vector<std::string>{"a"}));
}

otspb::GetRangeRequest Request(std::vector<std::string> columns) {
  otspb::GetRangeRequest req;
  req.set_table_name("t");
  for (auto& c : columns) req.add_columns_to_get(c);
  return req;
}

TEST(RangeOutput, DefaultsToPlainBufferAndTheWholeKey) {
  auto out = RangeOutputOf(Request({"k2"}), {"k1", "k2"});
  ASSERT_TRUE(out.ok());
  EXPECT_FALSE(out->matrix);
  EXPECT_EQ(out->key_columns, (std::vector<std::string>{"k1", "k2"}));
}

TEST(RangeOutput, SpecifiedKeyColumnsOnly) {
  auto req = Request({"a", "k2"});
  req.set_return_entire_primary_keys(false);
  auto out = RangeOutputOf(req, {"k1", "k2"});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->key_columns, (std::vector<std::string>{"k2"}));
  // No columns to get: every column is asked for, the key included.
  auto all = Request({});
  all.set_return_entire_primary_keys(false);
  EXPECT_EQ(RangeOutputOf(all, {"k1", "k2"})->key_columns, (std::vector<std::string>{"k1", "k2"}));
  // Plain buffer rows lose the key cells not asked for.
  PbRow row;
  row.primary_key = {Cell("k1", CellValue::Integer(1)), Cell("k2", CellValue::Integer(2))};
  auto rows = DecodeRows(*EncodeRangeRows(*out, {row}));
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 1u);
  ASSERT_EQ((*rows)[0].primary_key.size(), 1u);
  EXPECT_EQ((*rows)[0].primary_key[0].name, "k2");
}

TEST(RangeOutput, MatrixNeedsColumnsToGet) {
  auto req = Request({});
  req.set_data_block_type_hint(otspb::DBT_SIMPLE_ROW_MATRIX);
  auto out = RangeOutputOf(req, {"k1"});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error().message(), "DBT_SIMPLE_ROW_MATRIX need at least one column to get.");
}

TEST(RangeOutput, RefusesHintValuesTheProtocolLacks) {
  // The SDKs' enum values only; 5 arrives as an unknown field of the parsed request.
  for (int field : {15, 17}) {
    std::string body;
    Request({"a"}).SerializePartialToString(&body);
    for (uint32_t tag = static_cast<uint32_t>(field) << 3;; tag >>= 7) {  // varint wire type
      if (tag < 0x80) {
        body.push_back(static_cast<char>(tag));
        break;
      }
      body.push_back(static_cast<char>((tag & 0x7f) | 0x80));
    }
    body.push_back(5);
    otspb::GetRangeRequest req;
    ASSERT_TRUE(req.ParsePartialFromString(body));
    auto out = RangeOutputOf(req, {"k1"});
    ASSERT_FALSE(out.ok()) << field;
    EXPECT_NE(
        out.error().message().find(field == 15 ? "data_block_type_hint 5" : "compress_type_hint 5"),
        std::string::npos)
        << out.error().message();
  }
  auto zero = Request({"a"});
  zero.set_data_block_type_hint(otspb::DBT_PLAIN_BUFFER);
  zero.set_compress_type_hint(otspb::CPT_NONE);
  EXPECT_TRUE(RangeOutputOf(zero, {"k1"}).ok());
}

}  // namespace
}  // namespace ttlstore::tablestore
