// The records of exports and imports (backup/job_records.h), on every backend: files in a
// folder on RocksDB (one process), rows of the store on PostgreSQL (every process reads the
// same); a record saved again replaces the old one whole, and the two kinds stay apart.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "backup/job_records.h"
#include "store_fixture.h"

namespace ttlstore::backup {
namespace {

class JobRecordsTest : public storage::StoreFixture {
 protected:
  std::map<std::string, std::string> All(const JobRecords& r) {
    std::map<std::string, std::string> out;
    EXPECT_TRUE(r.ForEach([&](const std::string& where, const std::string& text) -> Status {
                  out[std::filesystem::path(where).filename().string()] = text;
                  return Status::Ok();
                }).ok());
    return out;
  }
};

INSTANTIATE_TEST_SUITE_P(Backends, JobRecordsTest, ::testing::Values("rocksdb", "postgresql"),
                         [](const auto& info) { return info.param; });

TEST_P(JobRecordsTest, SavedRecordsAreReadBackWholeAndByKind) {
  const std::string dir = (std::filesystem::temp_directory_path() /
                           ("ttlstore_job_records_" + std::to_string(::getpid()))).string();
  std::filesystem::remove_all(dir);
  JobRecords exports(*store_, dir + "/exports", "export");
  JobRecords imports(*store_, dir + "/imports", "import");
  EXPECT_EQ(exports.shared(), store_->SharedByProcesses());
  // As Load does first: no record yet (and the folders made).
  EXPECT_TRUE(All(exports).empty());
  EXPECT_TRUE(All(imports).empty());
  ASSERT_TRUE(exports.Save("1-a", "status=IN_PROGRESS\n").ok());
  ASSERT_TRUE(exports.Save("2-b", "status=COMPLETED\n").ok());
  ASSERT_TRUE(imports.Save("3-c", "status=IN_PROGRESS\n").ok());
  ASSERT_TRUE(exports.Save("1-a", "status=FAILED\n").ok());  // replaced whole
  auto e = All(exports);
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e.begin()->second, "status=FAILED\n");
  EXPECT_EQ(std::next(e.begin())->second, "status=COMPLETED\n");
  auto i = All(imports);
  ASSERT_EQ(i.size(), 1u);
  EXPECT_EQ(i.begin()->second, "status=IN_PROGRESS\n");
  // Another process on the same store reads the same records (PostgreSQL); on RocksDB a
  // reopen of the folder does.
  std::vector<std::unique_ptr<storage::Store>> own;
  JobRecords other(*WriterStore(own), dir + "/exports", "export");
  EXPECT_EQ(All(other).size(), 2u);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ttlstore::backup
