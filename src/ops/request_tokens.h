// ClientRequestToken idempotency of TransactWriteItems and ExecuteTransaction, kept in the
// database with the transaction's own writes: the `tokens` family (persisted; docs/formats.md).
//
//   "t" . token                           -> 0x01 . expires_ms (8 bytes BE) . the request's hash
//   "x" . expires_ms (8 bytes BE) . token -> empty: the trimmer's index, oldest first
//
// A transaction carrying a token reads the token's record in the same read-modify-write as its
// items (ops::TransactWrite): a live record of the same request means it was applied already
// (by this process, another one on the same database, or before a restart) and nothing is
// written again; a live record of another request is IdempotentParameterMismatchException;
// otherwise the transaction's batch writes the record with its items, so a crash keeps both or
// neither. A record lives 10 minutes from the commit (the API reference: "valid for 10 minutes
// after the first request that uses it is completed"); TokenTrimmer removes it afterwards.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/clock.h"
#include "common/periodic_thread.h"
#include "common/result.h"
#include "storage/lease_keeper.h"
#include "storage/store.h"

namespace ttlstore::ops {

inline constexpr int64_t kTokenLifetimeMs = 10 * 60 * 1000;

struct TokenRecord {
  int64_t expires_ms = 0;
  std::string request_hash;
};
std::string EncodeTokenRecord(const TokenRecord& record);
std::optional<TokenRecord> DecodeTokenRecord(std::string_view value);
std::string TokenKey(std::string_view token);
std::string TokenExpiryKey(int64_t expires_ms, std::string_view token);

// A transaction's token: what TransactWrite checks and records.
struct TokenUse {
  std::string token;
  std::string request_hash;  // RequestHash of the request's fingerprint
  int64_t now_ms = 0;        // the request's time
};
std::string RequestHash(std::string_view fingerprint);

// What the token's record (as read in the transaction) says of `use`: false when the transaction
// is new (no record, or one past its time), true when it repeats the same request;
// IdempotentParameterMismatchException for another request.
Result<bool> IsRepeat(const std::optional<std::string>& read, const TokenUse& use);
// Adds the token's record (and its index entry) to the transaction's batch, replacing `read`
// (an expired record, whose index entry goes).
void RecordToken(storage::WriteBatch& batch, const TokenUse& use,
                 const std::optional<std::string>& read);

// Removes token records past their time: a pass reads the index from its start to now and
// deletes each record still expired (a read-modify-write of up to kTrimGroup tokens; a token
// used again meanwhile has a new time and stays). Passes every `interval_ms`; with a `keeper`,
// only in the process holding kTokenTrimLeaseUnit.
inline const std::string kTokenTrimLeaseUnit = "tokens/trim";

class TokenTrimmer {
 public:
  static constexpr size_t kTrimGroup = 128;
  TokenTrimmer(storage::Store& store, const Clock& clock, int64_t interval_ms,
               const storage::LeaseKeeper* keeper = nullptr)
      : store_(store), clock_(clock), interval_ms_(interval_ms), keeper_(keeper) {}
  ~TokenTrimmer() { Stop(); }

  // One pass at `now_ms`; returns the records removed.
  Result<uint64_t> TrimOnce(int64_t now_ms);
  void Start();
  void Stop() { thread_.Stop(); }
  uint64_t trimmed() const { return trimmed_.load(); }

 private:
  storage::Store& store_;
  const Clock& clock_;
  const int64_t interval_ms_;
  const storage::LeaseKeeper* keeper_;
  std::atomic<uint64_t> trimmed_{0};
  PeriodicThread thread_;
};

}  // namespace ttlstore::ops
