// What each workload sends and what it expects back, and the table set-up it needs.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "http.h"

namespace loadgen {

enum class Workload { kLoad, kPut, kGet, kMixed, kUpdate, kQuery, kBatchPut, kScan };

bool ParseWorkload(std::string_view name, Workload& out);
const char* WorkloadName(Workload w);
// Query runs on a table with a range key (10 items per partition); the rest on a hash-key table.
inline bool NeedsRangeKey(Workload w) { return w == Workload::kQuery; }

struct Settings {
  std::string table;          // resolved table name
  bool range_key = false;     // table has pk (HASH) + sk (RANGE)
  uint64_t keys = 100000;     // key space: items 0..keys-1 (for query: keys/10 partitions x 10)
  int scan_limit = 100;
  int payload_bytes = 171;    // makes the whole item ≈200 bytes with pk, ttl and attribute names
  int64_t ttl_epoch = 0;      // TTL attribute value: a day ahead, so nothing expires mid-run
};

// Splitmix64: cheap, good enough to spread keys; one per connection so no sharing.
struct Rng {
  uint64_t s;
  uint64_t Next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  uint64_t Below(uint64_t n) { return n ? Next() % n : 0; }
};

// What a response must show for the request to count as a success.
enum class Expect { kNothing, kItem, kCount, kNoUnprocessed };

struct Request {
  const char* op = nullptr;  // "PutItem", ...
  std::string body;
  Expect expect = Expect::kNothing;
  int64_t expect_count = 0;
  bool is_read = false;      // for the mixed workload's split
};

// Fills `req` with the next request of workload `w` (never kLoad).
void NextRequest(Workload w, const Settings& s, Rng& rng, Request& req);

// Fills `req` with the preload batch that writes items [first, first+n) (n <= 25).
void PreloadRequest(const Settings& s, uint64_t first, int n, Rng& rng, Request& req);

// Checks a 200 response against the expectation; returns an error type or "" when fine.
std::string_view CheckResponse(const Request& req, std::string_view body);

// Creates the table if missing (pay-per-request, falling back to provisioned throughput), waits
// until ACTIVE, enables TTL on attribute "ttl" where the server supports it. Throws on mismatch
// (an existing table with another key schema) or failure. Returns true if it created the table.
bool EnsureTable(BlockingClient& c, const Settings& s, bool verbose);

// True when the last item of the key space is present, i.e. an earlier run loaded the table.
bool LooksLoaded(BlockingClient& c, const Settings& s);

}  // namespace loadgen
