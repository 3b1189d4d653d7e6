// The plans PostgreSQL chooses for this backend's statement shapes over rows it has no
// statistics for (rows written since the last ANALYZE: a bulk load, a TTL wave's expiry
// entries). PgConnection::Connect sets up each session so that these read through the primary
// key's index and stop after the rows asked for, instead of scanning and sorting everything
// (pg_connection.cc). Needs TTLSTORE_TEST_PG; skipped without it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "storage/pg_connection.h"

namespace ttlstore::storage {
namespace {

class PgPlansTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* pg = std::getenv("TTLSTORE_TEST_PG");
    if (pg == nullptr || *pg == '\0') GTEST_SKIP() << "TTLSTORE_TEST_PG is not set";
    PgError error;
    conn_ = PgConnection::Connect(pg, &error);
    ASSERT_NE(conn_, nullptr) << error.message;
    // A temporary table is never analyzed by autovacuum: its 20,000 rows stay unknown to the
    // planner, like fresh rows in a busy table. The same columns and key as a key space.
    Run("CREATE TEMP TABLE plan_probe (h bytea NOT NULL, d bytea NOT NULL, k bytea NOT NULL, "
        "v bytea NOT NULL, PRIMARY KEY (h, d))");
    Run("INSERT INTO plan_probe SELECT int8send(i), ''::bytea, int8send(i), "
        "decode(repeat('ab', 40), 'hex') FROM generate_series(1, 20000) AS i");
  }

  void Run(const std::string& sql) {
    PgError error;
    PgRows rows;
    ASSERT_TRUE(conn_->Exec({sql, {}}, &rows, &error)) << sql << ": " << error.message;
  }

  std::string Plan(const PgStatement& statement) {
    PgStatement explain{"EXPLAIN " + statement.sql, statement.params};
    PgError error;
    PgRows rows;
    EXPECT_TRUE(conn_->Exec(explain, &rows, &error)) << error.message;
    std::string plan;
    for (const auto& row : rows.rows) plan += (row[0] ? *row[0] : "") + "\n";
    return plan;
  }

  std::unique_ptr<PgConnection> conn_;
};

std::string Int8(int64_t v) { return PgInt64(v); }

TEST_F(PgPlansTest, APageOfARangeIsReadThroughTheIndexInKeyOrder) {
  // The shape of PgIterator's page: a range, a cursor, key order, a limit.
  std::string plan = Plan({"SELECT k, v FROM plan_probe WHERE h >= $1::bytea AND h <= $2::bytea "
                           "AND k >= $1::bytea AND k < $2::bytea AND h >= $3::bytea AND k > "
                           "$3::bytea ORDER BY h, d LIMIT 257",
                           {Int8(1), Int8(20000), Int8(5000)}});
  EXPECT_NE(plan.find("Index Scan using plan_probe_pkey"), std::string::npos) << plan;
  EXPECT_EQ(plan.find("Sort"), std::string::npos) << plan;
  EXPECT_EQ(plan.find("Bitmap"), std::string::npos) << plan;
  EXPECT_EQ(plan.find("Seq Scan"), std::string::npos) << plan;
}

TEST_F(PgPlansTest, KeysReadForUpdateAreLookedUpInTheIndex) {
  // The shape of the read-modify-write's read: keys of one list, locked.
  std::string plan = Plan({"SELECT k, v FROM plan_probe WHERE h = ANY($1::bytea[]) AND d = "
                           "''::bytea FOR UPDATE",
                           {PgByteaArray({Int8(7), Int8(70), Int8(700)})}});
  EXPECT_NE(plan.find("Index Scan using plan_probe_pkey"), std::string::npos) << plan;
  EXPECT_EQ(plan.find("Seq Scan"), std::string::npos) << plan;
  EXPECT_EQ(plan.find("Bitmap"), std::string::npos) << plan;
}

TEST_F(PgPlansTest, AStatementWithNoIndexToUseStillRuns) {
  // The settings weigh against other plans; they forbid none.
  PgError error;
  PgRows rows;
  ASSERT_TRUE(conn_->Exec({"SELECT count(*) FROM plan_probe WHERE v <> ''::bytea", {}}, &rows,
                          &error))
      << error.message;
  ASSERT_EQ(rows.rows.size(), 1u);
  int64_t count = 0;
  ASSERT_TRUE(PgDecodeInt64(rows.rows[0][0].value_or(""), &count));  // results come in binary
  EXPECT_EQ(count, 20000);
}

}  // namespace
}  // namespace ttlstore::storage
