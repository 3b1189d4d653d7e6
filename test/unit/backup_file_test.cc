// The backup file format: what is written reads back record for record, and a file cut short,
// flipped or without its trailer is refused before anything is read from it.
#include "backup/backup_file.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace ttlstore::backup {
namespace {

std::string TempPath(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() /
             ("ttlstore-backup-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

BackupHeader Header() {
  BackupHeader h;
  h.backup_arn = "arn:aws:dynamodb:us-east-1:000000000000:table/t/backup/01700000000000-0000abcd";
  h.backup_name = "nightly";
  h.created_ms = 1700000000000;
  h.table_arn = "arn:aws:dynamodb:us-east-1:000000000000:table/t";
  h.table_descriptor = std::string("\x01\x02\x00\x03", 4);
  h.expected_records = 3;
  h.expected_bytes = 42;
  return h;
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void WriteAll(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string WriteSample(const std::string& name) {
  std::string path = TempPath(name);
  auto w = BackupWriter::Create(path, Header());
  EXPECT_TRUE(w.ok());
  EXPECT_TRUE((*w)->Add(RecordKind::kItem, "key-1", "value-1").ok());
  EXPECT_TRUE((*w)->Add(RecordKind::kItem, std::string("k\0ey", 4), std::string(5000, 'v')).ok());
  EXPECT_TRUE((*w)->Add(RecordKind::kItem, "", "").ok());
  EXPECT_FALSE(std::filesystem::exists(path));  // only the .tmp until Finish
  EXPECT_TRUE((*w)->Finish().ok());
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  return path;
}

TEST(BackupFileTest, RoundTrip) {
  std::string path = WriteSample("round.ttlbak");
  auto r = BackupReader::Open(path);
  ASSERT_TRUE(r.ok()) << r.error().message();
  const BackupHeader& h = (*r)->header();
  EXPECT_EQ(h.backup_arn, Header().backup_arn);
  EXPECT_EQ(h.backup_name, "nightly");
  EXPECT_EQ(h.created_ms, 1700000000000);
  EXPECT_EQ(h.table_descriptor, Header().table_descriptor);
  EXPECT_EQ(h.expected_records, 3);
  EXPECT_EQ((*r)->trailer().records, 3);
  EXPECT_EQ((*r)->trailer().bytes, 7 + 5000);
  std::vector<std::pair<std::string, std::string>> got;
  RecordKind kind;
  std::string key, value;
  while (true) {
    auto more = (*r)->Next(&kind, &key, &value);
    ASSERT_TRUE(more.ok()) << more.error().message();
    if (!*more) break;
    EXPECT_EQ(kind, RecordKind::kItem);
    got.emplace_back(key, value);
  }
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0], std::make_pair(std::string("key-1"), std::string("value-1")));
  EXPECT_EQ(got[1].first, std::string("k\0ey", 4));
  EXPECT_EQ(got[1].second, std::string(5000, 'v'));
  EXPECT_EQ(got[2], std::make_pair(std::string(), std::string()));
  auto summary = ReadBackupSummary(path);
  ASSERT_TRUE(summary.ok());
  EXPECT_EQ(summary->second.records, 3);
}

TEST(BackupFileTest, EveryTruncationIsRefusedAtOpen) {
  std::string whole = ReadAll(WriteSample("cut-src.ttlbak"));
  std::string path = TempPath("cut.ttlbak");
  for (size_t len = 0; len < whole.size(); ++len) {
    WriteAll(path, whole.substr(0, len));
    auto r = BackupReader::Open(path);
    EXPECT_FALSE(r.ok()) << "a file cut to " << len << " bytes opened";
  }
}

TEST(BackupFileTest, EveryFlippedByteIsCaught) {
  std::string whole = ReadAll(WriteSample("flip-src.ttlbak"));
  std::string path = TempPath("flip.ttlbak");
  for (size_t i = 0; i < whole.size(); i += 7) {
    std::string bytes = whole;
    bytes[i] = static_cast<char>(bytes[i] ^ 0x5A);
    WriteAll(path, bytes);
    auto r = BackupReader::Open(path);
    if (!r.ok()) continue;  // refused at open: header, trailer or magic
    RecordKind kind;
    std::string key, value;
    bool failed = false;
    while (true) {
      auto more = (*r)->Next(&kind, &key, &value);
      if (!more.ok()) {
        failed = true;
        break;
      }
      if (!*more) break;
    }
    EXPECT_TRUE(failed) << "flipping byte " << i << " went unnoticed";
  }
}

TEST(BackupFileTest, UnfinishedWriterLeavesNothing) {
  std::string path = TempPath("unfinished.ttlbak");
  {
    auto w = BackupWriter::Create(path, Header());
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE((*w)->Add(RecordKind::kRow, "k", "v").ok());
  }
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
}

TEST(BackupFileTest, NotABackup) {
  std::string path = TempPath("other.bin");
  WriteAll(path, std::string(200, 'z'));
  auto r = BackupReader::Open(path);
  ASSERT_FALSE(r.ok());
}

}  // namespace
}  // namespace ttlstore::backup
