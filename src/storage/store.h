// Store: the server's only handle on its storage engine. It owns the key spaces ("column
// families"), turns the engine's errors into our Error at this boundary, and offers atomic
// WriteBatches that every feature (expiry index, secondary indexes, stream records) joins, so
// that an item and all its companions are committed together or not at all.
//
// Store is an interface: the embedded RocksDB backend (storage/rocks_store.h) is the default;
// nothing above storage/ knows which backend it talks to (docs/storage.md).
//
// Column families (byte layouts in docs/formats.md):
//   default  meta records (the next table id)
//   catalog  table name -> TableDescriptor
//   items    item key (storage/key_codec.h) -> encoded item (storage/item_codec.h)
//   stats    table id -> (item count, size in bytes), maintained by a merge operator in the
//            same batch as each item write, so counts survive crashes without a rescan.
//   expiry   due time (ms, 8 bytes BE) . item key -> empty: the items of TTL-enabled tables in
//            the order they expire, so the sweeper reads only what is due (storage/expiry_key.h).
//   indexes  secondary-index entries (src/index owns the layout)
//   streams  stream records and stream metadata (src/streams owns the layout)
//   rows     the versioned rows of Tablestore-model tables (src/versions owns the layout)
//   purge    the purge index: which rows can hold versions their table's options hide
//            (versions/purge_index.h), written in the same batch as each row
//   pitr     the point-in-time-recovery change log of tables with PITR enabled: each write's
//            old image, dated, in the same batch as the write (storage/pitr_log.h)
//   search   the change queue of tables with search indexes: the row keys written, in the
//            same batch as the row (storage/search_queue.h), consumed by search/
//   sequences  the last value issued per partition key of each Tablestore table with an
//            AUTO_INCREMENT column, written in the same batch as the row that took it
//            (versions/auto_increment.h)
//
// Thread-safety: every method may be called from any thread at once.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "model/table.h"

namespace ttlstore::storage {

struct StoreOptions {
  // Folder holding the RocksDB files. Created if missing.
  std::string path;
  // A PostgreSQL connection string or URI (any form libpq accepts, multi-host lists included):
  // the PostgreSQL backend (storage/pg_store.h) instead of the RocksDB folder `path`.
  std::string storage;
  // false: every write reaches the write-ahead log (the OS page cache) before it is acknowledged,
  //        so a killed process loses nothing; a power loss may lose the last writes.
  // true:  the WAL is also fsynced before acknowledging (survives power loss; slower).
  bool sync = false;
  // LRU block cache shared by all families. Default: 64 MiB.
  size_t block_cache_bytes = 64u << 20;
  // Opens a view of the data dir as it is now, for reading only, even while a server has it
  // open (`ttlstore backup`). Writes fail.
  bool read_only = false;
};

// The storage engine's background work, for /metrics and for benchmarks that wait for a quiet
// store (RocksDB's compactions and flushes; zero for a backend without them).
struct CompactionState {
  uint64_t running = 0;        // compactions in progress
  uint64_t pending_bytes = 0;  // estimated bytes compaction still has to rewrite
  uint64_t running_flushes = 0;
};

struct TableStats {
  int64_t item_count = 0;
  int64_t size_bytes = 0;
};

class Store;
class BatchSink;

// The families whose key layouts belong to a feature outside storage/ (see the list above).
// kCatalog: only as a read-modify-write key (the table's name), for TableCatalog's changes of a
// descriptor; its records are written through WriteBatch::PutTable.
enum class Family : uint8_t {
  kIndexes, kStreams, kRows, kPurge, kPitr, kSearch, kSequences, kLeases, kTokens, kCatalog,
};

// What became of a WriteBatch (WriteBatch::OnOutcome).
enum class BatchOutcome {
  kCommitted,     // written, and visible to every read that starts from now on
  kNotCommitted,  // never written: dropped unwritten, rolled back, or refused
  kUnknown,       // the backend cannot tell (PostgreSQL: the connection died during COMMIT)
};

// What a sequenced write's function (WriteBatch::PutSequenced) decides: the head's new value
// (never empty) and the puts to make in the head's family.
struct SequencedWrite {
  std::string head;
  std::vector<std::pair<std::string, std::string>> puts;  // (key, value)
};
// Called at commit with the head's committed value (nullopt: none yet), the head locked.
using SequenceFunction = std::function<SequencedWrite(const std::optional<std::string>& head)>;

// One atomic write. Build it, then Store::Write it. The writes are handed as they are added to
// the backend's BatchSink (storage/backend.h), which commits them together.
class WriteBatch {
 public:
  explicit WriteBatch(const Store& store);
  ~WriteBatch();
  WriteBatch(const WriteBatch&) = delete;
  WriteBatch& operator=(const WriteBatch&) = delete;

