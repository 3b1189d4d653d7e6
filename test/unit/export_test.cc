// Export to S3: the file writers (dataio/export_files.h), the JSON lines (api/export_lines.h),
// the export records and key layout (backup/table_export.h), and the PITR views an export reads
// (backup/pitr_view.h) over a real store.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "api/export_lines.h"
#include "api/import_lines.h"
#include "backup/pitr_view.h"
#include "backup/table_export.h"
#include "common/clock.h"
#include "dataio/compressed_reader.h"
#include "dataio/export_files.h"
#include "ops_test_util.h"
#include "storage/item_codec.h"

namespace ttlstore {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string Inflate(const std::string& path) {
  auto reader = dataio::CompressedReader::Open(path, dataio::Compression::kGzip);
  EXPECT_TRUE(reader.ok());
  std::string out;
  char buf[4096];
  for (;;) {
    auto n = (*reader)->Read(buf, sizeof buf);
    EXPECT_TRUE(n.ok());
    if (!n.ok() || *n == 0) break;
    out.append(buf, *n);
  }
  return out;
}

class ExportFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("ttlstore_export_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

TEST_F(ExportFilesTest, GzipDataFileInflatesToItsLinesAndItsChecksumsAreOfTheStoredBytes) {
  std::string path = (dir_ / "d.json.gz").string();
  auto w = dataio::GzipLineWriter::Create(path);
  ASSERT_TRUE(w.ok());
  const std::string first = "{\"Item\":{\"pk\":{\"S\":\"a\"}}}";
  ASSERT_TRUE((*w)->Append(first).ok());
  ASSERT_TRUE((*w)->Append("second").ok());
  EXPECT_EQ((*w)->raw_bytes(), first.size() + 1 + 7);
  auto summary = (*w)->Finish();
  ASSERT_TRUE(summary.ok()) << summary.error().message();
  std::string stored = ReadFile(path);
  EXPECT_EQ(summary->file_bytes, stored.size());
  EXPECT_EQ(summary->md5_base64, dataio::Md5Base64(stored));
  EXPECT_EQ(summary->etag, dataio::Md5Hex(stored));
  EXPECT_EQ(summary->etag.size(), 32u);
  EXPECT_EQ(Inflate(path), "{\"Item\":{\"pk\":{\"S\":\"a\"}}}\nsecond\n");
}

TEST_F(ExportFilesTest, AnEmptyDataFileIsAValidEmptyGzipStream) {
  std::string path = (dir_ / "e.json.gz").string();
  auto w = dataio::GzipLineWriter::Create(path);
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE((*w)->Finish().ok());
  EXPECT_GT(ReadFile(path).size(), 10u);  // header and trailer
  EXPECT_EQ(Inflate(path), "");
}

TEST(ExportFiles, Md5OfKnownBytes) {
  // RFC 1321's test suite: MD5("abc") = 900150983cd24fb0d6963f7d28e17f72.
  EXPECT_EQ(dataio::Md5Hex("abc"), "900150983cd24fb0d6963f7d28e17f72");
  EXPECT_EQ(dataio::Md5Base64("abc"), "kAFQmDzST7DWlj99KOF/cg==");
}

TEST(ExportFiles, ManifestFilesLineHasTheDocumentedMembers) {
  EXPECT_EQ(dataio::ManifestFilesLine(8, "sQMSpEILNgoQmarvDFonGQ==", "af83", "p/AWSDynamoDB/x/data/a.json.gz"),
            "{\"itemCount\":8,\"md5Checksum\":\"sQMSpEILNgoQmarvDFonGQ==\",\"etag\":\"af83\","
            "\"dataFileS3Key\":\"p/AWSDynamoDB/x/data/a.json.gz\"}");
}

TEST(ExportFiles, SummaryOfAFullExportNamesTheExportTimeAndNullsWhatIsAbsent) {
  dataio::ManifestSummary s;
  s.export_arn = "arn:aws:dynamodb:us-east-1:000000000000:table/T/export/01604474914028-a1b2c3d4";
  s.table_arn = "arn:aws:dynamodb:us-east-1:000000000000:table/T";
  s.table_id = "id";
  s.bucket = "b";
  s.sse_algorithm = "AES256";
  s.start_ms = 1604474914028;
  s.end_ms = 1604475223897;
  s.export_ms = 1604474914028;
  s.manifest_files_key = "AWSDynamoDB/01604474914028-a1b2c3d4/manifest-files.json";
  s.item_count = 8;
  s.output_format = "DYNAMODB_JSON";
  s.export_type = "FULL_EXPORT";
  EXPECT_EQ(dataio::FormatManifestSummary(s),
            "{\"version\":\"2020-06-30\",\"exportArn\":\"" + s.export_arn +
                "\",\"startTime\":\"2020-11-04T07:28:34.028Z\",\"endTime\":\"2020-11-04T07:33:43."
                "897Z\",\"tableArn\":\"" + s.table_arn +
                "\",\"tableId\":\"id\",\"exportTime\":\"2020-11-04T07:28:34.028Z\",\"s3Bucket\":"
                "\"b\",\"s3Prefix\":null,\"s3SseAlgorithm\":\"AES256\",\"s3SseKmsKeyId\":null,"
                "\"manifestFilesS3Key\":\"" + s.manifest_files_key +
                "\",\"billedSizeBytes\":0,\"itemCount\":8,\"outputFormat\":\"DYNAMODB_JSON\","
                "\"exportType\":\"FULL_EXPORT\"}");
}

TEST(ExportFiles, SummaryEscapesAPrefixAsJson) {
  dataio::ManifestSummary s;
  s.prefix = "a\"b\\c\n";
  s.export_type = "INCREMENTAL_EXPORT";
  s.output_view = "NEW_IMAGE";
  std::string text = dataio::FormatManifestSummary(s);
  EXPECT_NE(text.find("\"s3Prefix\":\"a\\\"b\\\\c\\u000a\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"exportFromTime\":\"1970-01-01T00:00:00.000Z\""), std::string::npos);
  EXPECT_NE(text.find("\"outputView\":\"NEW_IMAGE\""), std::string::npos);
  EXPECT_EQ(text.find("\"exportTime\""), std::string::npos);
}

model::AttributeValue S(const std::string& s) { return model::AttributeValue::String(s); }

TEST(ExportLines, JsonItemLineImportsBackAsTheSameItem) {
  model::Item item = {{"pk", S("a\u00e9\"")}, {"n", model::AttributeValue::Num("1.5")},
                      {"b", model::AttributeValue::Binary(std::string("\x00\xff", 2))}};
  std::string line = api::ExportItemJsonLine(item);
  EXPECT_EQ(line.rfind("{\"Item\":{", 0), 0u);
  auto back = api::DecodeImportJsonLine(line);
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_EQ(*back, item);
}

TEST(ExportLines, ChangeLinesCarryMetadataKeysAndTheImagesGiven) {
  model::Item keys = {{"pk", S("a")}};
  model::Item old_image = {{"pk", S("a")}, {"v", S("1")}};
  model::Item new_image = {{"pk", S("a")}, {"v", S("2")}};
  EXPECT_EQ(api::ExportChangeJsonLine(1680109764000000, keys, &old_image, &new_image),
            "{\"Metadata\":{\"WriteTimeEpochMicros\":\"1680109764000000\"},\"Keys\":{\"pk\":{"
            "\"S\":\"a\"}},\"OldImage\":{\"pk\":{\"S\":\"a\"},\"v\":{\"S\":\"1\"}},\"NewImage\":{"
            "\"pk\":{\"S\":\"a\"},\"v\":{\"S\":\"2\"}}}");
  EXPECT_EQ(api::ExportChangeJsonLine(5, keys, nullptr, nullptr),
            "{\"Metadata\":{\"WriteTimeEpochMicros\":\"5\"},\"Keys\":{\"pk\":{\"S\":\"a\"}}}");
  EXPECT_EQ(dataio::FormatIonChangeLine(5, keys, &old_image, nullptr),
            "$ion_1_0 {Metadata:{WriteTimeEpochMicros:5},Keys:{pk:\"a\"},OldImage:{pk:\"a\",v:"
            "\"1\"}}");
}

TEST(ExportRecords, RoundTripThroughTheirFileText) {
  backup::ExportRecord r;
  r.arn = "arn:aws:dynamodb:us-east-1:000000000000:table/T/export/01604474914028-a1b2c3d4";
  r.status = backup::ExportStatus::kCompleted;
  r.table_id = "uuid";
  r.start_ms = 1;
  r.end_ms = 2;
  r.item_count = 3;
  r.billed_bytes = 4;
  r.manifest_key = "p\nq\\/AWSDynamoDB/x/manifest-summary.json";
  r.spec.table_arn = "arn:aws:dynamodb:us-east-1:000000000000:table/T";
  r.spec.bucket = "b";
  r.spec.prefix = "p\nq\\";
  r.spec.client_token = "tok";
  r.spec.format = backup::ExportFormat::kIon;
  r.spec.type = backup::ExportType::kIncremental;
  r.spec.type_given = true;
  r.spec.from_ms = 10;
  r.spec.to_ms = 20;
  r.spec.to_ms_given = 20;
  r.spec.view = backup::ExportView::kNewImage;
  r.spec.view_given = true;
  auto back = backup::DecodeExportRecord(backup::EncodeExportRecord(r));
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->arn, r.arn);
  EXPECT_EQ(back->status, r.status);
  EXPECT_EQ(back->manifest_key, r.manifest_key);
  EXPECT_EQ(back->item_count, 3);
  EXPECT_TRUE(backup::SameExportRequest(back->spec, r.spec));
  backup::ExportSpec other = r.spec;
  other.prefix = "elsewhere";
  EXPECT_FALSE(backup::SameExportRequest(other, r.spec));
  EXPECT_FALSE(backup::DecodeExportRecord("arn=x\nstart_ms=notanumber\n").has_value());
  EXPECT_FALSE(backup::DecodeExportRecord("no equals sign").has_value());
}

TEST(ExportRecords, FolderKeysJoinThePrefixWithOneSlash) {
  EXPECT_EQ(backup::ExportFolderKey("", "01-ab"), "AWSDynamoDB/01-ab/");
  EXPECT_EQ(backup::ExportFolderKey("foo", "01-ab"), "foo/AWSDynamoDB/01-ab/");
  EXPECT_EQ(backup::ExportFolderKey("foo/", "01-ab"), "foo/AWSDynamoDB/01-ab/");
  EXPECT_EQ(backup::ExportIdOf("arn:aws:dynamodb:r:a:table/T/export/01-ab"), "01-ab");
}

// ---- the PITR views over a real store ----------------------------------------------------------

class PitrViewTest : public ops::OpsTest {
 protected:
  void SetUp() override {
    OpsTest::SetUp();
    ops_->set_pitr_clock(&clock_);
    table_.pitr.emplace();
    table_.pitr->enabled_ms = 1;
  }
  void At(int64_t ms) { clock_.Set(ms); }
  model::Item Key(const std::string& pk, const std::string& sk) {
    return {{"pk", S(pk)}, {"sk", N(sk)}};
  }
  void Delete(const model::Item& key) { ASSERT_TRUE(ops_->Delete(table_, key, nullptr).ok()); }
  model::Item With(model::Item item, const std::string& v) {
    item["v"] = S(v);
    return item;
  }
  FakeClock clock_{0};
};

TEST_F(PitrViewTest, ItemsAtAPointUndoEveryLaterWrite) {
  At(100);
  Put(Row("a", "1"));
  Put(Row("b", "2"));
  At(200);
  Put(With(Row("a", "1"), "new"));
  Delete(Key("b", "2"));
  Put(Row("c", "3"));
  backup::PitrViews views = backup::OpenPitrViews(*store_, table_.id, 151);
  std::atomic<bool> cancel{false};
  std::map<std::string, model::Item> seen;
  ASSERT_TRUE(backup::ForEachItemAt(views, 150, cancel,
                                    [&](std::string_view key, const std::string& encoded) {
                                      seen[std::string(key)] = *storage::DecodeItem(encoded);
                                      return Status::Ok();
                                    })
                  .ok());
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[ops::EncodedKey(table_, Key("a", "1"))], Row("a", "1"));
  EXPECT_EQ(seen[ops::EncodedKey(table_, Key("b", "2"))], Row("b", "2"));
}

