// Import record files (backup/table_import.h): every field survives a round trip, including
// newlines and backslashes in the echoed request JSON; damaged files are refused, not guessed.
#include <gtest/gtest.h>

#include "backup/table_import.h"

namespace ttlstore::backup {
namespace {

TEST(ImportRecord, RoundTripsEveryField) {
  ImportRecord r;
  r.arn = "arn:aws:dynamodb:us-east-1:000000000000:table/t1/import/01658528578619-c4d4e311";
  r.status = ImportStatus::kFailed;
  r.table_name = "t1";
  r.table_arn = "arn:aws:dynamodb:us-east-1:000000000000:table/t1";
  r.table_id = "uuid-1";
  r.start_ms = 1658528578619;
  r.end_ms = 1658528579000;
  r.processed_items = 8;
  r.imported_items = 2;
  r.errors = 6;
  r.processed_bytes = 1234;
  r.failure_code = "ItemValidationError";
  r.failure_message = "line one\nline two \\ back";
  r.spec.bucket = "bkt";
  r.spec.prefix = "a/b=c/";
  r.spec.bucket_owner = "123456789012";
  r.spec.format = ImportFormat::kCsv;
  r.spec.compression = dataio::Compression::kZstd;
  r.spec.csv_delimiter = '\t';
  r.spec.csv_header = {"p", "c", "with=equals"};
  r.spec.client_token = "tok";
  r.spec.table_creation_json = R"({"TableName":"t1","x":"a\nb"})";
  r.spec.format_options_json = R"({"Csv":{"Delimiter":"\t"}})";
  auto back = DecodeImportRecord(EncodeImportRecord(r));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->arn, r.arn);
  EXPECT_EQ(back->status, r.status);
  EXPECT_EQ(back->table_name, r.table_name);
  EXPECT_EQ(back->table_arn, r.table_arn);
  EXPECT_EQ(back->table_id, r.table_id);
  EXPECT_EQ(back->start_ms, r.start_ms);
  EXPECT_EQ(back->end_ms, r.end_ms);
  EXPECT_EQ(back->processed_items, 8);
  EXPECT_EQ(back->imported_items, 2);
  EXPECT_EQ(back->errors, 6);
  EXPECT_EQ(back->processed_bytes, 1234);
  EXPECT_EQ(back->failure_code, r.failure_code);
  EXPECT_EQ(back->failure_message, r.failure_message);
  EXPECT_EQ(back->spec.bucket, "bkt");
  EXPECT_EQ(back->spec.prefix, "a/b=c/");
  EXPECT_EQ(back->spec.bucket_owner, "123456789012");
  EXPECT_EQ(back->spec.format, ImportFormat::kCsv);
  EXPECT_EQ(back->spec.compression, dataio::Compression::kZstd);
  EXPECT_EQ(back->spec.csv_delimiter, '\t');
  EXPECT_EQ(back->spec.csv_header, r.spec.csv_header);
  EXPECT_EQ(back->spec.client_token, "tok");
  EXPECT_EQ(back->spec.table_creation_json, r.spec.table_creation_json);
  EXPECT_EQ(back->spec.format_options_json, r.spec.format_options_json);
}

TEST(ImportRecord, DamagedFilesAreRefused) {
  EXPECT_FALSE(DecodeImportRecord(""));                          // no ARN
  EXPECT_FALSE(DecodeImportRecord("arn=x\nstart_ms=12abc\n"));    // a bad number
  EXPECT_FALSE(DecodeImportRecord("arn=x\nno equals sign\n"));    // a torn line
  auto ok = DecodeImportRecord("arn=x\nfuture_field=1\n");       // unknown names are ignored
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, ImportStatus::kInProgress);
}

}  // namespace
}  // namespace ttlstore::backup
