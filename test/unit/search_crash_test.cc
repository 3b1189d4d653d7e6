// kill -9 of a server process while it writes rows of a table with a search index, builds the
// index and applies its queue, several times over; then a start that resumes, a Flush, and
// `ttlstore check`: every row has exactly its document. The writer is this test binary itself,
// run as a child process (SearchCrash.DISABLED_Child, selected by the SEARCH_CRASH_DIR
// variable), so RocksDB and Xapian run in a process of their own that dies at a random point.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <random>
#include <thread>

#include "check/consistency.h"
#include "ops/row_ops.h"
#include "ops/table_ops.h"
#include "search/search_engine.h"

extern char** environ;

namespace ttlstore::search {
namespace {

using model::CellValue;

struct Open {
  std::unique_ptr<storage::Store> store;
  std::unique_ptr<ops::TableCatalog> catalog;
};

Open OpenDir(const std::string& dir, const Clock& clock) {
  Open o;
  storage::StoreOptions options;
  options.path = dir + "/db";
  auto s = storage::Store::Open(options);
  if (!s.ok()) return o;
  o.store = std::move(*s);
  o.catalog = std::make_unique<ops::TableCatalog>(*o.store, clock);
  if (!o.catalog->Load().ok()) o.store.reset();
  return o;
}

TEST(SearchCrash, DISABLED_Child) {
  const char* dir = std::getenv("SEARCH_CRASH_DIR");
  if (!dir) GTEST_SKIP();
  SystemClock clock;
  Open o = OpenDir(dir, clock);
  ASSERT_TRUE(o.store);
  ops::RowOps rows(*o.store, clock);
  if (!o.catalog->Find("t", ops::Front::kTablestore)) {
    model::TableDescriptor spec;
    spec.name = "t";
    spec.key.hash = {"id", model::ValueType::kN};
    spec.tablestore.emplace().primary_key = {{"id", model::PkType::kInteger}};
    ASSERT_TRUE(o.catalog->Create(spec).ok());
  }
  SearchEngine engine(*o.store, *o.catalog, std::string(dir) + "/search", clock);
  ASSERT_TRUE(engine.Start().ok());
  std::mt19937_64 rng(std::random_device{}());
  for (int i = 0;; ++i) {
    auto table = o.catalog->Find("t", ops::Front::kTablestore);
    if (i == 3000 && table->tablestore->search_indexes.empty()) {
      model::SearchIndexMeta meta;
      meta.name = "ix";
      meta.id = *o.catalog->AllocateId();
      model::SearchField kw, num;
      kw.name = "kw";
      num.name = "num";
      num.type = model::SearchFieldType::kLong;
      num.sort_and_agg = true;
      meta.fields = {kw, num};
      ASSERT_TRUE(o.catalog->Update("t", [&](model::TableDescriptor& d) {
        d.tablestore->search_indexes.push_back(meta);
        return Status::Ok();
      }, ops::Front::kTablestore).ok());
      engine.Wake();
      continue;
    }
    ops::RowChange c;
    c.primary_key = {{"id", CellValue::Integer(int64_t(rng() % 20000))}};
    if (rng() % 10 == 0) {
      c.kind = ops::RowChange::Kind::kDelete;
    } else {
      c.cells.push_back({ops::CellChange::Kind::kPut, "kw", CellValue::String("k" + std::to_string(rng() % 50)), std::nullopt});
      c.cells.push_back({ops::CellChange::Kind::kPut, "num", CellValue::Integer(int64_t(rng() % 1000)), std::nullopt});
    }
    ASSERT_TRUE(rows.Write(*table, c).ok());
    // About 20k writes a second: a busy server's pace, not a load test's (the queue the kill
    // leaves is then what a real crash would leave, and the test stays short).
    if (i % 20 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

TEST(SearchCrash, KillNineAtRandomPointsResumesExactly) {
  std::string dir = (std::filesystem::temp_directory_path() /
                     ("ttlstore_search_crash_" + std::to_string(::getpid()))).string();
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::string env_dir = "SEARCH_CRASH_DIR=" + dir;
  std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  std::mt19937_64 rng(11);
  for (int round = 0; round < 3; ++round) {
    std::vector<std::string> args = {self, "--gtest_also_run_disabled_tests",
                                     "--gtest_filter=SearchCrash.DISABLED_Child"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::vector<char*> envp;
    for (char** e = environ; *e; ++e) envp.push_back(*e);
    envp.push_back(env_dir.data());
    envp.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    ASSERT_EQ(posix_spawn(&pid, self.c_str(), &actions, nullptr, argv.data(), envp.data()), 0);
    posix_spawn_file_actions_destroy(&actions);
    std::this_thread::sleep_for(std::chrono::milliseconds(1500 + rng() % 1500));
    ASSERT_EQ(::kill(pid, SIGKILL), 0);
    int status = 0;
    ::waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the child ended on its own: " << status;
  }
  SystemClock clock;
  {
    Open o = OpenDir(dir, clock);
    ASSERT_TRUE(o.store);
    auto table = o.catalog->Find("t", ops::Front::kTablestore);
    ASSERT_TRUE(table);
    ASSERT_EQ(table->tablestore->search_indexes.size(), 1u) << "the child never reached the index";
    SearchEngine engine(*o.store, *o.catalog, dir + "/search", clock);
    ASSERT_TRUE(engine.Start().ok());
    ASSERT_TRUE(engine.Flush().ok());
    table = o.catalog->Find("t", ops::Front::kTablestore);
    EXPECT_FALSE(table->tablestore->search_indexes[0].building);
    engine.Stop();
    auto report = check::CheckStore(*o.store, clock.NowMs(), dir + "/search");
    ASSERT_TRUE(report.ok());
    for (const auto& p : report->problems) ADD_FAILURE() << p;
    EXPECT_EQ(report->search_documents, report->rows);
    EXPECT_EQ(report->search_queue_entries, 0u);
    EXPECT_GT(report->rows, 1000u);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ttlstore::search
