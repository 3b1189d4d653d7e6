#include "workload.h"

#include <rapidjson/document.h>

#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <thread>

namespace loadgen {

namespace {

struct Named {
  const char* name;
  Workload w;
};
constexpr Named kNames[] = {
    {"load", Workload::kLoad},     {"put", Workload::kPut},
    {"get", Workload::kGet},       {"mixed", Workload::kMixed},
    {"update", Workload::kUpdate}, {"query", Workload::kQuery},
    {"batch-put", Workload::kBatchPut}, {"scan", Workload::kScan},
};

// Item payloads are slices of one random text so that RocksDB's block compression (and any other
// server's) sees data that does not shrink to nothing, without generating bytes per request.
const std::string& PayloadPool() {
  static const std::string pool = [] {
    static const char kAlnum[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    Rng r{42};
    std::string p(8192, ' ');
    for (auto& ch : p) ch = kAlnum[r.Below(62)];
    return p;
  }();
  return pool;
}

uint64_t Partitions(const Settings& s) { return s.keys / 10 ? s.keys / 10 : 1; }

void AppendHashKey(std::string& b, uint64_t k) {
  char buf[64];
  int n = std::snprintf(buf, sizeof buf, "\"pk\":{\"S\":\"k%010llu\"}", (unsigned long long)k);
  b.append(buf, size_t(n));
}

void AppendRangeKey(std::string& b, uint64_t part, uint64_t sk) {
  char buf[80];
  int n = std::snprintf(buf, sizeof buf, "\"pk\":{\"S\":\"p%09llu\"},\"sk\":{\"S\":\"s%02llu\"}",
                        (unsigned long long)part, (unsigned long long)sk);
  b.append(buf, size_t(n));
}

// Item number `i` of the key space, as the JSON object of its attributes.
void AppendItem(std::string& b, const Settings& s, uint64_t i, Rng& rng) {
  b += '{';
  int payload = s.payload_bytes;
  if (s.range_key) {
    AppendRangeKey(b, i / 10, i % 10);
    payload -= 4;  // the sort key's name and value take the place of payload bytes
  } else {
    AppendHashKey(b, i);
  }
  char buf[64];
  int n = std::snprintf(buf, sizeof buf, ",\"ttl\":{\"N\":\"%lld\"},\"payload\":{\"S\":\"",
                        (long long)s.ttl_epoch);
  b.append(buf, size_t(n));
  const std::string& pool = PayloadPool();
  b.append(pool, rng.Below(pool.size() - size_t(payload)), size_t(payload));
  b += "\"}}";
}

void AppendTable(std::string& b, const Settings& s) {
  b += "{\"TableName\":\"";
  b += s.table;
  b += '"';
}

}  // namespace

bool ParseWorkload(std::string_view name, Workload& out) {
  for (const auto& n : kNames)
    if (name == n.name) { out = n.w; return true; }
  return false;
}

const char* WorkloadName(Workload w) {
  for (const auto& n : kNames)
    if (n.w == w) return n.name;
  return "?";
}

void NextRequest(Workload w, const Settings& s, Rng& rng, Request& req) {
  std::string& b = req.body;
  b.clear();
  req.expect = Expect::kNothing;
  req.is_read = false;
  if (w == Workload::kMixed) w = (rng.Next() & 1) ? Workload::kGet : Workload::kPut;
  switch (w) {
    case Workload::kPut:
      req.op = "PutItem";
      AppendTable(b, s);
      b += ",\"Item\":";
      AppendItem(b, s, rng.Below(s.keys), rng);
      b += '}';
      break;
    case Workload::kGet:
      req.op = "GetItem";
      req.expect = Expect::kItem;
      req.is_read = true;
      AppendTable(b, s);
      b += ",\"Key\":{";
      AppendHashKey(b, rng.Below(s.keys));
      b += "}}";
      break;
    case Workload::kUpdate:
      req.op = "UpdateItem";
      AppendTable(b, s);
      b += ",\"Key\":{";
      AppendHashKey(b, rng.Below(s.keys));
      b += "},\"UpdateExpression\":\"ADD #c :one\",\"ExpressionAttributeNames\":{\"#c\":\"counter\"},"
           "\"ExpressionAttributeValues\":{\":one\":{\"N\":\"1\"}}}";
      break;
    case Workload::kQuery: {
      req.op = "Query";
      req.expect = Expect::kCount;
      req.expect_count = 10;
      req.is_read = true;
      AppendTable(b, s);
      char buf[160];
      int n = std::snprintf(buf, sizeof buf,
                            ",\"KeyConditionExpression\":\"pk = :p\",\"ExpressionAttributeValues\":"
                            "{\":p\":{\"S\":\"p%09llu\"}}}",
                            (unsigned long long)rng.Below(Partitions(s)));
      b.append(buf, size_t(n));
      break;
    }
    case Workload::kBatchPut: {
      // 25 consecutive keys from a random start: distinct within the batch, as DynamoDB requires.
      uint64_t start = rng.Below(s.keys);
      PreloadRequest(s, 0, 0, rng, req);  // sets op/expect, then we fill the items ourselves
      b.clear();
      b += "{\"RequestItems\":{\"";
      b += s.table;
      b += "\":[";
      for (int i = 0; i < 25; ++i) {
        if (i) b += ',';
        b += "{\"PutRequest\":{\"Item\":";
        AppendItem(b, s, (start + uint64_t(i)) % s.keys, rng);
        b += "}}";
      }
      b += "]}}";
      break;
    }
    case Workload::kScan: {
      req.op = "Scan";
      req.expect = Expect::kCount;
      req.expect_count = int64_t(std::min<uint64_t>(uint64_t(s.scan_limit), s.keys));
      req.is_read = true;
      AppendTable(b, s);
      b += ",\"Limit\":" + std::to_string(s.scan_limit) + "}";
      break;
    }
    case Workload::kLoad:
    case Workload::kMixed:
      throw std::logic_error("no request for this workload");
  }
}

void PreloadRequest(const Settings& s, uint64_t first, int n, Rng& rng, Request& req) {
  req.op = "BatchWriteItem";
  req.expect = Expect::kNoUnprocessed;
  req.is_read = false;
  std::string& b = req.body;
  b.clear();
  b += "{\"RequestItems\":{\"";
  b += s.table;
  b += "\":[";
  for (int i = 0; i < n; ++i) {
    if (i) b += ',';
    b += "{\"PutRequest\":{\"Item\":";
    AppendItem(b, s, first + uint64_t(i), rng);
    b += "}}";
  }
  b += "]}}";
}

std::string_view CheckResponse(const Request& req, std::string_view body) {
  switch (req.expect) {
    case Expect::kNothing:
      return {};
    case Expect::kItem:
      return body.find("\"Item\"") == std::string_view::npos ? "ItemMissing" : std::string_view{};
    case Expect::kCount:
      return JsonIntField(body, "Count") == req.expect_count ? std::string_view{} : "WrongCount";
    case Expect::kNoUnprocessed: {
      auto k = body.find("\"UnprocessedItems\"");
      if (k == std::string_view::npos) return {};
      size_t i = k + 18;
      while (i < body.size() && (body[i] == ' ' || body[i] == ':')) ++i;
      if (i < body.size() && body[i] == '{') ++i;
      while (i < body.size() && body[i] == ' ') ++i;
      return (i < body.size() && body[i] == '}') ? std::string_view{} : "UnprocessedItems";
    }
  }
  return {};
}

namespace {

std::string DescribeBody(const Settings& s) { return "{\"TableName\":\"" + s.table + "\"}"; }

// Returns the table status, or "" if the table does not exist.
std::string Describe(BlockingClient& c, const Settings& s, bool check_schema) {
  std::string out;
  int st = c.Call("DescribeTable", DescribeBody(s), out);
  if (st == 400 && ErrorType(st, out) == "ResourceNotFoundException") return "";
  if (st == 0) throw std::runtime_error("cannot reach the endpoint: " + out);
  if (st != 200) throw std::runtime_error("DescribeTable: " + std::to_string(st) + " " + out);
  rapidjson::Document d;
  d.Parse(out.data(), out.size());
  if (d.HasParseError() || !d.IsObject() || !d.HasMember("Table"))
    throw std::runtime_error("DescribeTable: unexpected body " + out);
  const auto& t = d["Table"];
  if (check_schema && t.HasMember("KeySchema")) {
    bool hash_ok = false, has_range = false, range_ok = false;
    for (const auto& k : t["KeySchema"].GetArray()) {
      std::string name = k["AttributeName"].GetString(), type = k["KeyType"].GetString();
      if (type == "HASH") hash_ok = name == "pk";
      if (type == "RANGE") { has_range = true; range_ok = name == "sk"; }
    }
    if (!hash_ok || has_range != s.range_key || (has_range && !range_ok))
      throw std::runtime_error("table " + s.table + " exists with another key schema; this workload "
                               "needs pk (HASH)" + std::string(s.range_key ? " + sk (RANGE)" : "") +
                               ": pick another --table");
  }
  return t.HasMember("TableStatus") ? t["TableStatus"].GetString() : "ACTIVE";
}

}  // namespace

bool EnsureTable(BlockingClient& c, const Settings& s, bool verbose) {
  std::string status = Describe(c, s, true);
  bool created = false;
  if (status.empty()) {
    std::string attrs = "[{\"AttributeName\":\"pk\",\"AttributeType\":\"S\"}";
    std::string schema = "[{\"AttributeName\":\"pk\",\"KeyType\":\"HASH\"}";
    if (s.range_key) {
      attrs += ",{\"AttributeName\":\"sk\",\"AttributeType\":\"S\"}";
      schema += ",{\"AttributeName\":\"sk\",\"KeyType\":\"RANGE\"}";
    }
    attrs += "]";
    schema += "]";
    std::string base = "{\"TableName\":\"" + s.table + "\",\"AttributeDefinitions\":" + attrs +
                       ",\"KeySchema\":" + schema;
    std::string out;
    int st = c.Call("CreateTable", base + ",\"BillingMode\":\"PAY_PER_REQUEST\"}", out);
    if (st == 400 && ErrorType(st, out) == "ValidationException")  // servers without on-demand
      st = c.Call("CreateTable",
                  base + ",\"ProvisionedThroughput\":{\"ReadCapacityUnits\":1000,"
                         "\"WriteCapacityUnits\":1000}}",
                  out);
    if (st != 200 && !(st == 400 && ErrorType(st, out) == "ResourceInUseException"))
      throw std::runtime_error("CreateTable: " + std::to_string(st) + " " + out);
    created = st == 200;
  }
  // dynalite keeps new tables CREATING for 500 ms by default.
  for (int i = 0; i < 300 && status != "ACTIVE"; ++i) {
    if (i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    status = Describe(c, s, false);
  }
  if (status != "ACTIVE") throw std::runtime_error("table " + s.table + " never became ACTIVE");
  if (created) {
    std::string out;
    int st = c.Call("UpdateTimeToLive",
                    "{\"TableName\":\"" + s.table +
                        "\",\"TimeToLiveSpecification\":{\"Enabled\":true,\"AttributeName\":\"ttl\"}}",
                    out);
    if (st != 200 && verbose)
      std::fprintf(stderr, "note: UpdateTimeToLive not supported here (%s); items keep their ttl "
                           "attribute anyway\n", ErrorType(st, out).c_str());
  }
  return created;
}

bool LooksLoaded(BlockingClient& c, const Settings& s) {
  std::string body = "{\"TableName\":\"" + s.table + "\",\"Key\":{";
  uint64_t last = s.range_key ? Partitions(s) * 10 - 1 : s.keys - 1;
  if (s.range_key) AppendRangeKey(body, last / 10, last % 10);
  else AppendHashKey(body, last);
  body += "}}";
  std::string out;
  int st = c.Call("GetItem", body, out);
  return st == 200 && out.find("\"Item\"") != std::string::npos;
}

}  // namespace loadgen