  void PutItem(std::string_view key, std::string_view encoded_item);
  void DeleteItem(std::string_view key);
  // Adds deltas to the table's item count and size. Deltas are summed per table and written as
  // one addition when the batch is committed, so a batch of N writes costs one, not N.
  void AddStats(uint32_t table_id, int64_t items, int64_t bytes);
  // The same for one secondary index of the table (its entry count and size), summed alike.
  void AddIndexStats(uint32_t table_id, uint32_t index_id, int64_t items, int64_t bytes);
  // Removes an index's stats (when the index is deleted).
  void DeleteIndexStats(uint32_t table_id, uint32_t index_id);
  // Adds / removes the expiry-index entry of an item due at `due_ms`. An added entry is announced
  // to the sweeper once the batch has committed (Store::TakeEarliestCommittedExpiry).
  void PutExpiry(int64_t due_ms, std::string_view item_key);
  void DeleteExpiry(int64_t due_ms, std::string_view item_key);
  // Writes to a feature-owned family.
  void Put(Family family, std::string_view key, std::string_view value);
  void Delete(Family family, std::string_view key);
  // Removes every key in [begin, end).
  void DeleteRange(Family family, std::string_view begin, std::string_view end);
  // A write numbered at commit: when the batch commits, `fn` is called with the value of
  // `head_key` (in `family`) as committed, the head locked against every other commit that
  // names it, by this process or any other on the same database, until this one is done; its
  // puts and the head's new value are written with the batch's other writes (after them). So
  // numbers kept in a head rise in commit order, and none is lost or handed out twice, however
  // many processes write (stream sequence numbers, streams/stream_log.h). The sequenced writes
  // of one batch (or of a transaction several share) run in the order added, each seeing the
  // head the one before left. `fn` runs again if the commit is started over, so it decides
  // from `head` only and has no side effect. A head's value is never empty.
  void PutSequenced(Family family, std::string head_key, SequenceFunction fn);
  void PutTable(const model::TableDescriptor& table);
  // The store this batch writes to (for reads that decide what the batch holds).
  const Store& store() const { return store_; }
  // Removes the table's catalog entry, every item, its index entries, its PITR change log and
  // all its stats.
  void DropTable(const model::TableDescriptor& table);
  // Removes every row (and purge-index entry) stored under `rows_id`: a dropped Tablestore
  // secondary index's rows.
  void DropIndexRows(uint32_t rows_id);
  // Calls `fn` once with what became of this batch: after its commit (kCommitted), when its
  // write failed, or when it is destroyed unwritten (kNotCommitted: a read-modify-write attempt
  // that is started over drops its batch), or kUnknown. Called on the writing thread; `fn` must
  // not write. Stream sequence numbers use it to stop holding readers back at once.
  void OnOutcome(std::function<void(BatchOutcome)> fn) { on_outcome_.push_back(std::move(fn)); }

 private:
  friend class Store;
  // Tells the OnOutcome functions (once; later calls do nothing).
  void Resolve(BatchOutcome outcome);
  // Hands the summed stats deltas to the sink. Called by Store::Write.
  void FlushStats();

