#include "ops/multi_item_ops.h"

#include <span>

#include "index/index_writer.h"
#include "model/item_size.h"

namespace ttlstore::ops {
namespace {

using Kind = TransactAction::Kind;

constexpr char kConditionFailed[] = "The conditional request failed";

const model::Item* OldItem(const ReadOutcome& old) { return old.item ? &*old.item : nullptr; }

// The keys of `n` writes, for a read-modify-write of them all, and their decoded reads.
std::vector<storage::RmwKey> RmwKeys(const std::vector<std::string>& keys) {
  std::vector<storage::RmwKey> out;
  out.reserve(keys.size());
  for (const auto& k : keys) out.push_back({std::nullopt, k});
  return out;
}

// `reads`: a read-modify-write's reads, or the first of them (the items').
Result<std::vector<ReadOutcome>> Decoded(std::span<const std::optional<std::string>> reads) {
  std::vector<ReadOutcome> olds;
  olds.reserve(reads.size());
  for (const auto& raw : reads) {
    ASSIGN_OR_RETURN(old, ItemOps::DecodeRead(raw));
    olds.push_back(std::move(old));
  }
  return olds;
}

}  // namespace

Status WriteBatchItems(ItemOps& ops, const std::vector<BatchWrite>& writes,
                       IndexCosts* index_costs) {
  std::vector<std::string> keys;
  for (const auto& w : writes) keys.push_back(EncodedKey(*w.table, w.item));
  return ops.store().ReadModifyWrite(RmwKeys(keys), [&](const storage::RmwReads& reads,
                                                        storage::WriteBatch& batch) -> Status {
    if (index_costs) index_costs->clear();
    ASSIGN_OR_RETURN(olds, Decoded(reads));
    for (size_t i = 0; i < writes.size(); ++i) {
      if (writes[i].is_put) {
        ops.AddPut(batch, *writes[i].table, keys[i], writes[i].item,
                   model::ItemSize(writes[i].item), olds[i]);
      } else {
        ops.AddDelete(batch, *writes[i].table, keys[i], olds[i]);
      }
      if (index_costs) {
        index_costs->push_back(IndexWriteCapacity(*writes[i].table, OldItem(olds[i]),
                                                  writes[i].is_put ? &writes[i].item : nullptr));
      }
    }
    return Status::Ok();
  });
}

Result<TransactOutcome> TransactWrite(ItemOps& ops, const std::vector<TransactAction>& actions,
                                      IndexCosts* index_costs, const TokenUse* token) {
  std::vector<std::string> keys;
  for (const auto& a : actions) keys.push_back(EncodedKey(*a.table, a.item));
  std::vector<storage::RmwKey> rmw_keys = RmwKeys(keys);
  if (token) rmw_keys.push_back({storage::Family::kTokens, TokenKey(token->token)});
  TransactOutcome outcome;
  RETURN_IF_ERROR(ops.store().ReadModifyWrite(rmw_keys, [&](const storage::RmwReads& all_reads,
                                                            storage::WriteBatch& batch)
                                                            -> Status {
  ASSIGN_OR_RETURN(olds, Decoded(std::span(all_reads).first(keys.size())));
  if (index_costs) index_costs->clear();
  // Decide every action before writing anything; one failure cancels them all.
  outcome = TransactOutcome();
  if (token) {
    ASSIGN_OR_RETURN(repeat, IsRepeat(all_reads.back(), *token));
    if (repeat) {
      outcome.repeated = true;
      for (const ReadOutcome& o : olds) outcome.sizes.push_back(o.size);
      return Status::Ok();  // applied before: nothing written
    }
  }
  outcome.reasons.resize(actions.size(), CancellationReason{"None", "", std::nullopt});
  std::vector<std::optional<model::Item>> updated(actions.size());
  for (size_t i = 0; i < actions.size(); ++i) {
    const TransactAction& a = actions[i];
    const model::Item empty;
    const model::Item& old = olds[i].item ? *olds[i].item : empty;
    if (a.condition && !a.condition->Evaluate(old)) {
      outcome.cancelled = true;
      outcome.reasons[i] = {"ConditionalCheckFailed", kConditionFailed, std::nullopt};
      if (a.return_old_on_failure && olds[i].item) outcome.reasons[i].item = olds[i].item;
      continue;
    }
    if (a.kind == Kind::kUpdate) {
      auto item = ItemOps::Updated(a.item, olds[i], a.update ? &*a.update : nullptr);
      // An empty index key value fails the whole request; a wrong-typed one, like a size or
      // type error of the update, only cancels the transaction (index_writer.h).
      if (item) {
        RETURN_IF_ERROR(
            index::CheckIndexKeysNotEmpty(*a.table, *item, index::IndexKeyWrite::kUpdate));
      }
      Status keys_ok = item ? index::CheckIndexKeyTypes(*a.table, *item) : Status::Ok();
      if (!item || !keys_ok) {
        outcome.cancelled = true;
        const Error& e = item ? keys_ok.error() : item.error();
        outcome.reasons[i] = {"ValidationError", e.message(), std::nullopt};
        continue;
      }
      // A removal from a missing item writes nothing (ItemOps::CreatesNothing).
      if (!ItemOps::CreatesNothing(a.item, olds[i], a.update ? &*a.update : nullptr, *item)) {
        updated[i] = std::move(*item);
      }
    }
  }
  if (outcome.cancelled) return Status::Ok();  // nothing written

  for (size_t i = 0; i < actions.size(); ++i) {
    const TransactAction& a = actions[i];
    const model::Item* written = nullptr;  // what the item is afterwards (null: deleted)
    bool writes = true;
    switch (a.kind) {
      case Kind::kPut:
        ops.AddPut(batch, *a.table, keys[i], a.item, model::ItemSize(a.item), olds[i]);
        written = &a.item;
        break;
      case Kind::kUpdate:
        writes = updated[i].has_value();
        if (updated[i]) {
          ops.AddPut(batch, *a.table, keys[i], *updated[i], model::ItemSize(*updated[i]), olds[i]);
          written = &*updated[i];
        }
        break;
      case Kind::kDelete:
        ops.AddDelete(batch, *a.table, keys[i], olds[i]);
        break;
      case Kind::kConditionCheck:
        writes = false;
        break;
    }
    if (index_costs) {
      index_costs->push_back(writes ? IndexWriteCapacity(*a.table, OldItem(olds[i]), written)
                                    : std::vector<IndexCapacity>{});
    }
  }
  if (token) RecordToken(batch, *token, all_reads.back());
  outcome.reasons.clear();
  return Status::Ok();
  }));
  return outcome;
}

Result<std::vector<ReadOutcome>> TransactRead(ItemOps& ops, const std::vector<TransactGet>& gets) {
  std::vector<std::string> keys;
  for (const auto& g : gets) keys.push_back(EncodedKey(*g.table, g.key));
  // One view of the store for every key: a transaction commits in one batch, so none shows
  // halfway.
  ASSIGN_OR_RETURN(raws, ops.store().GetItems(keys));
  return Decoded(raws);
}

Result<std::optional<std::string>> IdempotencyCache::Begin(const std::string& token,
                                                           const std::string& request) {
  std::lock_guard<std::mutex> lock(mu_);
  int64_t now = clock_.NowMs();
  Expire(now);
  auto it = entries_.find(token);
  if (it == entries_.end()) {
    entries_.emplace(token, Entry{request, "", now + kTtlMs, false});
    by_expiry_.emplace_back(now + kTtlMs, token);
    return std::optional<std::string>();
  }
  if (it->second.request != request) {
    return Error(ErrorCode::kIdempotentParameterMismatch,
                 "The request uses the same client token as a previous, but non-identical "
                 "request.");
  }
  if (!it->second.done) {
    return Error(ErrorCode::kTransactionInProgress,
                 "The transaction with the given request token is already in progress.");
  }
  return std::optional<std::string>(it->second.response);
}

void IdempotencyCache::Complete(const std::string& token, std::string response) {
  std::lock_guard<std::mutex> lock(mu_);
  int64_t expires = clock_.NowMs() + kTtlMs;
  Entry& e = entries_[token];
  e.response = std::move(response);
  e.done = true;
  e.expires_ms = expires;
  by_expiry_.emplace_back(expires, token);
}

void IdempotencyCache::Abandon(const std::string& token) {
  std::lock_guard<std::mutex> lock(mu_);
  entries_.erase(token);
}

void IdempotencyCache::Expire(int64_t now_ms) {
  while (!by_expiry_.empty() && by_expiry_.front().first <= now_ms) {
    auto it = entries_.find(by_expiry_.front().second);
    // A token completed later has a later expiry; keep that entry.
    if (it != entries_.end() && it->second.expires_ms <= now_ms) entries_.erase(it);
    by_expiry_.pop_front();
  }
}

}  // namespace ttlstore::ops
