// PgStore's read-modify-write (docs/storage.md, "Read-modify-write"), and how concurrent ones
// share a transaction.
//
// One read-modify-write is one READ COMMITTED transaction. First the keys' rows are read FOR
// UPDATE: a key that holds something is locked by its row. A key that holds nothing has no row
// to lock, so (second round trip, only then) a row of ttlstore_rmw_locks is upserted for it,
// whose lock a second writer of the key waits for, and the key is read again, FOR UPDATE, in a
// new statement that sees every commit made before that lock was granted (a row created
// meanwhile is locked too). The commit deletes the lock rows: the table is empty at rest.
//
// Groups. Most of a small read-modify-write's cost in the database is not its statements but
// their round trips (a put: ~120 µs of statements, as much again of messages and wake-ups; and
// as much on ttlstore's side). So read-modify-writes that arrive while kMaxGroupsInFlight
// transactions are already in the database wait, and then go together, as one transaction, as
// many as hold no key in common (at most kKeysPerStatement keys, unless one alone has more): a
// thread that finds room leads the next group. The leader reads every member's keys for update
// in one round trip and hands each member its reads; each member runs its own function on its
// own thread, on its own batch; the leader merges the batches' writes into one sink
// (PgSink::Absorb: many rows per statement) and commits them with one COMMIT. Each member's
// keys are locked from before its reads until the commit, as when it ran alone, so the
// interface's promise holds per member. A member whose function fails (or writes nothing) drops
// out; a commit that fails fails every writing member alike (a serialization failure or
// deadlock: each starts over on its own, Store::RetryConflicts).
//
// A large read-modify-write (more than kKeysPerStatement / 4 keys: a TTL sweeper batch, a
// BatchWriteItem with conditions on many items) runs in a transaction of its own, outside the
// slots and never in a group: it gains nothing from sharing round trips, and in a slot it would
// keep small foreground writes waiting behind it for its whole run.
#include "storage/pg_store.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>
#include <set>

#include "storage/backend.h"
#include "storage/pg_schema.h"
#include "storage/pg_sink.h"