  const Store& store_;
  std::unique_ptr<BatchSink> sink_;
  std::map<uint32_t, std::pair<int64_t, int64_t>> pending_stats_;  // table id -> (items, bytes)
  // (table id << 32 | index id) -> (entries, bytes)
  std::map<uint64_t, std::pair<int64_t, int64_t>> pending_index_stats_;
  int64_t earliest_expiry_put_ = INT64_MAX;  // the earliest due time PutExpiry added
  std::vector<std::function<void(BatchOutcome)>> on_outcome_;
};

// A key Store::ReadModifyWrite reads for update: an item key (no family) or a key of a
// feature-owned family.
struct RmwKey {
  std::optional<Family> family;  // nullopt: the items family
  std::string key;
  // A hint: the key is almost always absent (a lock record). PostgreSQL then takes the lock
  // row an absent key needs before it reads, in the first round trip, instead of a second one
  // after (docs/storage.md, "Read-modify-write"). Same guarantees either way.
  bool usually_absent = false;
};

// What a read-modify-write function gets: reads[i] is the value stored under keys[i], or
// nullopt when there is none.
using RmwReads = std::vector<std::optional<std::string>>;
// A read-modify-write function (Store::ReadModifyWrite): decides from `reads` what `batch`
// holds. A non-ok Status abandons the write (nothing is committed) and is returned as is.
using RmwFunction = std::function<Status(const RmwReads& reads, WriteBatch& batch)>;

// Iterates one family over a key range, forward or backward. Reads a consistent view (taken
// at creation); never blocks writers. Backends implement it.
class ItemIterator {
 public:
  virtual ~ItemIterator() = default;
  virtual bool Valid() const = 0;
  // Moves one item in the iteration direction. REQUIRES: Valid().
  virtual void Next() = 0;
  virtual std::string_view key() const = 0;
  virtual std::string_view value() const = 0;
  // Not ok if iteration stopped on an I/O error rather than at the end of the range.
  virtual Status status() const = 0;
};

class Store {
 public:
  // Opens (creating if needed) the store `options` name: the PostgreSQL database
  // options.storage when it is set, else the RocksDB folder options.path.
  static Result<std::unique_ptr<Store>> Open(const StoreOptions& options);
  // Closes the engine; every acknowledged write is already durable as options.sync says.
  virtual ~Store();

  // Commits the batch: every write in it, or (on an error) none.
  Status Write(WriteBatch& batch);

  // Read-modify-write, the one way to change a key based on what it holds: reads `keys` for
  // update, calls `fn` with their values and a fresh batch, and commits that batch, so that no
  // other read-modify-write of any of these keys, by this process or any other process on the
  // same database, commits between the reads and the commit. Keys may repeat, mix families, and
  // name keys that hold nothing yet (those serialize too). An empty batch commits nothing.
  //
  // `fn` may run more than once: when the backend reports a serialization failure or deadlock
  // (PostgreSQL's 40001/40P01) everything is rolled back and the whole operation starts over,
  // with fresh reads, up to a few times (then kStorageUnavailable, which clients retry). So `fn`
  // must decide everything from `reads` (and what it reads itself), assign rather than append
  // its outputs, and have no side effect a second run would double. Reads `fn` makes of other
  // keys are plain reads, not serialized. `fn` must not call ReadModifyWrite (no nesting).
  //
  // RocksDB (one process per data dir): striped in-process locks of the keys, held across the
  // reads, `fn` and Write. PostgreSQL: one transaction that locks the keys first
  // (docs/storage.md, "Read-modify-write"). Errors: `fn`'s status, or the storage's.
  Status ReadModifyWrite(const std::vector<RmwKey>& keys, const RmwFunction& fn);

  // Whether other processes may open the same store at once: a database (PostgreSQL) may be
  // shared; a RocksDB folder is locked by the one process that opened it, so a lease another
  // owner left in it is a dead process's (storage/lease_keeper.h).
  virtual bool SharedByProcesses() const { return false; }

