// Hostile requests through the whole Tablestore front end (HandleRequest on a real Store): each
// is answered with the service's status, code and message, quickly, and leaves nothing written.
// Sizes and depths 33, 1,000, 100,000 and 1,000,000 where the request can carry them; the HTTP
// server's caps (64 KiB of headers) keep some of them out of reach over the wire, and the
// front end's own 5 MB body cap is tested here too.
#include <gtest/gtest.h>

#include <chrono>

#include "tablestore/plainbuffer.h"
#include "tablestore/row_convert.h"
#include "tablestore_env.h"
#include "wire_bytes.h"

namespace ttlstore::tablestore {
namespace {

namespace pb = ::ttlstore::otspb;
using model::CellValue;

class TablestoreHostile : public ::testing::Test {
 protected:
  TablestoreHostile()
      : env_(std::string("hostile_") +
             ::testing::UnitTest::GetInstance()->current_test_info()->name()) {}

  void SetUp() override {
    pb::CreateTableRequest req;
    req.mutable_table_meta()->set_table_name("t");
    auto* pk = req.mutable_table_meta()->add_primary_key();
    pk->set_name("pk");
    pk->set_type(pb::STRING);
    req.mutable_reserved_throughput()->mutable_capacity_unit()->set_read(0);
    HttpResponse r = env_.Send("CreateTable", req);
    ASSERT_EQ(r.status, 200) << ErrorOf(r).second;
  }

  static PbCell Cell(std::string name, CellValue v) {
    PbCell c;
    c.name = std::move(name);
    c.value = std::move(v);
    return c;
  }
  static PbRow Row(const std::string& key, size_t columns = 0, const std::string& value = "v") {
    PbRow row;
    row.primary_key.push_back(Cell("pk", CellValue::String(key)));
    for (size_t i = 0; i < columns; ++i) {
      row.attributes.push_back(Cell("c" + std::to_string(i), CellValue::String(value)));
    }
    return row;
  }
  static std::string PutRowBody(const std::string& row, std::string_view extra = {}) {
    pb::PutRowRequest req;
    req.set_table_name("t");
    req.set_row(row);
    req.mutable_condition()->set_row_existence(pb::IGNORE);
    return req.SerializePartialAsString() + std::string(extra);
  }

  // Whether GetRow finds the row `key` (the check that a refused write left nothing).
  bool RowExists(const std::string& key) {
    pb::GetRowRequest req;
    req.set_table_name("t");
    PbRow pk;
    pk.primary_key.push_back(Cell("pk", CellValue::String(key)));
    req.set_primary_key(EncodeRow(pk));
    req.set_max_versions(1);
    HttpResponse r = env_.Send("GetRow", req);
    EXPECT_EQ(r.status, 200) << ErrorOf(r).second;
    pb::GetRowResponse resp;
    EXPECT_TRUE(resp.ParseFromString(r.body));
    return !resp.row().empty();
  }

  void ExpectError(const HttpResponse& r, int status, const std::string& code,
                   const std::string& message) {
    EXPECT_EQ(r.status, status);
    auto [got_code, got_message] = ErrorOf(r);
    EXPECT_EQ(got_code, code);
    EXPECT_EQ(got_message, message);
    EXPECT_EQ(r.error_code, code);
  }

