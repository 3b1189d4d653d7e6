// The PlainBuffer codec against the byte-level vectors captured from the official Node SDK
// (tablestore-protocol.md section 2.5), round trips of every type, and hostile input.
#include "tablestore/plainbuffer.h"

#include <gtest/gtest.h>

namespace ttlstore::tablestore {
namespace {

using model::CellType;
using model::CellValue;

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

// The GetRow key gid=20013 (INTEGER), uid="u1" (STRING) as the Node SDK sent it.
const char kGetRowKey[] =
    "75000000 01"
    " 03 04 03000000 676964 05 09000000 00 2d4e000000000000 0a f3"
    " 03 04 03000000 756964 05 07000000 03 02000000 7531 0a 29"
    " 09 c2";

TEST(PlainBuffer, DecodesTheCapturedGetRowKey) {
  auto row = DecodeRow(Hex(kGetRowKey));
  ASSERT_TRUE(row.ok()) << row.error().message();
  ASSERT_EQ(row->primary_key.size(), 2u);
  EXPECT_EQ(row->primary_key[0].name, "gid");
  EXPECT_EQ(*row->primary_key[0].value, CellValue::Integer(20013));
  EXPECT_EQ(row->primary_key[1].name, "uid");
  EXPECT_EQ(*row->primary_key[1].value, CellValue::String("u1"));
  EXPECT_TRUE(row->attributes.empty());
  EXPECT_FALSE(row->delete_marker);
}

TEST(PlainBuffer, EncodesTheCapturedGetRowKeyByteForByte) {
  PbRow row;
  row.primary_key.push_back({"gid", CellValue::Integer(20013), CellOp::kNone, std::nullopt});
  row.primary_key.push_back({"uid", CellValue::String("u1"), CellOp::kNone, std::nullopt});
  EXPECT_EQ(EncodeRow(row), Hex(kGetRowKey));
}

TEST(PlainBuffer, DeleteMarkerChangesTheRowChecksum) {
  std::string bytes = Hex(kGetRowKey);
  bytes.resize(bytes.size() - 2);
  bytes += Hex("08 09 c5");
  auto row = DecodeRow(bytes);
  ASSERT_TRUE(row.ok()) << row.error().message();
  EXPECT_TRUE(row->delete_marker);
  PbRow again = *row;
  EXPECT_EQ(EncodeRow(again), bytes);
}

// Wraps one attribute cell (bytes after the 0x03 tag, up to and including the 0x0a tag and its
// checksum) in a row with the GetRow key, recomputing only the row checksum.
std::string RowWithCell(std::string_view cell_after_tag, uint8_t cell_crc) {
  std::string bytes = Hex(kGetRowKey);
  bytes.resize(bytes.size() - 2);  // drop 09 c2
  bytes += Hex("02 03");
  bytes += Hex(cell_after_tag);
  bytes.push_back(static_cast<char>(cell_crc));
  uint8_t row_crc = 0;
  for (uint8_t c : {uint8_t{0xf3}, uint8_t{0x29}, cell_crc, uint8_t{0}}) {
    row_crc = Crc8(row_crc, std::string_view(reinterpret_cast<const char*>(&c), 1));
  }
  bytes.push_back(0x09);
  bytes.push_back(static_cast<char>(row_crc));
  return bytes;
}

TEST(PlainBuffer, CellVectorsFromTheSdk) {
  struct Vector {
    const char* bytes;
    uint8_t crc;
  };
  // DOUBLE 3.25 @1700000000000, DELETE_ONE_VERSION @1700000000000, DELETE_ALL_VERSION,
  // INCREMENT 5.
  const Vector vectors[] = {
      {"04 04000000 636f6c32 05 09000000 01 0000000000000a40 07 0068e5cf8b010000 0a", 0xd2},
      {"04 04000000 636f6c32 06 03 07 0068e5cf8b010000 0a", 0x72},
      {"04 04000000 636f6c33 06 01 0a", 0x73},
      {"04 03000000 636e74 05 09000000 00 0500000000000000 06 04 0a", 0x14},
  };
  auto row = DecodeRow(RowWithCell(vectors[0].bytes, vectors[0].crc));
  ASSERT_TRUE(row.ok()) << row.error().message();
  ASSERT_EQ(row->attributes.size(), 1u);
  EXPECT_EQ(*row->attributes[0].value, CellValue::Double(3.25));
  EXPECT_EQ(*row->attributes[0].timestamp, 1700000000000);

  row = DecodeRow(RowWithCell(vectors[1].bytes, vectors[1].crc));
  ASSERT_TRUE(row.ok()) << row.error().message();
  EXPECT_EQ(row->attributes[0].op, CellOp::kDeleteOneVersion);
  EXPECT_FALSE(row->attributes[0].value.has_value());
  EXPECT_EQ(*row->attributes[0].timestamp, 1700000000000);

  row = DecodeRow(RowWithCell(vectors[2].bytes, vectors[2].crc));
  ASSERT_TRUE(row.ok()) << row.error().message();
  EXPECT_EQ(row->attributes[0].name, "col3");
  EXPECT_EQ(row->attributes[0].op, CellOp::kDeleteAllVersions);
  EXPECT_FALSE(row->attributes[0].timestamp.has_value());

  row = DecodeRow(RowWithCell(vectors[3].bytes, vectors[3].crc));
  ASSERT_TRUE(row.ok()) << row.error().message();
  EXPECT_EQ(row->attributes[0].op, CellOp::kIncrement);
  EXPECT_EQ(*row->attributes[0].value, CellValue::Integer(5));

  // A wrong cell checksum is refused.
  EXPECT_FALSE(DecodeRow(RowWithCell(vectors[0].bytes, vectors[0].crc ^ 1)).ok());
}

TEST(PlainBuffer, Crc8TableStartsAsTheSpecSays) {
  // Polynomial 0x07: the table is 00 07 0E 09 ...
  for (uint8_t b : {0, 1, 2, 3}) {
    char c = static_cast<char>(b);
    uint8_t expected[] = {0x00, 0x07, 0x0e, 0x09};
    EXPECT_EQ(Crc8(0, std::string_view(&c, 1)), expected[b]);
  }
}

TEST(PlainBuffer, RoundTripsEveryTypeAndManyRows) {
  std::vector<PbRow> rows(2);
  rows[0].primary_key.push_back({"k", CellValue::Blob(std::string("\0\xff", 2)), CellOp::kNone, {}});
  rows[0].primary_key.push_back({"lo", CellValue::Marker(CellType::kInfMin), CellOp::kNone, {}});
  rows[0].primary_key.push_back({"hi", CellValue::Marker(CellType::kInfMax), CellOp::kNone, {}});
  rows[0].primary_key.push_back({"ai", CellValue::Marker(CellType::kAutoIncrement), CellOp::kNone, {}});
  rows[1].primary_key.push_back({"k", CellValue::Integer(-1), CellOp::kNone, {}});
  rows[1].attributes.push_back({"i", CellValue::Integer(INT64_MIN), CellOp::kNone, -5});
  rows[1].attributes.push_back({"d", CellValue::Double(-0.5), CellOp::kNone, 0});
  rows[1].attributes.push_back({"b", CellValue::Boolean(true), CellOp::kNone, 1});
  rows[1].attributes.push_back({"s", CellValue::String("héllo"), CellOp::kNone, std::nullopt});
  rows[1].attributes.push_back({"e", CellValue::String(""), CellOp::kNone, std::nullopt});
  std::string bytes = EncodeRows(rows);
  auto back = DecodeRows(bytes);
  ASSERT_TRUE(back.ok()) << back.error().message();
  ASSERT_EQ(back->size(), 2u);
  EXPECT_EQ(EncodeRows(*back), bytes);
  EXPECT_EQ((*back)[0].primary_key[1].value->type, CellType::kInfMin);
  EXPECT_EQ(*(*back)[1].attributes[0].timestamp, -5);
  EXPECT_EQ(*(*back)[1].attributes[3].value, CellValue::String("héllo"));
  // One row where one is expected is an error; zero rows decode as none.
  EXPECT_FALSE(DecodeRow(bytes).ok());
  auto none = DecodeRows(Hex("75000000"));
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST(PlainBuffer, TrailingZeroPaddingIsIgnored) {
  // The Node SDK's size estimate leaves zero bytes after the last row checksum.
  std::string bytes = Hex(kGetRowKey) + std::string(27, '\0');
  EXPECT_TRUE(DecodeRow(bytes).ok());
  EXPECT_FALSE(DecodeRow(Hex(kGetRowKey) + std::string("\0\x01", 2)).ok());
}

TEST(PlainBuffer, RejectsBadHeaderAndEveryTruncation) {
  std::string bytes = Hex(kGetRowKey);
  std::string bad = bytes;
  bad[0] = 0x76;
  EXPECT_FALSE(DecodeRows(bad).ok());
  for (size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_FALSE(DecodeRow(bytes.substr(0, n)).ok()) << "prefix of " << n << " bytes";
  }
  // Every single-byte corruption is refused or decodes to a different row, never crashes.
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string c = bytes;
    c[i] = static_cast<char>(c[i] ^ 0x5a);
    (void)DecodeRows(c);
  }
}

TEST(PlainBuffer, LengthsLargerThanTheBufferAreErrors) {
  // Name length 0x7fffffff.
  EXPECT_FALSE(DecodeRow(Hex("75000000 01 03 04 ffffff7f 676964")).ok());
  // Value length larger than what follows.
  EXPECT_FALSE(DecodeRow(Hex("75000000 01 03 04 03000000 676964 05 ffff0000 00")).ok());
  // A string whose inner length overruns its value length.
  EXPECT_FALSE(DecodeRow(Hex("75000000 01 03 04 01000000 61 05 06000000 03 ff000000 61 0a 00 09 00"))
                   .ok());
  // Unknown value type.
  EXPECT_FALSE(DecodeValue(Hex("05 00")).ok());
}

TEST(PlainBuffer, BareValuesForFilters) {
  for (const CellValue& v : {CellValue::Integer(7), CellValue::Double(1.5), CellValue::Boolean(false),
                             CellValue::String("x"), CellValue::Blob("yz")}) {
    auto back = DecodeValue(EncodeValue(v));
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, v);
  }
  EXPECT_EQ(EncodeValue(CellValue::Integer(1)), Hex("00 0100000000000000"));
}

}  // namespace
}  // namespace ttlstore::tablestore
