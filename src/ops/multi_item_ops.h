// Writes and reads that span several items: BatchWriteItem, TransactWriteItems and
// TransactGetItems. The writes are one storage read-modify-write of every key involved
// (storage::Store::ReadModifyWrite): read the old items, decide, and commit one WriteBatch: a
// transaction is all-or-nothing, and so, in ttlstore, is a batch write. TransactGetItems reads
// every item from one view of the store.
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/result.h"
#include "expr/condition.h"
#include "expr/update.h"
#include "ops/request_tokens.h"
#include "ops/item_ops.h"
#include "ops/capacity.h"
#include "ops/table_ops.h"

namespace ttlstore::ops {

struct BatchWrite {
  TablePtr table;
  bool is_put = true;
  model::Item item;  // the item for a put, the key for a delete (validated)
};

// What each write of a batch or transaction cost in each index it wrote (ops/capacity.h), one
// entry per write or action, in their order.
using IndexCosts = std::vector<std::vector<IndexCapacity>>;

// REQUIRES: no two writes name the same item. With `index_costs`, also says what each write
// cost its table's indexes.
Status WriteBatchItems(ItemOps& ops, const std::vector<BatchWrite>& writes,
                       IndexCosts* index_costs = nullptr);

struct TransactAction {
  enum class Kind { kPut, kUpdate, kDelete, kConditionCheck };
  Kind kind = Kind::kPut;
  TablePtr table;
  model::Item item;  // the item for kPut, the key otherwise (validated)
  std::optional<expr::Condition> condition;
  std::optional<expr::Update> update;  // kUpdate only (may be empty: create the item)
  bool return_old_on_failure = false;  // ReturnValuesOnConditionCheckFailure = ALL_OLD
};

struct CancellationReason {
  std::string code;     // "None", "ConditionalCheckFailed", "ValidationError"
  std::string message;  // empty for "None"
  std::optional<model::Item> item;  // the old item, when asked for and the condition failed
};

struct TransactOutcome {
  bool cancelled = false;
  std::vector<CancellationReason> reasons;  // one per action when cancelled
  // The token's record says this request was applied already (ops/request_tokens.h): nothing
  // was written; `sizes` are the actions' items as read (for the repeat's read capacity).
  bool repeated = false;
  std::vector<size_t> sizes;
};

// REQUIRES: no two actions name the same item. With `index_costs`, also says what each action
// of a committed transaction cost its table's indexes (nothing for a cancelled one). With
// `token`, the token's record is read with the items and written with them
// (ops/request_tokens.h): a repeat writes nothing; a mismatch is an error.
Result<TransactOutcome> TransactWrite(ItemOps& ops, const std::vector<TransactAction>& actions,
                                      IndexCosts* index_costs = nullptr,
                                      const TokenUse* token = nullptr);

struct TransactGet {
  TablePtr table;
  model::Item key;
};

// Reads every item from one view of the store, so no transaction shows halfway through.
Result<std::vector<ReadOutcome>> TransactRead(ItemOps& ops, const std::vector<TransactGet>& gets);

// ClientRequestToken idempotency within this process: a token seen in the last 10 minutes with
// the same request returns the first response again; with a different request it is an error.
// A token is reserved before its transaction runs, so two concurrent requests carrying it
// cannot both apply it: the second gets TransactionInProgressException. What holds across
// processes and restarts is the token's record in the database, read and written by the
// transaction itself (ops/request_tokens.h).
class IdempotencyCache {
 public:
  // Tokens are remembered this long (DynamoDB: 10 minutes).
  static constexpr int64_t kTtlMs = 10 * 60 * 1000;

  explicit IdempotencyCache(const Clock& clock) : clock_(clock) {}

  // The cached response for (token, request); or nullopt, having reserved the token for the
  // caller, who must then Complete or Abandon it (see TokenGuard). Errors:
  // IdempotentParameterMismatchException (same token, other request) and
  // TransactionInProgressException (the token's first request is still running).
  Result<std::optional<std::string>> Begin(const std::string& token, const std::string& request);
  // The reserved request succeeded: answer `response` to its repeats for the next 10 minutes.
  void Complete(const std::string& token, std::string response);
  // The reserved request failed: forget the token (a retry runs again).
  void Abandon(const std::string& token);

 private:
  struct Entry {
    std::string request;
    std::string response;
    int64_t expires_ms;
    bool done;  // false while the reserving request runs
  };
  // Drops entries whose time is up. REQUIRES: mu_ held.
  void Expire(int64_t now_ms);

  const Clock& clock_;
  std::mutex mu_;
  std::map<std::string, Entry> entries_;  // GUARDED_BY(mu_)
  // (expiry, token) in insertion order, which is expiry order since the TTL is fixed.
  std::deque<std::pair<int64_t, std::string>> by_expiry_;  // GUARDED_BY(mu_)
};

// Holds a token reserved by IdempotencyCache::Begin; abandons it on destruction unless
// Complete was called.
class TokenGuard {
 public:
  TokenGuard(IdempotencyCache& cache, std::string token)
      : cache_(cache), token_(std::move(token)) {}
  ~TokenGuard() {
    if (!completed_) cache_.Abandon(token_);
  }
  TokenGuard(const TokenGuard&) = delete;
  TokenGuard& operator=(const TokenGuard&) = delete;
  void Complete(std::string response) {
    cache_.Complete(token_, std::move(response));
    completed_ = true;
  }

 private:
  IdempotencyCache& cache_;
  std::string token_;
  bool completed_ = false;
};

}  // namespace ttlstore::ops