TEST_F(PitrViewTest, ChangesInAPeriodHaveTheImagesAtItsEdgesAndTheirLastWriteTime) {
  At(50);
  Put(Row("old", "1"));     // deleted in the period
  Put(Row("upd", "1"));     // updated twice in the period, then again after it
  Put(Row("quiet", "1"));   // never written in the period
  At(100);                  // the period is [100, 300)
  Put(Row("new", "1"));     // created in the period
  Put(With(Row("upd", "1"), "p1"));
  At(150);
  Put(Row("gone", "1"));    // created and deleted inside the period: not reported
  Put(With(Row("upd", "1"), "p2"));
  At(250);
  Delete(Key("old", "1"));
  Delete(Key("gone", "1"));
  At(300);                  // after the period
  Put(With(Row("upd", "1"), "after"));
  Put(With(Row("new", "1"), "after"));
  backup::PitrViews views = backup::OpenPitrViews(*store_, table_.id, 100);
  std::atomic<bool> cancel{false};
  std::map<std::string, backup::ItemChange> changes;
  ASSERT_TRUE(backup::ForEachChange(views, 100, 300, cancel, [&](const backup::ItemChange& c) {
                changes[c.key] = c;
                return Status::Ok();
              }).ok());
  ASSERT_EQ(changes.size(), 3u);
  auto decode = [](const std::optional<std::string>& e) {
    return e ? std::optional<model::Item>(*storage::DecodeItem(*e)) : std::nullopt;
  };
  const auto& created = changes[ops::EncodedKey(table_, Key("new", "1"))];
  EXPECT_FALSE(created.old_image.has_value());
  EXPECT_EQ(decode(created.new_image), Row("new", "1"));  // as before the write at 300
  EXPECT_EQ(created.last_write_ms, 100);
  const auto& updated = changes[ops::EncodedKey(table_, Key("upd", "1"))];
  EXPECT_EQ(decode(updated.old_image), Row("upd", "1"));
  EXPECT_EQ(decode(updated.new_image), With(Row("upd", "1"), "p2"));
  EXPECT_EQ(updated.last_write_ms, 150);
  const auto& deleted = changes[ops::EncodedKey(table_, Key("old", "1"))];
  EXPECT_EQ(decode(deleted.old_image), Row("old", "1"));
  EXPECT_FALSE(deleted.new_image.has_value());
  EXPECT_EQ(deleted.last_write_ms, 250);
}

TEST_F(PitrViewTest, ChangesNotWrittenSinceThePeriodEndAsTheyAreNow) {
  At(100);
  Put(Row("a", "1"));
  Put(Row("z", "9"));
  backup::PitrViews views = backup::OpenPitrViews(*store_, table_.id, 100);
  std::atomic<bool> cancel{false};
  std::vector<backup::ItemChange> changes;
  ASSERT_TRUE(backup::ForEachChange(views, 100, 200, cancel, [&](const backup::ItemChange& c) {
                changes.push_back(c);
                return Status::Ok();
              }).ok());
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_LT(changes[0].key, changes[1].key);  // in storage-key order
  std::map<std::string, model::Item> by_key;
  for (const auto& c : changes) by_key[c.key] = *storage::DecodeItem(*c.new_image);
  EXPECT_EQ(by_key[ops::EncodedKey(table_, Key("a", "1"))], Row("a", "1"));
  EXPECT_EQ(by_key[ops::EncodedKey(table_, Key("z", "9"))], Row("z", "9"));
}

}  // namespace
}  // namespace ttlstore
