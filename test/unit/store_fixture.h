// The fixture of the storage conformance suites (store_test.cc, store_rmw_test.cc): a test runs
// once per backend. RocksDB always; PostgreSQL when TTLSTORE_TEST_PG holds a libpq key=value
// connection string (scripts/test.sh starts a server and sets it), each test in a schema of its
// own (conninfo_ names it, so a test may open more stores on the same database).
#pragma once

#include <gtest/gtest.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <unistd.h>

#include "storage/pg_connection.h"
#include "storage/store.h"

namespace ttlstore::storage {

class StoreFixture : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    for (char& c : name) {
      if (!isalnum(static_cast<unsigned char>(c))) c = '_';
    }
    if (GetParam() == "postgresql") {
      const char* pg = std::getenv("TTLSTORE_TEST_PG");
      if (pg == nullptr || *pg == 0) {
        GTEST_SKIP() << "TTLSTORE_TEST_PG is not set: no PostgreSQL to test against";
      }
      std::string schema = "st_" + std::to_string(::getpid()) + "_" +
                           std::to_string(std::hash<std::string>()(name));
      PgError error;
      auto admin = PgConnection::Connect(pg, &error);
      ASSERT_TRUE(admin) << error.message;
      ASSERT_TRUE(admin->Exec({"DROP SCHEMA IF EXISTS " + schema + " CASCADE", {}}, nullptr,
                              &error)) << error.message;
      ASSERT_TRUE(admin->Exec({"CREATE SCHEMA " + schema, {}}, nullptr, &error)) << error.message;
      conninfo_ = std::string(pg) + " options='-csearch_path=" + schema + "'";
      schema_ = schema;
    } else {
      dir_ = std::filesystem::temp_directory_path() /
             ("ttlstore_store_test_" + std::to_string(::getpid()) + "_" + name);
      std::filesystem::remove_all(dir_);
    }
    Reopen();
  }
  void TearDown() override {
    store_.reset();
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
    if (!schema_.empty()) {
      PgError error;
      if (auto admin = PgConnection::Connect(std::getenv("TTLSTORE_TEST_PG"), &error)) {
        admin->Exec({"DROP SCHEMA IF EXISTS " + schema_ + " CASCADE", {}}, nullptr, &error);
      }
    }
  }
  void Reopen() {
    store_.reset();
    StoreOptions options;
    options.path = dir_.string();
    options.storage = conninfo_;
    auto s = Store::Open(options);
    ASSERT_TRUE(s.ok()) << s.error().message();
    store_ = std::move(*s);
  }
  // A store for one more writer: on PostgreSQL its own (another process's, in effect), kept in
  // `own`; on RocksDB (one process per folder) the shared one.
  Store* WriterStore(std::vector<std::unique_ptr<Store>>& own) {
    if (conninfo_.empty()) return store_.get();
    StoreOptions options;
    options.storage = conninfo_;
    auto s = Store::Open(options);
    EXPECT_TRUE(s.ok()) << s.error().message();
    if (!s.ok()) return store_.get();
    own.push_back(std::move(*s));
    return own.back().get();
  }

  std::filesystem::path dir_;
  std::string conninfo_, schema_;
  std::unique_ptr<Store> store_;
};

}  // namespace ttlstore::storage
