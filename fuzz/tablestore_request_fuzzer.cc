// The whole Tablestore request path on hostile bytes (issue 17): action, headers and body from
// the input, through the real front end (signature, protobuf check and parse, PlainBuffer,
// handlers) on a real Store in a temp folder, as the unit tests build it
// (test/unit/tablestore_env.h).
//
// Input: a first line "<Action>" or "<METHOD> <Action>", then header lines "name: value" up to
// an empty line, then the body. The required x-ots-* headers the input leaves out are filled in
// with valid values (the date now, the body's MD5, the signature over the final headers), so
// that most inputs reach the handlers; an input that gives one exercises its verification.
//
// Checked on every input, besides ASan/UBSan: the answer is a status the protocol knows; every
// error carries a protobuf Error body with a code; no 500 (the store is healthy, so an internal
// error is a bug); and for a known action the protobuf pre-check (tablestore/wire_check.h)
// calls the body well formed exactly when protobuf-lite's generated parser does.
//
// TTLSTORE_WRITE_SEEDS=DIR: write the seed inputs (one valid request per action, deep and wide
// variants) to DIR and exit.
#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tablestore/plainbuffer.h"
#include "tablestore/request_shapes.h"
#include "tablestore_env.h"

using namespace ttlstore;
using namespace ttlstore::tablestore;
namespace pb = ::ttlstore::otspb;