  TablestoreEnv env_;
};

TEST_F(TablestoreHostile, BodiesOver5MbAre413BeforeTheyAreVerified) {
  std::string body(kMaxRequestBodyBytes + 1, 'x');
  // Not even the MD5 is looked at: a wrong one gets the 413 too.
  HeaderList h = TablestoreEnv::SignedHeaders("PutRow", "");
  HttpResponse r = HandleRequest(env_.services(), "POST", "/PutRow", h, body);
  ExpectError(r, 413, "OTSRequestBodyTooLarge", "The size of POST data is too large.");
  // Exactly 5 MB is parsed (and here refused as a protobuf).
  r = env_.Call("PutRow", std::string(kMaxRequestBodyBytes, '\xff'));
  ExpectError(r, 400, "OTSParameterInvalid", "Parse PBMessage from RawString failed.");
}

TEST_F(TablestoreHostile, DeeplyNestedGroupsAreAParseErrorAndWriteNothing) {
  for (size_t depth : {size_t{33}, size_t{1000}, size_t{100000}, size_t{1000000}}) {
    std::string key = "nested" + std::to_string(depth);
    auto start = std::chrono::steady_clock::now();
    HttpResponse r = env_.Call("PutRow", PutRowBody(EncodeRow(Row(key, 1)),
                                                   wire::NestedGroups(15, depth)));
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                  std::chrono::steady_clock::now() - start).count();
    if (depth <= 100) {
      // Within protobuf's recursion limit an unknown group is skipped, as the service does.
      EXPECT_EQ(r.status, 200) << depth << ": " << ErrorOf(r).second;
      EXPECT_TRUE(RowExists(key));
    } else {
      ExpectError(r, 400, "OTSParameterInvalid", "Parse PBMessage from RawString failed.");
      EXPECT_FALSE(RowExists(key)) << depth;
    }
    EXPECT_LT(ms, 2000) << depth;
  }
}

TEST_F(TablestoreHostile, ColumnsToGetAreCountedBeforeTheyAreParsed) {
  for (size_t n : {size_t{33}, size_t{1000}, size_t{100000}, size_t{1000000}}) {
    pb::GetRowRequest req;
    req.set_table_name("t");
    req.set_primary_key(EncodeRow(Row("k")));
    req.set_max_versions(1);
    std::string body = req.SerializePartialAsString();
    for (size_t i = 0; i < n; ++i) body += wire::Bytes(3, "c");
    HttpResponse r = env_.Call("GetRow", body);
    if (n <= 1024) {
      EXPECT_EQ(r.status, 200) << n << ": " << ErrorOf(r).second;
    } else {
      ExpectError(r, 400, "OTSParameterInvalid",
                  "The number of columns from the request exceeds the limit, limit count: 1024, "
                  "column count: " + std::to_string(n) + ".");
    }
  }
}

TEST_F(TablestoreHostile, RowsOfManyCellsAreRefusedWithTheirCount) {
  for (size_t n : {size_t{33}, size_t{1000}, size_t{1024}, size_t{1025}, size_t{100000}}) {
    std::string key = "wide" + std::to_string(n);
    HttpResponse r = env_.Call("PutRow", PutRowBody(EncodeRow(Row(key, n, ""))));
    if (n <= 1024) {
      EXPECT_EQ(r.status, 200) << n << ": " << ErrorOf(r).second;
    } else {
      ExpectError(r, 400, "OTSParameterInvalid",
                  "The number of attribute columns exceeds the limit, limit count: 1024, column "
                  "count: " + std::to_string(n) + ".");
    }
    EXPECT_EQ(RowExists(key), n <= 1024) << n;
  }
  // A million cells take more than the 5 MB a body may hold.
  HttpResponse r = env_.Call("PutRow", PutRowBody(EncodeRow(Row("million", 1000000, ""))));
  ExpectError(r, 413, "OTSRequestBodyTooLarge", "The size of POST data is too large.");
  EXPECT_FALSE(RowExists("million"));
}

TEST_F(TablestoreHostile, LongColumnNamesAreEchoedCutShort) {
  for (size_t n : {size_t{33}, size_t{1000}, size_t{100000}, size_t{1000000}}) {
    PbRow row = Row("named");
    row.attributes.push_back(Cell(std::string(n, 'n'), CellValue::Integer(1)));
    HttpResponse r = env_.Call("PutRow", PutRowBody(EncodeRow(row)));
    if (n <= 255) {
      EXPECT_EQ(r.status, 200) << ErrorOf(r).second;
      continue;
    }
    std::string echoed = n <= kMaxEchoBytes ? std::string(n, 'n')
                                            : std::string(kMaxEchoBytes, 'n') + "...";
    ExpectError(r, 400, "OTSParameterInvalid", "Invalid column name: '" + echoed + "'.");
  }
}

TEST_F(TablestoreHostile, TheFourMegabyteDataLimitIsCheckedAtItsBoundary) {
  // pk "pk" = "b" (3 bytes), c1 (2 + 2 MB), c2 (2 + the rest): 4,194,304 bytes of data.
  auto row = [](const std::string& key, size_t total) {
    PbRow r;
    r.primary_key.push_back(Cell("pk", CellValue::String(key)));
    size_t first = 2u << 20;
    r.attributes.push_back(Cell("c1", CellValue::Blob(std::string(first, 'a'))));
    std::string rest(total - 3 - 2 - first - 2, 'b');
    r.attributes.push_back(Cell("c2", CellValue::Blob(std::move(rest))));
    return r;
  };
  ASSERT_EQ(RowDataSize(row("b", 4194304)), 4194304u);
  EXPECT_EQ(env_.Call("PutRow", PutRowBody(EncodeRow(row("b", 4194304)))).status, 200);
  EXPECT_TRUE(RowExists("b"));
  HttpResponse r = env_.Call("PutRow", PutRowBody(EncodeRow(row("c", 4194305))));
  ExpectError(r, 400, "OTSParameterInvalid",
              "The total data size of PutRow request exceeds the limit, limit size: 4194304, "
              "data size: 4194305.");
  EXPECT_FALSE(RowExists("c"));

  // BatchWriteRow: the whole request, checked before any row is written.
  pb::BatchWriteRowRequest batch;
  auto* t = batch.add_tables();
  t->set_table_name("t");
  for (int i = 0; i < 3; ++i) {
    auto* r = t->add_rows();
    r->set_type(pb::PUT);
    r->set_row_change(EncodeRow(Row("batch" + std::to_string(i), 1, std::string(1500000, 'x'))));
    r->mutable_condition()->set_row_existence(pb::IGNORE);
  }
  r = env_.Send("BatchWriteRow", batch);
  EXPECT_EQ(r.status, 400);
  EXPECT_TRUE(ErrorOf(r).second.starts_with(
      "The total data size of BatchWriteRow request exceeds the limit, limit size: 4194304, "
      "data size: 45"))
      << ErrorOf(r).second;
  for (int i = 0; i < 3; ++i) EXPECT_FALSE(RowExists("batch" + std::to_string(i)));
}

TEST_F(TablestoreHostile, BrokenPlainBufferInABatchFailsOnlyItsRow) {
  std::string bad = EncodeRow(Row("bad", 1));
  bad[bad.size() - 1] ^= 1;  // the row checksum
  pb::BatchWriteRowRequest batch;
  auto* t = batch.add_tables();
  t->set_table_name("t");
  for (const std::string& row : {EncodeRow(Row("good", 1)), bad}) {
    auto* r = t->add_rows();
    r->set_type(pb::PUT);
    r->set_row_change(row);
    r->mutable_condition()->set_row_existence(pb::IGNORE);
  }
  HttpResponse r = env_.Send("BatchWriteRow", batch);
  ASSERT_EQ(r.status, 200) << ErrorOf(r).second;
  pb::BatchWriteRowResponse resp;
  ASSERT_TRUE(resp.ParseFromString(r.body));
  EXPECT_TRUE(resp.tables(0).rows(0).is_ok());
  EXPECT_FALSE(resp.tables(0).rows(1).is_ok());
  EXPECT_EQ(resp.tables(0).rows(1).error().code(), "OTSParameterInvalid");
  EXPECT_TRUE(resp.tables(0).rows(1).error().message().starts_with(
      "Cell data broken, checksum is mismatch, "));
  EXPECT_TRUE(RowExists("good"));
  EXPECT_FALSE(RowExists("bad"));
}

TEST_F(TablestoreHostile, DeleteRowWithCellsIsRefusedAndDeletesNothing) {
  ASSERT_EQ(env_.Call("PutRow", PutRowBody(EncodeRow(Row("kept", 1)))).status, 200);
  for (size_t cells : {size_t{1}, size_t{1025}}) {
    PbRow row = Row("kept", cells);
    row.delete_marker = true;
    pb::DeleteRowRequest req;
    req.set_table_name("t");
    req.set_primary_key(EncodeRow(row));
    req.mutable_condition()->set_row_existence(pb::IGNORE);
    HttpResponse r = env_.Send("DeleteRow", req);
    ExpectError(r, 400, "OTSParameterInvalid",
                cells == 1 ? "Invalid delete row request: unexpected cells in request."
                           : "The number of attribute columns exceeds the limit, limit count: "
                             "1024, column count: 1025.");
    EXPECT_TRUE(RowExists("kept"));
  }
}

TEST_F(TablestoreHostile, PrimaryKeyCellsWithATimestampWriteNothing) {
  PbRow row = Row("stamped", 1);
  row.primary_key[0].timestamp = 1;
  HttpResponse r = env_.Call("PutRow", PutRowBody(EncodeRow(row)));
  ExpectError(r, 400, "OTSParameterInvalid", "Timestamp cannot be given for primary key name:pk.");
  EXPECT_FALSE(RowExists("stamped"));
}

TEST_F(TablestoreHostile, ManyOtsHeadersAreSignedAndVerifiedInLinearTime) {
  for (size_t n : {size_t{33}, size_t{1000}, size_t{100000}}) {
    HeaderList extra;
    for (size_t i = 0; i < n; ++i) extra.emplace_back("x-ots-h" + std::to_string(i), "v");
    auto start = std::chrono::steady_clock::now();
    HttpResponse r = env_.Call("ListTable", "", std::move(extra));
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                  std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(r.status, 200) << n << ": " << ErrorOf(r).second;
    EXPECT_LT(ms, 5000) << n;
  }
}

TEST_F(TablestoreHostile, BadDatesAndAbsurdHeadersGetTheServicesMessages) {
  auto with_date = [&](const std::string& date) {
    HeaderList h = TablestoreEnv::SignedHeaders("ListTable", "");
    for (auto& [name, value] : h) {
      if (name == "x-ots-date") value = date;
    }
    return HandleRequest(env_.services(), "POST", "/ListTable", h, "");
  };
  for (const std::string& date :
       {std::string("2026-13-01T00:00:00Z"), std::string("2026-02-30T00:00:00Z"),
        std::string("2026-01-01T24:00:00Z"), std::string("+026-01-01T00:00:00Z"),
        std::string("2026-01-01T 0:00:00Z"), std::string("2026-01-01T00:00:00"),
        std::string("2026-01-01T00:00:00.Z1"), std::string(), std::string("\xff\xfe")}) {
    ExpectError(with_date(date), 400, "OTSParameterInvalid", "Invalid date format: " + date + ".");
  }
  for (size_t n : {size_t{33}, size_t{1000}, size_t{100000}, size_t{1000000}}) {
    std::string date = "2026-01-01T00:00:00." + std::string(n, '1') + "Z";
    HttpResponse r = with_date(date);
    // A valid date, but a long-gone one.
    ExpectError(r, 403, "OTSAuthFailed",
                "Mismatch between system time and x-ots-date: " + EchoForError(date) + ".");
    std::string junk(n, 'j');
    ExpectError(with_date(junk), 400, "OTSParameterInvalid",
                "Invalid date format: " + EchoForError(junk) + ".");
  }
  // A bad signature (not base64 at all) is a mismatch, whatever its size.
  for (size_t n : {size_t{33}, size_t{1000000}}) {
    HeaderList h = TablestoreEnv::SignedHeaders("ListTable", "");
    h.back().second = std::string(n, '\x80');
    ExpectError(HandleRequest(env_.services(), "POST", "/ListTable", h, ""), 403, "OTSAuthFailed",
                "Signature mismatch.");
  }
}

TEST_F(TablestoreHostile, UnknownActionsAreEchoedCutShortAndShareOneMetricsLabel) {
  std::string action(100000, 'A');
  HttpResponse r = env_.Call(action, "");
  ExpectError(r, 400, "OTSParameterInvalid",
              "Unsupported operation: " + std::string(kMaxEchoBytes, 'A') + "....");
  EXPECT_EQ(r.action, "unknown");
  EXPECT_EQ(env_.Call("ListTable", "").action, "ListTable");
}

}  // namespace
}  // namespace ttlstore::tablestore