  // Attempts of read-modify-write (and of plain batches) started over after a serialization
  // failure or deadlock, since Open (for /metrics and tests).
  uint64_t conflict_retries() const { return conflict_retries_.load(); }
  // Read-modify-writes whose transaction held others' too (PostgreSQL's groups,
  // pg_store_rmw.cc; zero on RocksDB), since Open.
  uint64_t shared_transactions() const { return shared_transactions_.load(); }
  // Tests: the next `n` read-modify-write attempts fail as a serialization failure would, after
  // their `fn` ran and before anything is committed (the retry path, on every backend).
  void InjectConflictsForTest(int n) { injected_conflicts_.store(n); }

  // The earliest due time of the expiry entries committed since the last call (INT64_MAX if
  // none), reset by the call. Write announces a batch's entries only after the batch has
  // committed, so a caller that takes this and then opens an iterator (ScanExpiry) sees every
  // entry it was told about: the TTL sweeper relies on it to never skip an entry written behind
  // the part of the index it has already swept (ttl/sweeper.h).
  int64_t TakeEarliestCommittedExpiry() {
    return earliest_committed_expiry_.exchange(INT64_MAX);
  }

  // Returns the encoded item stored under `key`, or nullopt.
  Result<std::optional<std::string>> GetItem(std::string_view key) const;
  // GetItem for many keys in one round: one view of the store for all of them. Keys may repeat.
  // Out[i] answers keys[i].
  virtual Result<std::vector<std::optional<std::string>>> GetItems(
      const std::vector<std::string>& keys) const = 0;

  // Items with keys in [lower, upper), in key order (or reverse order). With `start_after`, the
  // iteration begins just past that key in the iteration direction (DynamoDB's
  // ExclusiveStartKey), whether or not an item exists under it.
  std::unique_ptr<ItemIterator> ScanItems(std::string lower, std::string upper, bool reverse,
                                          const std::string* start_after) const;
  // Whether the expiry index holds the entry (due_ms, item_key).
  Result<bool> HasExpiry(int64_t due_ms, std::string_view item_key) const;
  // Expiry-index entries due at or before `due_ms`, earliest first (keys per ExpiryKey),
  // starting just after `start_after` when it is not empty. `limit_hint` (0: none): the caller
  // reads at most this many; they are one consistent view, entries past them may be a later
  // one (the TTL sweeper reads a batch at a time, and re-reads the index for every batch).
  std::unique_ptr<ItemIterator> ScanExpiry(int64_t up_to_due_ms,
                                           const std::string& start_after = "",
                                           size_t limit_hint = 0) const;

  // Reads and scans of a feature-owned family (same contracts as GetItem and ScanItems).
  Result<std::optional<std::string>> Get(Family family, std::string_view key) const;
  std::unique_ptr<ItemIterator> ScanFamily(Family family, std::string lower, std::string upper,
                                           bool reverse, const std::string* start_after) const;
  // Every record of `family` whose key starts with `prefix`, in key order: `fn` gets the rest of
  // the key (after the prefix) and the value, and an error from it (or from the scan) stops the
  // walk and is returned.
  Status ForEachUnder(Family family, std::string_view prefix,
                      const std::function<Status(std::string_view rest, std::string_view value)>&
                          fn) const;

  virtual Result<std::vector<model::TableDescriptor>> LoadTables() const = 0;
  // Allocates a table id never used before in this store (persisted at once).
  virtual Result<uint32_t> AllocateTableId() = 0;
  Result<TableStats> GetStats(uint32_t table_id) const;
  // Entry count and size of one secondary index (stats key: table id . index id, 4 bytes BE each).
  Result<TableStats> GetIndexStats(uint32_t table_id, uint32_t index_id) const;
  virtual CompactionState Compactions() const = 0;
  // The next sequence number of a search-queue entry (storage/search_queue.h): larger than
  // every entry the family held at Open and every number handed out since. Unique per store;
  // not the commit order (two writers may commit their entries in either order).
  uint64_t NextSearchQueueSeq() const { return search_queue_seq_.fetch_add(1) + 1; }
  // The largest sequence number handed out so far (or found at Open).
  uint64_t LastSearchQueueSeq() const { return search_queue_seq_.load(); }
  // An estimate of the bytes the items in [lower, upper) take (cheap: no item is read).
  virtual uint64_t ApproximateItemBytes(std::string_view lower, std::string_view upper) const = 0;

