// Import files' bytes to records (dataio/compressed_reader.h, dataio/record_reader.h): lines
// and CSV records through NONE, GZIP (several members) and ZSTD (several frames), read through
// buffers of every size; truncated and corrupt streams refused; the record length bound; and
// CSV records as items (dataio/csv_item.h).
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <cstdio>
#include <fstream>
#include <random>
#include <string>

#include "dataio/csv_item.h"
#include "dataio/record_reader.h"

namespace ttlstore::dataio {
namespace {

std::string Gzip(const std::string& data) {
  z_stream z{};
  deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&z, data.size()) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

std::string Zstd(const std::string& data) {
  std::string out(ZSTD_compressBound(data.size()), '\0');
  size_t n = ZSTD_compress(out.data(), out.size(), data.data(), data.size(), 3);
  EXPECT_FALSE(ZSTD_isError(n));
  out.resize(n);
  return out;
}

class RecordReaderTest : public ::testing::Test {
 protected:
  std::string Write(const std::string& bytes) {
    std::string path = "/tmp/ttlstore_dataio_test_" + std::to_string(getpid()) + "_" +
                       std::to_string(files_++);
    std::ofstream(path, std::ios::binary) << bytes;
    paths_.push_back(path);
    return path;
  }
  void TearDown() override {
    for (const auto& p : paths_) std::remove(p.c_str());
  }
  RecordReader Open(const std::string& bytes, Compression c) {
    auto in = CompressedReader::Open(Write(bytes), c);
    EXPECT_TRUE(in);
    return RecordReader(std::move(*in));
  }
  std::vector<std::string> Lines(const std::string& bytes, Compression c) {
    RecordReader r = Open(bytes, c);
    std::vector<std::string> out;
    while (true) {
      auto line = r.NextLine();
      EXPECT_TRUE(line) << line.error().message();
      if (!line || !*line) break;
      out.push_back(**line);
    }
    return out;
  }
  int files_ = 0;
  std::vector<std::string> paths_;
};

TEST_F(RecordReaderTest, LinesThroughEveryCompression) {
  std::string text = "one\r\n\n  \ntwo\nthree";  // CRLF, blank lines, no final newline
  std::vector<std::string> want = {"one", "two", "three"};
  EXPECT_EQ(Lines(text, Compression::kNone), want);
  EXPECT_EQ(Lines(Gzip(text), Compression::kGzip), want);
  EXPECT_EQ(Lines(Zstd(text), Compression::kZstd), want);
  // Concatenated members and frames are one stream.
  EXPECT_EQ(Lines(Gzip("a\nb") + Gzip("c\n"), Compression::kGzip),
            (std::vector<std::string>{"a", "bc"}));
  EXPECT_EQ(Lines(Zstd("a\n") + Zstd("b\n"), Compression::kZstd),
            (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(Lines("", Compression::kNone).empty());
}

TEST_F(RecordReaderTest, LargeCompressedFilesStream) {
  std::mt19937 rng(7);
  std::string text;
  std::vector<std::string> want;
  for (int i = 0; i < 20000; ++i) {
    std::string line(rng() % 300 + 1, 'a' + static_cast<char>(i % 26));
    want.push_back(line);
    text += line + "\n";
  }
  EXPECT_EQ(Lines(Gzip(text), Compression::kGzip), want);
  EXPECT_EQ(Lines(Zstd(text), Compression::kZstd), want);
}

TEST_F(RecordReaderTest, TruncatedOrCorruptStreamsAreErrors) {
  std::string text(100000, 'x');
  text += "\n";
  for (Compression c : {Compression::kGzip, Compression::kZstd}) {
    std::string packed = c == Compression::kGzip ? Gzip(text) : Zstd(text);
    RecordReader cut = Open(packed.substr(0, packed.size() / 2), c);
    EXPECT_FALSE(cut.NextLine());
    RecordReader garbage = Open("this is not compressed\n", c);
    EXPECT_FALSE(garbage.NextLine());
  }
}

TEST_F(RecordReaderTest, RecordsAreBounded) {
  std::string huge(kMaxRecordBytes + 10, 'y');
  RecordReader r = Open(Zstd(huge + "\nz\n"), Compression::kZstd);
  auto line = r.NextLine();
  ASSERT_FALSE(line);
  EXPECT_NE(line.error().message().find("longer than"), std::string::npos);
  RecordReader csv = Open("\"" + huge + "\"\n", Compression::kNone);
  EXPECT_FALSE(csv.NextCsvRecord(','));
}

TEST_F(RecordReaderTest, CsvRecords) {
  RecordReader r = Open(
      "id,value,note\r\n"
      "1,\"a, b\",\"say \"\"hi\"\"\"\n"
      "\n"
      "2,\"two\nlines\",\n"
      "3;x,,\"\"\n",
      Compression::kNone);
  std::vector<std::vector<std::string>> got;
  std::vector<uint64_t> lines;
  while (true) {
    auto rec = r.NextCsvRecord(',');
    ASSERT_TRUE(rec) << rec.error().message();
    if (!*rec) break;
    got.push_back(**rec);
    lines.push_back(r.line_number());
  }
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(got[0], (std::vector<std::string>{"id", "value", "note"}));
  EXPECT_EQ(got[1], (std::vector<std::string>{"1", "a, b", "say \"hi\""}));
  EXPECT_EQ(got[2], (std::vector<std::string>{"2", "two\nlines", ""}));
  EXPECT_EQ(got[3], (std::vector<std::string>{"3;x", "", ""}));
  EXPECT_EQ(lines, (std::vector<uint64_t>{1, 2, 4, 6}));  // where each record began

  for (const char* bad : {"a\"b\n", "\"a\"b\n", "\"open\n"}) {
    RecordReader br = Open(bad, Compression::kNone);
    EXPECT_FALSE(br.NextCsvRecord(',')) << bad;
  }
  RecordReader tabs = Open("a\tb\n", Compression::kNone);
  auto rec = tabs.NextCsvRecord('\t');
  ASSERT_TRUE(rec && *rec);
  EXPECT_EQ(**rec, (std::vector<std::string>{"a", "b"}));
}

TEST(CsvItem, KeysTypedOthersStrings) {
  std::map<std::string, model::ValueType> keys = {{"id", model::ValueType::kN},
                                                  {"bin", model::ValueType::kB},
                                                  {"sk", model::ValueType::kS}};
  std::vector<std::string> header = {"id", "bin", "sk", "n", "empty"};
  auto item = CsvRecordToItem(header, {"007.50", "aGk=", "x", "42", ""}, keys);
  ASSERT_TRUE(item) << item.error().message();
  EXPECT_EQ(item->at("id"), model::AttributeValue::Num("7.5"));
  EXPECT_EQ(item->at("bin"), model::AttributeValue::Binary("hi"));
  EXPECT_EQ(item->at("sk"), model::AttributeValue::String("x"));
  EXPECT_EQ(item->at("n"), model::AttributeValue::String("42"));  // not a key: a string
  EXPECT_EQ(item->count("empty"), 0u);                              // empty non-key: absent
  EXPECT_FALSE(CsvRecordToItem(header, {"1", "aGk=", "x"}, keys));            // field count
  EXPECT_FALSE(CsvRecordToItem(header, {"one", "aGk=", "x", "", ""}, keys));  // bad number
  EXPECT_FALSE(CsvRecordToItem(header, {"1", "!!", "x", "", ""}, keys));      // bad base64
  EXPECT_FALSE(CsvRecordToItem(header, {"1", "aGk=", "", "", ""}, keys));     // empty key
  EXPECT_FALSE(CsvRecordToItem(header, {"1", "aGk=", "x", "\xff", ""}, keys));  // not UTF-8
}

}  // namespace
}  // namespace ttlstore::dataio
