// The PlainBuffer decoder on hostile buffers: lengths that lie (past the end, 2^31, 2^32-1),
// rows of 33 to 1,000,000 cells, names of absurd length, truncation, bad checksums and tags out
// of order. Each is refused with the service's message (docs/limits.md), memory stays bounded
// by the RowLimits, and nothing is read past the buffer.
#include <gtest/gtest.h>

#include <set>

#include "tablestore/plainbuffer.h"
#include "tablestore/row_convert.h"
#include "versions/row_key.h"

namespace ttlstore::tablestore {
namespace {

using model::CellValue;

std::string Msg(const Result<PbRow>& r) { return r.ok() ? "ok" : r.error().message(); }

PbCell Cell(std::string name, std::optional<CellValue> v) {
  PbCell c;
  c.name = std::move(name);
  c.value = std::move(v);
  return c;
}

// The encoded cells of a row (from 0x03 to the cell checksum), cut out of EncodeRow's output.
struct Parts {
  std::string pk_cell;    // one primary-key cell
  std::string attr_cell;  // one attribute cell
};
Parts PartsOf(const PbCell& pk, const PbCell& attr) {
  PbRow key;
  key.primary_key.push_back(pk);
  std::string k = EncodeRow(key);             // header, 01, cell, 09 crc
  std::string pk_cell = k.substr(5, k.size() - 7);
  PbRow full = key;
  full.attributes.push_back(attr);
  std::string f = EncodeRow(full);            // header, 01, cell, 02, cell, 09 crc
  std::string attr_cell = f.substr(5 + pk_cell.size() + 1, f.size() - 7 - pk_cell.size() - 1);
  return {pk_cell, attr_cell};
}

// A row of `pk_cells` copies of `pk_cell` and `attr_cells` of `attr_cell`, checksummed.
std::string RawRow(const std::string& pk_cell, size_t pk_cells, const std::string& attr_cell,
                   size_t attr_cells) {
  std::string out = std::string("\x75\x00\x00\x00", 4);
  out.reserve(4 + 3 + pk_cells * pk_cell.size() + attr_cells * attr_cell.size());
  uint8_t row_crc = 0;
  auto crc_of = [](const std::string& cell) { return cell.substr(cell.size() - 1); };
  out.push_back(0x01);
  for (size_t i = 0; i < pk_cells; ++i) {
    out += pk_cell;
    row_crc = Crc8(row_crc, crc_of(pk_cell));
  }
  if (attr_cells > 0) {
    out.push_back(0x02);
    for (size_t i = 0; i < attr_cells; ++i) {
      out += attr_cell;
      row_crc = Crc8(row_crc, crc_of(attr_cell));
    }
  }
  row_crc = Crc8(row_crc, std::string(1, '\0'));
  out.push_back(0x09);
  out.push_back(static_cast<char>(row_crc));
  return out;
}

const Parts kParts = PartsOf(Cell("pk", CellValue::String("k")), Cell("c", CellValue::Integer(7)));

TEST(PlainBufferHostile, RowsOfManyCellsKeepAtMostTheLimit) {
  for (size_t n : {size_t{33}, size_t{1000}, size_t{1024}, size_t{1025}, size_t{100000},
                   size_t{1000000}}) {
    auto row = DecodeRow(RawRow(kParts.pk_cell, 1, kParts.attr_cell, n));
    if (n <= 1024) {
      ASSERT_TRUE(row.ok()) << n << ": " << Msg(row);
      EXPECT_EQ(row->attributes.size(), n);
    } else {
      EXPECT_EQ(Msg(row), "The number of attribute columns exceeds the limit, limit count: 1024, "
                          "column count: " + std::to_string(n) + ".");
    }
  }
  // More primary-key cells than any table has.
  for (size_t n : {size_t{4}, size_t{5}, size_t{1000000}}) {
    auto row = DecodeRow(RawRow(kParts.pk_cell, n, kParts.attr_cell, 0));
    if (n <= 4) {
      EXPECT_TRUE(row.ok()) << Msg(row);
    } else {
      EXPECT_EQ(Msg(row), std::string(versions::kInvalidPkPrefix) + "Primary key schema mismatch.");
    }
  }
  // Every cell is still checked: a bad checksum in the millionth is found.
  std::string bytes = RawRow(kParts.pk_cell, 1, kParts.attr_cell, 1000000);
  bytes[bytes.size() - 3] ^= 1;  // the last cell's checksum
  EXPECT_TRUE(Msg(DecodeRow(bytes)).starts_with("Cell data broken, checksum is mismatch, "));
}

TEST(PlainBufferHostile, LengthsThatLieAreRefusedWithoutReadingPastTheBuffer) {
  const std::string head = std::string("\x75\x00\x00\x00\x01\x03\x04", 7);
  for (uint32_t len : {0x10u, 0x7fffffffu, 0x80000000u, 0xffffffffu}) {
    std::string n(reinterpret_cast<const char*>(&len), 4);
    // A name, a value and a string inside a value that claim more than is there.
    EXPECT_EQ(Msg(DecodeRow(head + n + "gid")), "data format is invalid.") << len;
    EXPECT_EQ(Msg(DecodeRow(head + std::string("\x01\x00\x00\x00", 4) + "g\x05" + n + "\x00")),
              "data format is invalid.")
        << len;
    EXPECT_EQ(Msg(DecodeRow(head + std::string("\x01\x00\x00\x00", 4) + "g\x05" +
                            std::string("\x06\x00\x00\x00", 4) + "\x03" + n + "ab")),
              "Cell data broken, wrong string format, size: " + std::to_string(len) + ".")
        << len;
  }
  // A zero value length.
  EXPECT_EQ(Msg(DecodeRow(head + std::string("\x01\x00\x00\x00", 4) + "g\x05" +
                          std::string("\x00\x00\x00\x00", 4))),
            "data format is invalid.");
}

TEST(PlainBufferHostile, NamesOfAbsurdLengthCostOnlyTheirBytes) {
  for (size_t n : {size_t{33}, size_t{1000}, size_t{100000}, size_t{1000000}}) {
    Parts p = PartsOf(Cell("pk", CellValue::String("k")),
                      Cell(std::string(n, 'n'), CellValue::Boolean(true)));
    auto row = DecodeRow(RawRow(p.pk_cell, 1, p.attr_cell, 1));
    ASSERT_TRUE(row.ok()) << Msg(row);
    EXPECT_EQ(row->attributes[0].name.size(), n);
  }
}

TEST(PlainBufferHostile, EveryTruncationGetsADocumentedMessage) {
  const std::set<std::string> documented = {
      "data format is invalid.",
      "Invalid row: missing checksum.",
      "Invalid Column(pk): missing checksum.",
      "Invalid Column(c): missing checksum.",
  };
  std::string bytes = RawRow(kParts.pk_cell, 1, kParts.attr_cell, 1);
  for (size_t n = 0; n < bytes.size(); ++n) {
    std::string m = Msg(DecodeRow(bytes.substr(0, n)));
    EXPECT_TRUE(documented.contains(m)) << n << ": " << m;
  }
}

TEST(PlainBufferHostile, BadHeadersChecksumsAndTagsOutOfOrder) {
  std::string good = RawRow(kParts.pk_cell, 1, kParts.attr_cell, 0);
  ASSERT_TRUE(DecodeRow(good).ok());
  std::string bad = good;
  bad[0] = 0x76;
  EXPECT_EQ(Msg(DecodeRow(bad)), "Cell data broken, mismatch header, actual: 118, expect: 117.");

  bad = good;
  bad.back() ^= 0x01;
  uint8_t computed = static_cast<uint8_t>(good.back());
  EXPECT_EQ(Msg(DecodeRow(bad)), "Cell data broken, checksum is mismatch, " +
                                     std::to_string(computed ^ 1) + ":" +
                                     std::to_string(computed) + ".");

  // A row that ends in another tag than its checksum.
  bad = good;
  bad[bad.size() - 2] = 0x0a;
  EXPECT_EQ(Msg(DecodeRow(bad)), "Cell data broken, row is not end with checksum tag.");

  const std::string head = std::string("\x75\x00\x00\x00\x01\x03", 6);
  const std::string name = std::string("\x04\x01\x00\x00\x00", 5) + "g";
  const std::string integer = std::string("\x05\x09\x00\x00\x00\x00", 6) + std::string(8, '\0');
  const std::string stamp = "\x07" + std::string(8, '\0');
  // A cell that does not start with its name.
  EXPECT_EQ(Msg(DecodeRow(head + integer + name)),
            "Cell data broken, mismatch tag, actual tag(5), expect(4).");
  // The timestamp before the value; the value twice.
  EXPECT_EQ(Msg(DecodeRow(head + name + stamp + integer)),
            "Cell data broken, mismatch tag, actual tag(5), expect(10).");
  EXPECT_EQ(Msg(DecodeRow(head + name + integer + integer)),
            "Cell data broken, mismatch tag, actual tag(5), expect(10).");
  // Unknown op and value types; values longer or shorter than their type.
  EXPECT_EQ(Msg(DecodeRow(head + name + "\x06\x02")), "Invalid op type of cell: 2.");
  EXPECT_EQ(Msg(DecodeRow(head + name + std::string("\x05\x01\x00\x00\x00\x06", 6))),
            "data format is invalid, unknown variant type occured.");
  EXPECT_EQ(Msg(DecodeRow(head + name + std::string("\x05\x03\x00\x00\x00\x02\x01\x01", 8))),
            "Invalid boolean real value, value length: 2.");
  EXPECT_EQ(Msg(DecodeRow(head + name + std::string("\x05\x0a\x00\x00\x00\x00", 6) +
                          std::string(9, '\0'))),
            "Cell data broken, has more data in cell, but they can't be parsed.");
  // Two rows where one is expected; anything but zero padding after the row.
  EXPECT_EQ(Msg(DecodeRow(good + good.substr(4))), "data format is invalid.");
  EXPECT_EQ(Msg(DecodeRow(good + std::string("\0\0\x01", 3))), "data format is invalid.");
  EXPECT_TRUE(DecodeRow(good + std::string(1000, '\0')).ok());
  // DecodeRows stops at its row limit.
  std::string many = good;
  for (int i = 0; i < 10; ++i) many += good.substr(4);
  EXPECT_TRUE(DecodeRows(many, {}, 11).ok());
  EXPECT_FALSE(DecodeRows(many, {}, 10).ok());
}

// Found by fuzz_plainbuffer (its round trip failed): a primary-key cell may carry an op on the
// wire, which a key cannot have; the service refuses it, and an op or a timestamp in a key
// cell is now refused with its messages instead of being dropped.
TEST(PlainBufferHostile, PrimaryKeyCellsWithAnOpOrATimestampAreRefused) {
  const std::string found = std::string(
      "\x75\x00\x00\x00\x01\x03\x04\x02\x00\x00\x00\x01j\x06\x04\x0a\x00\x09\x00"
      "\x09\x00\x09\x00\x09\x00\x01\x09\x00\x09\x00\x09\x00\x09\x00\x09\x00\x09\x00"
      "\x01\x09\x00\x09\x00\x09\x00\x09\x00", 47);
  auto rows = DecodeRows(found);
  ASSERT_TRUE(rows.ok()) << rows.error().message();
  ASSERT_EQ((*rows)[0].primary_key.size(), 1u);
  EXPECT_EQ((*rows)[0].primary_key[0].op, CellOp::kIncrement);
  auto key = PrimaryKeyOf((*rows)[0]);
  ASSERT_FALSE(key.ok());
  EXPECT_EQ(key.error().message(), "OpType cannot be given for primary key name :\x01j.");
  // A row with no primary-key cell after the 0x01 tag.
  EXPECT_EQ(PrimaryKeyOf((*rows)[5]).error().message(), "Cell data broken, empty PK.");

  PbRow row;
  row.primary_key.push_back(Cell("pk", CellValue::String("k")));
  row.primary_key[0].timestamp = 1;
  EXPECT_EQ(PrimaryKeyOf(row).error().message(),
            "Timestamp cannot be given for primary key name:pk.");
  row.primary_key[0].timestamp.reset();
  row.primary_key[0].value.reset();
  EXPECT_EQ(PrimaryKeyOf(row).error().message(), "No value is given for primary key name:pk.");
}

}  // namespace
}  // namespace ttlstore::tablestore