namespace ttlstore::storage {
namespace {

using Space = Store::Space;

std::string Table(Space space) { return PgTableOf(space); }
constexpr size_t kKeysPerStatement = PgStore::kKeysPerStatement;

// Appends to `out` the statements reading `tagged` (space byte . key, sorted) FOR UPDATE as
// (k, v) rows, and to `spaces` the key space of each: the keys no longer than a head of one
// space by `h = ANY($1) AND d = ''` (one prepared statement, one index scan), kKeysPerStatement
// at a time (one such key by `h = $1`); a longer key by itself.
void AddLockingReads(const std::vector<std::string>& tagged, std::vector<PgStatement>* out,
                     std::vector<Space>* spaces) {
  std::vector<std::string> run;
  Space run_space = Space::kItems;
  auto close_run = [&] {
    if (run.empty()) return;
    out->push_back(PgPointRead(run_space, run, " FOR UPDATE"));
    spaces->push_back(run_space);
    run.clear();
  };
  for (const std::string& t : tagged) {
    Space space = static_cast<Space>(t[0]);
    std::string_view key = std::string_view(t).substr(1);
    if (key.size() > kPgKeyHeadBytes) {
      out->push_back({"SELECT k, v FROM " + Table(space) +
                          " WHERE h = $1::bytea AND d = $2::bytea FOR UPDATE",
                      {PgKeyHead(key), PgKeyDigest(key)}, /*prepared=*/true});
      spaces->push_back(space);
      continue;
    }
    if (!run.empty() && (space != run_space || run.size() == kKeysPerStatement)) close_run();
    run_space = space;
    run.emplace_back(key);
  }
  close_run();
}

// Members at most in one group.
constexpr size_t kMaxGroupMembers = 64;
// A read-modify-write of more keys runs alone, outside the slots.
constexpr size_t kAloneAboveKeys = kKeysPerStatement / 4;

}  // namespace

struct PgStore::RmwRequest {
  enum class Phase { kQueued, kReading, kRead, kWritten, kDone };
  // Each waits on its own condition, told only of what concerns it (a condition shared by all
  // woke every waiting thread at each step: its wake-ups cost more than the round trips saved).
  std::condition_variable cv;
  RmwRequest* leader = nullptr;  // of its group, while it runs its function
  size_t unwritten = 0;          // a leader's: members still running their functions
  const std::vector<RmwKey>* keys = nullptr;
  std::vector<std::string> tagged;  // space byte . key, sorted, unique
  std::vector<std::string> usually_absent;  // those of `tagged` hinted RmwKey::usually_absent
  Phase phase = Phase::kQueued;
  RmwReads reads;
  Status status = Status::Ok();
  bool conflict = false;
  std::optional<WriteBatch> batch;  // this member's, while it has one to write
  bool committed = false;
  bool unknown = false;  // the commit's outcome is unknown
};

void PgStore::RunMember(RmwRequest& r, const RmwFunction& fn) {
  r.batch.emplace(*this);
  Status s = RunRmwFunction(fn, r.reads, *r.batch, &r.conflict);
  if (!s.ok()) {
    r.status = std::move(s);
    r.batch.reset();  // resolved kNotCommitted, on this member's thread
  }
}

Status PgStore::AttemptReadModifyWrite(const std::vector<RmwKey>& keys, const RmwFunction& fn,
                                       bool* conflict) {
  RmwRequest me;
  me.keys = &keys;
  me.tagged.reserve(keys.size());
  for (const RmwKey& k : keys) {
    Space space = k.family ? SpaceOf(*k.family) : Space::kItems;
    me.tagged.push_back(std::string(1, static_cast<char>(space)) + k.key);
    if (k.usually_absent) me.usually_absent.push_back(me.tagged.back());
  }
  std::sort(me.tagged.begin(), me.tagged.end());  // one locking order for everyone
  me.tagged.erase(std::unique(me.tagged.begin(), me.tagged.end()), me.tagged.end());

  std::unique_lock lock(rmw_mu_);
  if (me.tagged.size() > kAloneAboveKeys) {
    LeadRmwGroup(lock, &me, fn, /*alone=*/true);
  } else {
    rmw_queue_.push_back(&me);
  }
  while (me.phase != RmwRequest::Phase::kDone) {
    if (me.phase == RmwRequest::Phase::kQueued && rmw_in_flight_ < kMaxGroupsInFlight) {
      LeadRmwGroup(lock, &me, fn, /*alone=*/false);  // a group with this request in it
    } else if (me.phase == RmwRequest::Phase::kRead) {
      lock.unlock();
      RunMember(me, fn);
      lock.lock();
      me.phase = RmwRequest::Phase::kWritten;
      if (--me.leader->unwritten == 0) me.leader->cv.notify_one();
    } else {
      me.cv.wait(lock);
    }
  }
  lock.unlock();
  if (me.committed) {
    Committed(*me.batch);
    return Status::Ok();
  }
  if (me.unknown && me.batch) CommitOutcomeUnknown(*me.batch);
  *conflict = me.conflict;
  return std::move(me.status);
}

void PgStore::LeadRmwGroup(std::unique_lock<std::mutex>& lock, RmwRequest* me,
                           const RmwFunction& fn, bool alone) {
  using Phase = RmwRequest::Phase;
  // The group: the leader's own request first (a leader is never another group's member:
  // two leaders each waiting for the other's function would wait forever), then the waiting
  // requests in arrival order, skipping one that shares a key with an earlier pick (it waits
  // for a later group, and stays ahead of the requests behind it).
  std::vector<RmwRequest*> group;
  std::set<std::string_view> taken;
  if (alone) {
    taken.insert(me->tagged.begin(), me->tagged.end());
    me->phase = Phase::kReading;
    group.push_back(me);
  } else {
    rmw_queue_.erase(std::find(rmw_queue_.begin(), rmw_queue_.end(), me));
    rmw_queue_.push_front(me);
  }
  for (auto it = rmw_queue_.begin();
       !alone && it != rmw_queue_.end() && group.size() < kMaxGroupMembers;) {
    RmwRequest* r = *it;
    bool fits = group.empty() || taken.size() + r->tagged.size() <= kKeysPerStatement;
    for (size_t i = 0; fits && i < r->tagged.size(); ++i) fits = !taken.count(r->tagged[i]);
    if (!fits) {
      ++it;
      continue;
    }
    taken.insert(r->tagged.begin(), r->tagged.end());
    r->phase = Phase::kReading;
    group.push_back(r);
    it = rmw_queue_.erase(it);
  }
  if (!alone) ++rmw_in_flight_;
  const std::vector<std::string> tagged(taken.begin(), taken.end());
  std::set<std::string> pre_locked;  // usually absent: their lock rows taken before the reads
  for (RmwRequest* r : group) pre_locked.insert(r->usually_absent.begin(), r->usually_absent.end());
  lock.unlock();

  // Ends the group: every member done, the slot free for the first request waiting.
  auto finish = [&] {
    lock.lock();
    for (RmwRequest* r : group) {
      r->phase = Phase::kDone;
      if (r != me) r->cv.notify_one();
    }
    if (alone) return;
    --rmw_in_flight_;
    if (!rmw_queue_.empty()) rmw_queue_.front()->cv.notify_one();
  };
  auto fail_all = [&](const Status& status, bool conflict) {
    for (RmwRequest* r : group) {
      r->status = status;
      r->conflict = conflict;
    }
    finish();
  };

  PgError error;
  auto lease = pool_->Acquire(&error);
  if (!lease) return fail_all(PgStoreError(error, "no connection"), false);
  std::map<std::string, std::string, std::less<>> found;  // space byte . key -> value
  // Runs `statements` (the locking reads of `of` after them) and takes in the rows read.
  auto read_for_update = [&](std::vector<PgStatement> statements,
                             const std::vector<std::string>& of) -> bool {
    const size_t first_read = statements.size();
    std::vector<Space> spaces;  // of each read statement
    AddLockingReads(of, &statements, &spaces);
    std::vector<PgRows> results;
    if (!(*lease)->Run(statements, nullptr, &results, &error)) return false;
    for (size_t i = 0; i < spaces.size(); ++i) {
      for (auto& row : results[first_read + i].rows) {
        found[std::string(1, static_cast<char>(spaces[i])) + row[0].value_or("")] =
            std::move(row[1]).value_or("");
      }
    }
    return true;
  };
  // The lock rows of absent keys (ttlstore_rmw_locks), upserted for `of`.
  auto lock_rows = [](const std::vector<std::string>& of, PgStatement* out,
                      std::vector<std::optional<std::string>>* params) {
    std::vector<std::string> heads, digests;
    for (const std::string& t : of) {
      heads.push_back(PgKeyHead(t));
      digests.push_back(PgKeyDigest(t));
    }
    *out = {"INSERT INTO ttlstore_rmw_locks (h, d, n) SELECT h, d, 0 FROM "
            "unnest($1::bytea[], $2::bytea[]) AS l (h, d) ON CONFLICT (h, d) DO UPDATE "
            "SET n = ttlstore_rmw_locks.n + 1",
            {PgByteaArray(heads), PgByteaArray(digests)}, /*prepared=*/true};
    *params = out->params;
  };
  std::vector<PgStatement> first{{"BEGIN ISOLATION LEVEL READ COMMITTED", {}}};
  std::vector<std::string> locked_rows(pre_locked.begin(), pre_locked.end());
  if (!locked_rows.empty()) {
    // Before the reads, in the same round trip: each read is a statement of its own, so it
    // sees every commit made before its key's lock row was granted, as below.
    std::vector<std::optional<std::string>> unused;
    lock_rows(locked_rows, &first.emplace_back(), &unused);
  }
  if (!read_for_update(std::move(first), tagged)) {
    return fail_all(PgStoreError(error, "read for update failed"),
                    error.kind == PgFailure::kRetry);
  }
  std::vector<std::string> absent;
  for (const std::string& t : tagged) {
    if (!found.count(t) && !pre_locked.count(t)) absent.push_back(t);
  }
  if (!absent.empty()) {
    std::vector<PgStatement> locks(1);
    std::vector<std::optional<std::string>> unused;
    lock_rows(absent, &locks[0], &unused);
    if (!read_for_update(std::move(locks), absent)) {
      return fail_all(PgStoreError(error, "read for update failed"),
                      error.kind == PgFailure::kRetry);
    }
  }
  // The lock rows this transaction took, deleted by its commit.
  locked_rows.insert(locked_rows.end(), absent.begin(), absent.end());
  std::vector<std::optional<std::string>> lock_params;
  if (!locked_rows.empty()) {
    PgStatement unused;
    lock_rows(locked_rows, &unused, &lock_params);
  }

  // Each member's reads; then each runs its function (this thread runs its own).
  lock.lock();
  for (RmwRequest* r : group) {
    r->reads.assign(r->keys->size(), std::nullopt);
    for (size_t i = 0; i < r->keys->size(); ++i) {
      const RmwKey& k = (*r->keys)[i];
      Space space = k.family ? SpaceOf(*k.family) : Space::kItems;
      auto it = found.find(std::string(1, static_cast<char>(space)) + k.key);
      if (it != found.end()) r->reads[i] = it->second;
    }
    r->phase = Phase::kRead;
    r->leader = me;
    if (r != me) {
      ++me->unwritten;
      r->cv.notify_one();
    }
  }
  lock.unlock();
  RunMember(*me, fn);  // the leader's own request is in its group
  lock.lock();
  me->phase = Phase::kWritten;
  me->cv.wait(lock, [&] { return me->unwritten == 0; });
  lock.unlock();

  // One transaction's writes: the members' sinks merged (a sink that cannot be merged goes
  // after, whole).
  PgSink merged;
  std::vector<PgStatement> apart;
  std::vector<RmwRequest*> writers;
  std::vector<BatchSink::Sequenced> sequenced;  // every member's, members in group order
  for (RmwRequest* r : group) {
    if (!r->batch) continue;
    auto& sink = static_cast<PgSink&>(SinkOf(*r->batch));
    if (sink.Empty()) continue;  // nothing to write: its locks go with the rollback or commit
    writers.push_back(r);
    for (auto& s : sink.sequenced()) sequenced.push_back(std::move(s));
    sink.sequenced().clear();
    if (!merged.Absorb(sink)) {
      for (auto& s : sink.Finish()) apart.push_back(std::move(s));
    }
  }
  std::vector<PgStatement> second = merged.Finish();
  for (auto& s : apart) second.push_back(std::move(s));
  if (second.empty() && sequenced.empty()) {
    (*lease)->Exec({"ROLLBACK", {}}, nullptr, &error);  // nothing to write: releases the locks
    return finish();
  }
  // The members' sequenced writes: their heads are locked last, once every member has decided
  // (a head is held for the commit's round trip only), and resolved in one run.
  bool ok = sequenced.empty() || ResolveSequencedHeads(**lease, {}, sequenced, &second, &error);
  if (!locked_rows.empty()) {
    second.push_back({"DELETE FROM ttlstore_rmw_locks WHERE (h, d) IN (SELECT h, d FROM "
                      "unnest($1::bytea[], $2::bytea[]) AS l (h, d))",
                      std::move(lock_params), /*prepared=*/true});
  }
  second.push_back({"COMMIT", {}});
  ok = ok && (*lease)->Run(second, nullptr, nullptr, &error);
  if (!ok) spdlog::warn("event=storage_write_failed message=\"{}\"", error.message);
  if (ok && group.size() > 1) shared_transactions_ += group.size();
  for (RmwRequest* r : writers) {
    if (ok) {
      r->committed = true;
      continue;
    }
    r->status = PgStoreError(error, "read-modify-write failed");
    r->conflict = error.kind == PgFailure::kRetry;
    r->unknown = error.kind == PgFailure::kUnavailable;
  }
  finish();
}

}  // namespace ttlstore::storage