namespace {

TablestoreEnv* env = nullptr;
size_t runs = 0;

// The well-formedness verdict of protobuf-lite and of CheckWire for `action`'s request, or
// nullopt for an action that is not served.
template <typename Message>
std::pair<bool, bool> Verdicts(std::string_view body) {
  Message m;
  bool parser = m.ParsePartialFromArray(body.data(), static_cast<int>(body.size()));
  bool check = CountWire(body, WireShapeOf(m)).well_formed;
  return {parser, check};
}

std::optional<std::pair<bool, bool>> VerdictsFor(std::string_view action, std::string_view body) {
  if (action == "CreateTable") return Verdicts<pb::CreateTableRequest>(body);
  if (action == "UpdateTable") return Verdicts<pb::UpdateTableRequest>(body);
  if (action == "DescribeTable") return Verdicts<pb::DescribeTableRequest>(body);
  if (action == "ListTable") return Verdicts<pb::ListTableRequest>(body);
  if (action == "DeleteTable") return Verdicts<pb::DeleteTableRequest>(body);
  if (action == "GetRow") return Verdicts<pb::GetRowRequest>(body);
  if (action == "PutRow") return Verdicts<pb::PutRowRequest>(body);
  if (action == "UpdateRow") return Verdicts<pb::UpdateRowRequest>(body);
  if (action == "DeleteRow") return Verdicts<pb::DeleteRowRequest>(body);
  if (action == "GetRange") return Verdicts<pb::GetRangeRequest>(body);
  if (action == "BatchGetRow") return Verdicts<pb::BatchGetRowRequest>(body);
  if (action == "BatchWriteRow") return Verdicts<pb::BatchWriteRowRequest>(body);
  if (action == "StartLocalTransaction") return Verdicts<pb::StartLocalTransactionRequest>(body);
  if (action == "CommitTransaction") return Verdicts<pb::CommitTransactionRequest>(body);
  if (action == "AbortTransaction") return Verdicts<pb::AbortTransactionRequest>(body);
  return std::nullopt;
}

void Fail(const char* what, std::string_view detail) {
  std::fprintf(stderr, "tablestore_request_fuzzer: %s: %.*s\n", what,
               static_cast<int>(std::min<size_t>(detail.size(), 500)), detail.data());
  std::abort();
}

HttpResponse MustSucceed(std::string_view action, const std::string& body) {
  HttpResponse r = env->Call(action, body);
  if (r.status != 200) Fail("set-up request failed", ErrorOf(r).second);
  return r;
}

pb::CreateTableRequest CreateTableRequest(const std::string& name, bool two_keys) {
  pb::CreateTableRequest req;
  auto* meta = req.mutable_table_meta();
  meta->set_table_name(name);
  auto* pk = meta->add_primary_key();
  pk->set_name("pk");
  pk->set_type(pb::STRING);
  if (two_keys) {
    pk = meta->add_primary_key();
    pk->set_name("n");
    pk->set_type(pb::INTEGER);
  }
  req.mutable_reserved_throughput()->mutable_capacity_unit()->set_read(0);
  req.mutable_table_options()->set_max_versions(3);
  req.mutable_table_options()->set_time_to_live(-1);
  return req;
}

// The tables every input may use: "t" (pk STRING) and "t2" (pk STRING, n INTEGER), emptied and
// the others dropped every few thousand inputs so that the store stays small.
void ResetTables() {
  pb::ListTableResponse list;
  list.ParseFromString(MustSucceed("ListTable", "").body);
  for (const auto& name : list.table_names()) {
    pb::DeleteTableRequest del;
    del.set_table_name(name);
    MustSucceed("DeleteTable", del.SerializeAsString());
  }
  MustSucceed("CreateTable", CreateTableRequest("t", false).SerializeAsString());
  MustSucceed("CreateTable", CreateTableRequest("t2", true).SerializeAsString());
}

PbCell Cell(std::string name, model::CellValue v, std::optional<int64_t> ts = std::nullopt) {
  PbCell c;
  c.name = std::move(name);
  c.value = std::move(v);
  c.timestamp = ts;
  return c;
}

PbRow Key(const std::string& k) {
  PbRow row;
  row.primary_key.push_back(Cell("pk", model::CellValue::String(k)));
  return row;
}

std::string Varint(uint64_t v) {
  std::string out;
  for (; v >= 0x80; v >>= 7) out.push_back(static_cast<char>((v & 0x7f) | 0x80));
  out.push_back(static_cast<char>(v));
  return out;
}
std::string Field(uint32_t number, std::string_view bytes) {
  return Varint(uint64_t{number} << 3 | 2) + Varint(bytes.size()) + std::string(bytes);
}
std::string VarintField(uint32_t number, uint64_t v) {
  return Varint(uint64_t{number} << 3) + Varint(v);
}
std::string Hex(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size();) {
    if (hex[i] == ' ') {
      ++i;
      continue;
    }
    out.push_back(static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
    i += 2;
  }
  return out;
}

std::string Input(std::string_view action, std::string_view body, std::string_view headers = {}) {
  return std::string(action) + "\n" + std::string(headers) + "\n" + std::string(body);
}

// One valid request per action, and the deep and wide variants the issue is about.
std::vector<std::pair<std::string, std::string>> Seeds() {
  std::vector<std::pair<std::string, std::string>> seeds;
  auto add = [&](std::string name, std::string action, const auto& message,
                 std::string_view tail = {}) {
    seeds.emplace_back(std::move(name), Input(action, message.SerializePartialAsString() +
                                                          std::string(tail)));
  };
  int64_t now = SystemClock().NowMs();
  add("create_table", "CreateTable", CreateTableRequest("s", true));
  pb::UpdateTableRequest update;
  update.set_table_name("t");
  update.mutable_table_options()->set_max_versions(2);
  add("update_table", "UpdateTable", update);
  pb::DescribeTableRequest describe;
  describe.set_table_name("t2");
  add("describe_table", "DescribeTable", describe);
  add("list_table", "ListTable", pb::ListTableRequest());
  pb::DeleteTableRequest del;
  del.set_table_name("s");
  add("delete_table", "DeleteTable", del);

  PbRow row = Key("a");
  row.attributes.push_back(Cell("i", model::CellValue::Integer(7)));
  row.attributes.push_back(Cell("d", model::CellValue::Double(1.5), now));
  row.attributes.push_back(Cell("b", model::CellValue::Boolean(true)));
  row.attributes.push_back(Cell("s", model::CellValue::String("str")));
  row.attributes.push_back(Cell("x", model::CellValue::Blob("\x01\x02")));
  pb::PutRowRequest put;
  put.set_table_name("t");
  put.set_row(EncodeRow(row));
  put.mutable_condition()->set_row_existence(pb::IGNORE);
  put.mutable_return_content()->set_return_type(pb::RT_AFTER_MODIFY);
  put.mutable_return_content()->add_return_column_names("i");
  add("put_row", "PutRow", put);

  pb::GetRowRequest get;
  get.set_table_name("t");
  get.set_primary_key(EncodeRow(Key("a")));
  get.set_max_versions(2);
  get.add_columns_to_get("i");
  get.mutable_time_range()->set_start_time(0);
  get.mutable_time_range()->set_end_time(now + 1000);
  add("get_row", "GetRow", get);

  // Filters (table_store_filter.proto) and column ranges: i >= 1 AND NOT(s == "x"), read from
  // column "a" up to "z"; the same filter as a PutRow's column condition; a pagination filter.
  auto filter = [](uint64_t type, std::string_view inner) {
    return VarintField(1, type) + Field(2, inner);
  };
  auto single = [&](int comparator, std::string_view column, const model::CellValue& v) {
    return filter(1, VarintField(1, comparator) + Field(2, column) + Field(3, EncodeValue(v)) +
                         VarintField(4, 0) + VarintField(5, 1));
  };
  std::string composite =
      filter(2, VarintField(1, 2) + Field(2, single(4, "i", model::CellValue::Integer(1))) +
                    Field(2, filter(2, VarintField(1, 1) +
                                           Field(2, single(1, "s", model::CellValue::String("x"))))));
  pb::GetRowRequest filtered = get;
  filtered.set_filter(composite);
  filtered.set_start_column("a");
  filtered.set_end_column("z");
  add("get_row_filter", "GetRow", filtered);
  pb::GetRowRequest paged = get;
  paged.set_filter(filter(3, VarintField(1, 1) + VarintField(2, 2)));
  add("get_row_pagination", "GetRow", paged);
  pb::PutRowRequest conditional = put;
  conditional.mutable_condition()->set_column_condition(composite);
  add("put_row_column_condition", "PutRow", conditional);

  PbRow change = Key("a");
  change.attributes.push_back(Cell("i", model::CellValue::Integer(1)));
  pb::UpdateRowRequest upd;
  upd.set_table_name("t");
  upd.set_row_change(EncodeRow(change));
  upd.mutable_condition()->set_row_existence(pb::EXPECT_EXIST);
  add("update_row", "UpdateRow", upd);
  // Cells with ops (EncodeRow writes none: responses carry none), from the SDK's byte vectors
  // in the protocol notes: delete one version, delete all versions, increment.
  std::string key = EncodeRow(Key("a"));
  std::string pk_cell = key.substr(5, key.size() - 7);
  std::string op_row = key.substr(0, 5) + pk_cell + "\x02" +
                       Hex("03 04 04000000 636f6c32 06 03 07 0068e5cf8b010000 0a 72"
                           "03 04 04000000 636f6c33 06 01 0a 73"
                           "03 04 03000000 636e74 05 09000000 00 0500000000000000 06 04 0a 14");
  uint8_t row_crc = 0;
  for (char c : {pk_cell.back(), '\x72', '\x73', '\x14', '\0'}) {
    row_crc = Crc8(row_crc, std::string_view(&c, 1));
  }
  op_row += "\x09";
  op_row.push_back(static_cast<char>(row_crc));
  upd.set_row_change(op_row);
  upd.mutable_condition()->set_row_existence(pb::IGNORE);
  add("update_row_ops", "UpdateRow", upd);

  pb::DeleteRowRequest delete_row;
  delete_row.set_table_name("t");
  PbRow marker = Key("a");
  marker.delete_marker = true;
  delete_row.set_primary_key(EncodeRow(marker));
  delete_row.mutable_condition()->set_row_existence(pb::IGNORE);
  add("delete_row", "DeleteRow", delete_row);

  pb::GetRangeRequest range;
  range.set_table_name("t2");
  range.set_direction(pb::BACKWARD);
  PbRow start, end;
  start.primary_key.push_back(Cell("pk", model::CellValue::Marker(model::CellType::kInfMax)));
  start.primary_key.push_back(Cell("n", model::CellValue::Marker(model::CellType::kInfMax)));
  end.primary_key.push_back(Cell("pk", model::CellValue::Marker(model::CellType::kInfMin)));
  end.primary_key.push_back(Cell("n", model::CellValue::Marker(model::CellType::kInfMin)));
  range.set_inclusive_start_primary_key(EncodeRow(start));
  range.set_exclusive_end_primary_key(EncodeRow(end));
  range.set_max_versions(1);
  range.set_limit(10);
  add("get_range", "GetRange", range);

  pb::BatchGetRowRequest batch_get;
  auto* bt = batch_get.add_tables();
  bt->set_table_name("t");
  bt->add_primary_key(EncodeRow(Key("a")));
  bt->add_primary_key(EncodeRow(Key("b")));
  bt->set_max_versions(1);
  add("batch_get_row", "BatchGetRow", batch_get);

  pb::BatchWriteRowRequest batch_write;
  auto* wt = batch_write.add_tables();
  wt->set_table_name("t");
  for (auto [type, r] : {std::pair{pb::PUT, row}, std::pair{pb::UPDATE, change},
                         std::pair{pb::DELETE, marker}}) {
    auto* w = wt->add_rows();
    w->set_type(type);
    w->set_row_change(EncodeRow(r));
    w->mutable_condition()->set_row_existence(pb::IGNORE);
  }
  add("batch_write_row", "BatchWriteRow", batch_write);

  // Deep: unknown groups at protobuf's recursion limit, one past it, and 1900 levels (under
  // the 4 KB CI fuzzes at).
  for (size_t depth : {size_t{100}, size_t{101}, size_t{1900}}) {
    add("put_row_groups_" + std::to_string(depth), "PutRow", put,
        std::string(depth, '\x7b') + std::string(depth, '\x7c'));
  }
  // Deep inside submessages: tables -> rows -> return_content -> 97 groups (the limit).
  std::string return_content = VarintField(1, pb::RT_PK) + std::string(97, '\x7b') +
                               std::string(97, '\x7c');
  std::string deep_row = VarintField(1, pb::PUT) + Field(2, EncodeRow(row)) +
                         Field(3, VarintField(1, pb::IGNORE)) + Field(4, return_content);
  seeds.emplace_back("batch_write_row_deep",
                     Input("BatchWriteRow", Field(1, Field(1, "t") + Field(2, deep_row))));
  // Wide: 1025 columns to get; a row of 150 cells.
  pb::GetRowRequest wide = get;
  for (int i = 0; i < 1025; ++i) wide.add_columns_to_get("c");
  add("get_row_1025_columns", "GetRow", wide);
  PbRow many = Key("m");
  for (int i = 0; i < 150; ++i) many.attributes.push_back(Cell("c", model::CellValue::Integer(i)));
  pb::PutRowRequest put_many = put;
  put_many.set_row(EncodeRow(many));
  add("put_row_150_cells", "PutRow", put_many);
  // Headers: a bad date, a stale one, a given (wrong) signature, a method other than POST.
  seeds.emplace_back("bad_date", Input("ListTable", "", "x-ots-date: 2026-13-01T00:00:00Z\n"));
  seeds.emplace_back("stale_date", Input("ListTable", "", "x-ots-date: 2001-01-01T00:00:00.5Z\n"));
  seeds.emplace_back("signature", Input("ListTable", "", "x-ots-signature: AAAA\n"));
  seeds.emplace_back("many_headers",
                     Input("ListTable", "", "x-ots-a: 1\nx-ots-b: 2\nX-OTS-C: 3\n"));
  seeds.emplace_back("get_method", Input("GET ListTable", ""));
  seeds.emplace_back("unknown_action", Input("ComputeSplitPointsBySize", ""));
  return seeds;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  env = new TablestoreEnv("tablestore_request_fuzzer");
  ResetTables();
  if (const char* dir = std::getenv("TTLSTORE_WRITE_SEEDS")) {
    for (const auto& [name, bytes] : Seeds()) {
      std::ofstream(std::string(dir) + "/" + name, std::ios::binary) << bytes;
    }
    delete env;
    std::exit(0);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (++runs % 4096 == 0) ResetTables();
  std::string_view in(reinterpret_cast<const char*>(data), size);
  size_t nl = in.find('\n');
  std::string_view first = in.substr(0, nl);
  in = nl == std::string_view::npos ? std::string_view() : in.substr(nl + 1);
  std::string_view method = "POST", action = first;
  if (size_t sp = first.find(' '); sp != std::string_view::npos) {
    method = first.substr(0, sp);
    action = first.substr(sp + 1);
  }
  HeaderList given;
  while (!in.empty()) {
    nl = in.find('\n');
    std::string_view line = in.substr(0, nl);
    in = nl == std::string_view::npos ? std::string_view() : in.substr(nl + 1);
    if (line.empty()) break;
    size_t colon = line.find(':');
    std::string_view name = line.substr(0, colon);
    std::string_view value = colon == std::string_view::npos ? std::string_view()
                                                             : line.substr(colon + 1);
    while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    given.emplace_back(std::string(name), std::string(value));
  }
  std::string_view body = in;

  // The SDK's headers, signed, with the input's own in place of the same names.
  HeaderList headers;
  auto given_value = [&](std::string_view lower) -> const std::string* {
    for (const auto& [n, v] : given) {
      if (n.size() != lower.size()) continue;
      bool same = true;
      for (size_t i = 0; i < n.size() && same; ++i) {
        same = std::tolower(static_cast<unsigned char>(n[i])) == lower[i];
      }
      if (same) return &v;
    }
    return nullptr;
  };
  for (auto& [name, value] : TablestoreEnv::SignedHeaders(action, body)) {
    if (name == "x-ots-signature" || given_value(name)) continue;
    headers.emplace_back(std::move(name), std::move(value));
  }
  for (const auto& h : given) headers.push_back(h);
  if (!given_value("x-ots-signature")) {
    std::string signature =
        HmacSha1Base64(TablestoreEnv::kSecret, RequestStringToSign(action, headers));
    headers.emplace_back("x-ots-signature", std::move(signature));
  }

  HttpResponse r = HandleRequest(env->services(), method, "/" + std::string(action), headers, body);
  switch (r.status) {
    case 200: case 400: case 403: case 404: case 405: case 409: case 413: break;
    default: Fail("unexpected status", std::to_string(r.status) + " " + ErrorOf(r).second);
  }
  if (r.status != 200) {
    auto [code, message] = ErrorOf(r);
    if (code.empty() || code != r.error_code) Fail("error without a code", r.body);
  }
  if (r.headers.find("x-ots-requestid: ") == std::string::npos) Fail("no request id", r.headers);
  if (body.size() <= kMaxRequestBodyBytes) {
    if (auto v = VerdictsFor(action, body); v && v->first != v->second) {
      Fail(v->first ? "CheckWire refused what the parser accepts"
                    : "CheckWire accepted what the parser refuses",
           std::string(action));
    }
  }
  return 0;
}
