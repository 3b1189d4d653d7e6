// CheckWire (tablestore/wire_check.h) against protobuf-lite's generated parser: it refuses
// exactly the bytes the parser refuses (nesting past the recursion limit, malformed varints,
// tags and lengths), counts repeated entries without parsing them, answers the service's
// documented counts with its messages, and never recurses on the input however deep it nests.
#include "tablestore/wire_check.h"

#include <gtest/gtest.h>

#include "tablestore/request_shapes.h"
#include "tablestore/tablestore.pb.h"
#include "wire_bytes.h"

namespace ttlstore::tablestore {
namespace {

namespace pb = ::ttlstore::otspb;
using wire::Bytes;
using wire::NestedGroups;
using wire::NestedLengthDelimited;

template <typename Message>
bool GeneratedParserAccepts(const std::string& bytes) {
  Message m;
  return m.ParsePartialFromArray(bytes.data(), static_cast<int>(bytes.size()));
}

// CheckWire's verdict on well-formedness must be the parser's.
template <typename Message>
void ExpectAgreement(const std::string& bytes, bool well_formed, const std::string& what) {
  WireCounts c = CountWire(bytes, WireShapeOf(Message()));
  EXPECT_EQ(c.well_formed, well_formed) << what;
  EXPECT_EQ(GeneratedParserAccepts<Message>(bytes), well_formed) << what;
  Status s = CheckWire(bytes, WireShapeOf(Message()));
  if (!well_formed) {
    ASSERT_FALSE(s.ok()) << what;
    EXPECT_EQ(s.error().message(), kParseFailedMessage) << what;
  }
}

std::string Message(const Status& s) { return s.ok() ? "ok" : s.error().message(); }

TEST(WireCheck, NestedGroupsPastTheRecursionLimitAreRefusedAsTheParserRefusesThem) {
  // Field 15 is unknown to GetRowRequest: the parser skips it, recursing once per group up to
  // its limit of 100 levels below the top-level message.
  for (size_t depth : {size_t{33}, size_t{99}, size_t{100}, size_t{101}, size_t{1000},
                       size_t{100000}, size_t{1000000}}) {
    std::string bytes = NestedGroups(15, depth);
    ExpectAgreement<pb::GetRowRequest>(bytes, depth <= 100, "depth " + std::to_string(depth));
    EXPECT_EQ(CountWire(bytes, WireShapeOf(pb::GetRowRequest())).max_depth,
              static_cast<int>(std::min<size_t>(depth, 101)));
  }
}

TEST(WireCheck, GroupsInsideSubmessagesShareTheLimitWithThem) {
  // tables -> rows -> return_content: three submessages, so 97 groups fit and 98 do not.
  auto request = [](size_t groups) {
    std::string return_content = NestedGroups(15, groups);
    std::string row = Bytes(4, return_content);
    std::string table = Bytes(2, row);
    return Bytes(1, table);
  };
  ExpectAgreement<pb::BatchWriteRowRequest>(request(97), true, "97 groups");
  ExpectAgreement<pb::BatchWriteRowRequest>(request(98), false, "98 groups");
  ExpectAgreement<pb::BatchWriteRowRequest>(request(1000000), false, "1000000 groups");
}

TEST(WireCheck, NestedLengthDelimitedUnknownFieldsAreOpaqueAtAnyDepth) {
  // Unknown length-delimited fields are kept as bytes by the parser: neither side descends.
  for (size_t depth : {size_t{33}, size_t{1000}, size_t{100000}, size_t{1000000}}) {
    std::string bytes = NestedLengthDelimited(15, depth);
    ExpectAgreement<pb::GetRowRequest>(bytes, true, "depth " + std::to_string(depth));
    EXPECT_EQ(CountWire(bytes, WireShapeOf(pb::GetRowRequest())).max_depth, 0);
  }
}

TEST(WireCheck, KnownSubmessagesNestOnlyAsDeepAsTheSchema) {
  // Field 1 of each level: tables, then table_name (a string): the schema ends the descent.
  std::string bytes = NestedLengthDelimited(1, 100000);
  WireCounts c = CountWire(bytes, WireShapeOf(pb::BatchWriteRowRequest()));
  EXPECT_TRUE(c.well_formed);
  EXPECT_EQ(c.max_depth, 1);
  EXPECT_TRUE(GeneratedParserAccepts<pb::BatchWriteRowRequest>(bytes));
}

TEST(WireCheck, MalformedBytesAreRefusedExactlyWhenTheParserRefusesThem) {
  struct Case {
    std::string bytes;
    bool well_formed;
    const char* what;
  };
  const Case cases[] = {
      {std::string("\x0a", 1), false, "tag without a value"},
      {std::string("\x0a\x05" "ab", 4), false, "length past the end"},
      {std::string("\x78") + std::string(10, '\xff') + "\x01", false, "11-byte varint"},
      {std::string("\x78") + std::string(9, '\xff') + "\x01", true, "10-byte varint"},
      {std::string("\x0e\x00", 2), false, "wire type 6"},
      {std::string("\x0f\x00", 2), false, "wire type 7"},
      {std::string("\x00", 1), false, "zero tag"},
      {std::string("\x02\x00", 2), false, "field number 0"},
      {std::string("\x0c", 1), false, "end group at the top"},
      {std::string("\x7b", 1), false, "group never closed"},
      {std::string("\x7b\x84\x01", 3), false, "group closed by another field's end tag"},
      {std::string("\x80\x80\x80\x80\x80\x01", 6), false, "6-byte tag"},
      {std::string("\xfa\x80\x80\x80\x00\x00", 6), true, "5-byte tag"},
      {std::string("\xfa\x80\x80\x80\x70\x00", 6), true, "5-byte tag with bits past 32"},
      {std::string("\x7a\x80\x80\x80\x80\x00", 6), true, "5-byte length"},
      {std::string("\x7a\x80\x80\x80\x80\x08", 6), false, "length of 2^31"},
      {std::string("\x7d" "abc", 4), false, "truncated fixed32"},
      {std::string("\x79" "abcdefg", 8), false, "truncated fixed64"},
      {std::string("\x79" "abcdefgh", 9), true, "fixed64"},
  };
  for (const Case& c : cases) ExpectAgreement<pb::GetRowRequest>(c.bytes, c.well_formed, c.what);

  const Case in_submessage[] = {
      {Bytes(3, std::string("\x00", 1)), false, "zero tag inside condition"},
      {Bytes(3, "\x0c"), false, "end group inside condition"},
      {Bytes(3, "\x08"), false, "truncated varint inside condition"},
      {Bytes(3, "\x08\x01"), true, "condition"},
      {std::string("\x18\x01", 2), true, "condition sent as a varint (an unknown field)"},
      {Bytes(4, Bytes(2, "c") + "\x12"), false, "return column cut short"},
  };
  for (const Case& c : in_submessage) {
    ExpectAgreement<pb::PutRowRequest>(c.bytes, c.well_formed, c.what);
  }
}

std::string Columns(uint32_t field, size_t n) {
  std::string out;
  out.reserve(n * 3);
  for (size_t i = 0; i < n; ++i) out += Bytes(field, "c");
  return out;
}

TEST(WireCheck, ColumnsToGetAreCountedWithTheServicesLimit) {
  for (size_t n : {size_t{33}, size_t{1000}, size_t{1024}, size_t{1025}, size_t{100000},
                   size_t{1000000}}) {
    std::string bytes = Bytes(1, "t") + Columns(3, n);
    Status s = CheckWire(bytes, WireShapeOf(pb::GetRowRequest()));
    if (n <= 1024) {
      EXPECT_TRUE(s.ok()) << n << ": " << Message(s);
    } else {
      EXPECT_EQ(Message(s),
                "The number of columns from the request exceeds the limit, limit count: 1024, "
                "column count: " + std::to_string(n) + ".");
    }
  }
  // The same limit in GetRange, a BatchGetRow table and a write's return_content.
  EXPECT_FALSE(CheckWire(Columns(3, 1025), WireShapeOf(pb::GetRangeRequest())).ok());
  EXPECT_FALSE(CheckWire(Bytes(1, Columns(4, 1025)), WireShapeOf(pb::BatchGetRowRequest())).ok());
  EXPECT_FALSE(CheckWire(Bytes(4, Columns(2, 1025)), WireShapeOf(pb::UpdateRowRequest())).ok());
  EXPECT_TRUE(CheckWire(Bytes(4, Columns(2, 1024)), WireShapeOf(pb::UpdateRowRequest())).ok());
}

TEST(WireCheck, BatchRowsAreCountedOverTheWholeRequest) {
  auto get = [](size_t tables, size_t keys_each) {
    std::string out;
    for (size_t t = 0; t < tables; ++t) out += Bytes(1, Bytes(1, "t") + Columns(2, keys_each));
    return out;
  };
  EXPECT_TRUE(CheckWire(get(2, 50), WireShapeOf(pb::BatchGetRowRequest())).ok());
  EXPECT_EQ(Message(CheckWire(get(1, 101), WireShapeOf(pb::BatchGetRowRequest()))),
            "Rows count exceeds the upper limit: 100.");
  EXPECT_EQ(Message(CheckWire(get(101, 1), WireShapeOf(pb::BatchGetRowRequest()))),
            "Rows count exceeds the upper limit: 100.");
  EXPECT_EQ(Message(CheckWire(get(1, 1000000), WireShapeOf(pb::BatchGetRowRequest()))),
            "Rows count exceeds the upper limit: 100.");

  auto write = [](size_t rows) {
    std::string table = Bytes(1, "t");
    for (size_t i = 0; i < rows; ++i) table += Bytes(2, "");
    return Bytes(1, table);
  };
  for (size_t n : {size_t{33}, size_t{200}}) {
    EXPECT_TRUE(CheckWire(write(n), WireShapeOf(pb::BatchWriteRowRequest())).ok()) << n;
  }
  for (size_t n : {size_t{201}, size_t{1000}, size_t{100000}, size_t{1000000}}) {
    EXPECT_EQ(Message(CheckWire(write(n), WireShapeOf(pb::BatchWriteRowRequest()))),
              "Rows count exceeds the upper limit: 200.")
        << n;
  }
}

TEST(WireCheck, TableMetaColumnCountsHaveTheServicesMessages) {
  auto create = [](size_t pk, size_t defined) {
    std::string meta = Bytes(1, "t");
    for (size_t i = 0; i < pk; ++i) meta += Bytes(2, Bytes(1, "p"));
    for (size_t i = 0; i < defined; ++i) meta += Bytes(3, Bytes(1, "d"));
    return Bytes(1, meta);
  };
  const WireShape& shape = WireShapeOf(pb::CreateTableRequest());
  EXPECT_TRUE(CheckWire(create(4, 32), shape).ok());
  EXPECT_EQ(Message(CheckWire(create(5, 0), shape)),
            "The number of primary key columns must be in range: [1, 4].");
  EXPECT_EQ(Message(CheckWire(create(1000000, 0), shape)),
            "The number of primary key columns must be in range: [1, 4].");
  EXPECT_EQ(Message(CheckWire(create(1, 33), shape)),
            "The number of defined columns must be in range: [0, 32].");
  EXPECT_EQ(Message(CheckWire(create(1, 100000), shape)),
            "The number of defined columns must be in range: [0, 32].");
}

TEST(WireCheck, RepeatedEntriesWithoutALimitOfTheirOwnShareOneBudget) {
  // CreateTable's partitions have no documented limit; empty ones cost two bytes each.
  auto partitions = [](size_t n) {
    std::string out = Bytes(1, Bytes(1, "t"));
    out.reserve(out.size() + 2 * n);
    for (size_t i = 0; i < n; ++i) out += Bytes(4, "");
    return out;
  };
  const WireShape& shape = WireShapeOf(pb::CreateTableRequest());
  EXPECT_TRUE(CheckWire(partitions(kMaxRepeatedEntries), shape).ok());
  EXPECT_EQ(Message(CheckWire(partitions(kMaxRepeatedEntries + 1), shape)),
            "The request has 262145 entries in repeated fields; ttlstore accepts at most 262144.");
  EXPECT_FALSE(CheckWire(partitions(1000000), shape).ok());
  // Unknown repeated fields are kept as one string by the parser: not counted.
  std::string unknown;
  for (size_t i = 0; i < 1000000; ++i) unknown += Bytes(15, "");
  EXPECT_TRUE(CheckWire(unknown, WireShapeOf(pb::ListTableRequest())).ok());
  EXPECT_EQ(CountWire(unknown, WireShapeOf(pb::ListTableRequest())).repeated_entries, 0u);
}

// Every repeated and submessage field of every request is in its shape: a message holding two
// entries of each repeated field (and every submessage) counts exactly those entries.
TEST(WireCheck, ShapesListEveryRepeatedFieldOfEveryRequest) {
  auto counted = [](const auto& m) {
    WireCounts c = CountWire(m.SerializePartialAsString(), WireShapeOf(m));
    EXPECT_TRUE(c.well_formed);
    return c.repeated_entries;
  };
  auto index_meta = [](pb::IndexMeta* im) {
    im->set_name("i");
    im->add_primary_key("a");
    im->add_primary_key("b");
    im->add_defined_column("c");
    im->add_defined_column("d");
  };
  pb::CreateTableRequest create;
  auto* meta = create.mutable_table_meta();
  meta->set_table_name("t");
  for (int i = 0; i < 2; ++i) {
    meta->add_primary_key()->set_name("p");
    meta->add_defined_column()->set_name("d");
    index_meta(meta->add_index_meta());
    index_meta(create.add_index_metas());
    create.add_partitions()->set_begin("b");
    create.mutable_stream_spec()->add_columns_to_get("s");
  }
  create.mutable_reserved_throughput()->mutable_capacity_unit()->set_read(1);
  create.mutable_table_options()->set_max_versions(1);
  // 2 pk + 2 defined + 2 index_meta (4 each) + 2 index_metas (4 each) + 2 partitions + 2 stream.
  EXPECT_EQ(counted(create), 2u + 2 + 2 + 8 + 2 + 8 + 2 + 2);

  pb::UpdateTableRequest update;
  update.mutable_stream_spec()->add_columns_to_get("a");
  update.mutable_stream_spec()->add_columns_to_get("b");
  EXPECT_EQ(counted(update), 2u);

  pb::GetRowRequest get;
  get.add_columns_to_get("a");
  get.add_columns_to_get("b");
  get.mutable_time_range()->set_start_time(1);
  EXPECT_EQ(counted(get), 2u);

  pb::PutRowRequest put;
  put.mutable_condition()->set_row_existence(pb::IGNORE);
  put.mutable_return_content()->add_return_column_names("a");
  put.mutable_return_content()->add_return_column_names("b");
  EXPECT_EQ(counted(put), 2u);

  pb::GetRangeRequest range;
  range.add_columns_to_get("a");
  range.add_columns_to_get("b");
  EXPECT_EQ(counted(range), 2u);

  pb::BatchGetRowRequest batch_get;
  for (int i = 0; i < 2; ++i) {
    auto* t = batch_get.add_tables();
    t->add_primary_key("k");
    t->add_primary_key("k");
    t->add_token("x");
    t->add_token("y");
    t->add_columns_to_get("a");
    t->add_columns_to_get("b");
    t->mutable_time_range()->set_specific_time(1);
  }
  EXPECT_EQ(counted(batch_get), 2u + 2 * 6);
  EXPECT_EQ(CountWire(batch_get.SerializePartialAsString(), WireShapeOf(batch_get)).batch_get_rows,
            4u);

  pb::BatchWriteRowRequest batch_write;
  for (int i = 0; i < 2; ++i) {
    auto* t = batch_write.add_tables();
    for (int j = 0; j < 2; ++j) {
      auto* r = t->add_rows();
      r->mutable_condition()->set_row_existence(pb::IGNORE);
      r->mutable_return_content()->add_return_column_names("a");
      r->mutable_return_content()->add_return_column_names("b");
    }
  }
  EXPECT_EQ(counted(batch_write), 2u + 4 + 8);
  WireCounts c = CountWire(batch_write.SerializePartialAsString(), WireShapeOf(batch_write));
  EXPECT_EQ(c.batch_write_rows, 4u);
  EXPECT_EQ(c.max_columns, 2u);
}

}  // namespace
}  // namespace ttlstore::tablestore
