#include "ops/txn_table.h"

#include <algorithm>

#include "ops/txn_errors.h"

namespace ttlstore::ops {

bool WellFormedTxnId(std::string_view id) {
  return id.size() == 32 && std::all_of(id.begin(), id.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

int64_t TxnTable::DeadlineOf(const Txn& txn) const {
  return std::min(txn.started_ms + limits_.lifetime_ms, txn.last_used_ms + limits_.idle_ms);
}

void TxnTable::Drop(const TxnPtr& txn) {
  deadlines_.erase({DeadlineOf(*txn), txn->id});
  by_partition_.erase(txn->partition);
  by_id_.erase(txn->id);
}

size_t TxnTable::Reap(int64_t now_ms) {
  size_t dropped = 0;
  for (auto it = deadlines_.begin(); it != deadlines_.end() && it->first <= now_ms;) {
    auto found = by_id_.find(it->second);
    ++it;  // Drop erases the entry `it` was on
    if (found == by_id_.end() || found->second->busy) continue;
    Drop(found->second);
    ++dropped;
    ++expired_;
  }
  return dropped;
}

Result<TxnPtr> TxnTable::Start(std::string id, uint32_t table_id, std::string table_name,
                               std::string partition, versions::PkCell partition_cell,
                               int64_t now_ms) {
  if (Locked(partition, now_ms)) {
    return TxnError(kRowOperationConflictPrefix, kRowOperationConflictMessage);
  }
  if (by_id_.size() >= limits_.max_open) {
    Reap(now_ms);
    if (by_id_.size() >= limits_.max_open) {
      return Error::LimitExceeded("Too many open transactions: at most " +
                                  std::to_string(limits_.max_open) + ".");
    }
  }
  auto txn = std::make_shared<Txn>();
  txn->id = std::move(id);
  txn->table_id = table_id;
  txn->table_name = std::move(table_name);
  txn->partition = std::move(partition);
  txn->partition_cell = std::move(partition_cell);
  txn->started_ms = now_ms;
  txn->last_used_ms = now_ms;
  by_id_.emplace(txn->id, txn);
  by_partition_.emplace(txn->partition, txn);
  deadlines_.insert({DeadlineOf(*txn), txn->id});
  return txn;
}

Result<TxnPtr> TxnTable::Acquire(std::string_view id, int64_t now_ms) {
  auto it = by_id_.find(std::string(id));
  if (it == by_id_.end()) return TxnError(kSessionNotExistPrefix, kSessionNotExistMessage);
  TxnPtr txn = it->second;
  if (txn->busy) return TxnError(kSessionBusyPrefix, kSessionBusyMessage);
  if (Expired(*txn, now_ms)) {
    Drop(txn);
    ++expired_;
    return TxnError(kSessionNotExistPrefix, kSessionNotExistMessage);
  }
  txn->busy = true;
  return txn;
}

void TxnTable::Release(const TxnPtr& txn, int64_t now_ms) {
  deadlines_.erase({DeadlineOf(*txn), txn->id});
  txn->busy = false;
  txn->last_used_ms = std::max(txn->last_used_ms, now_ms);
  deadlines_.insert({DeadlineOf(*txn), txn->id});
}

void TxnTable::Erase(const TxnPtr& txn) { Drop(txn); }

bool TxnTable::Locked(std::string_view partition, int64_t now_ms) {
  auto it = by_partition_.find(std::string(partition));
  if (it == by_partition_.end()) return false;
  // A held transaction stays until its request ends, even past its deadline.
  if (!it->second->busy && Expired(*it->second, now_ms)) {
    Drop(TxnPtr(it->second));
    ++expired_;
    return false;
  }
  return true;
}

void TxnTable::RemoveOutsideWriter(const std::string& partition) {
  auto it = outside_writers_.find(partition);
  if (it == outside_writers_.end()) return;
  if (--it->second == 0) outside_writers_.erase(it);
}

size_t TxnTable::OutsideWriters(const std::string& partition) const {
  auto it = outside_writers_.find(partition);
  return it == outside_writers_.end() ? 0 : it->second;
}

}  // namespace ttlstore::ops