  // --- For backends (storage/backend.h): every key space, Store's own included. ---
  enum class Space : uint8_t {
    kMeta, kCatalog, kItems, kStats, kExpiry,
    kIndexes, kStreams, kRows, kPurge, kPitr, kSearch, kSequences, kLeases, kTokens,
  };
  static constexpr size_t kSpaceCount = 14;
  static Space SpaceOf(Family family);

 protected:
  Store() = default;
  // A new, empty sink for one WriteBatch.
  virtual std::unique_ptr<BatchSink> NewSink() const = 0;
  // Commits the sink's writes at once, or none.
  virtual Status Commit(BatchSink& sink) = 0;
  virtual Result<std::optional<std::string>> GetIn(Space space, std::string_view key) const = 0;
  // `limit_hint`: the caller reads at most this many entries (0: unknown). A backend may read
  // them in one round trip; past them the iterator may show a later view of the data.
  virtual std::unique_ptr<ItemIterator> ScanIn(Space space, std::string lower, std::string upper,
                                               bool reverse, const std::string* start_after,
                                               size_t limit_hint) const = 0;
  // The stats under `key` (a table id, or table id . index id): the sum of every addition made
  // to it (BatchSink::AddStats); zero when there is none.
  virtual Result<TableStats> ReadStats(std::string_view key) const = 0;
  // The largest search-queue sequence number stored (seeds NextSearchQueueSeq at Open).
  void SeedSearchQueueSeq(uint64_t largest) { search_queue_seq_.store(largest); }

  // One attempt of ReadModifyWrite: read `keys` for update, run `fn` on a fresh batch
  // (RunRmwFunction), commit the batch (Committed after). Sets *conflict (with everything rolled
  // back) on a serialization failure or deadlock; the caller then starts over.
  virtual Status AttemptReadModifyWrite(const std::vector<RmwKey>& keys, const RmwFunction& fn,
                                        bool* conflict) = 0;
  // Runs `fn` on `batch` for a backend's attempt, then readies the batch's sink for Commit
  // (stats summed in). Sets *conflict when a test injected a conflict.
  Status RunRmwFunction(const RmwFunction& fn, const RmwReads& reads, WriteBatch& batch,
                        bool* conflict);
  static BatchSink& SinkOf(WriteBatch& batch) { return *batch.sink_; }
  // After a backend committed a batch itself: announces its expiry entries and resolves it
  // kCommitted (as Write does).
  void Committed(WriteBatch& batch);
  // A backend whose commit of `batch` failed without knowing whether it applied.
  static void CommitOutcomeUnknown(WriteBatch& batch) { batch.Resolve(BatchOutcome::kUnknown); }
  // Whether a failed Commit may still have applied (its outcome is then unknown).
  virtual bool FailedCommitMayHaveApplied() const = 0;
  // The one retry loop of serialization failures and deadlocks: runs `attempt` until it
  // succeeds, fails, or has set *conflict kMaxConflictAttempts times (then kStorageUnavailable),
  // backing off a little (randomized, growing) between attempts, counting the retries.
  Status RetryConflicts(const std::function<Status(bool* conflict)>& attempt) const;
  static constexpr int kMaxConflictAttempts = 10;

 private:
  friend class WriteBatch;
  // Lowers earliest_committed_expiry_ to `due_ms` if it is earlier.
  void AnnounceExpiry(int64_t due_ms);

  std::atomic<int64_t> earliest_committed_expiry_{INT64_MAX};
  mutable std::atomic<uint64_t> conflict_retries_{0};

 protected:
  std::atomic<uint64_t> shared_transactions_{0};

 private:
  std::atomic<int> injected_conflicts_{0};
  mutable std::atomic<uint64_t> search_queue_seq_{0};  // handed out by a const batch.store()
};

}  // namespace ttlstore::storage
