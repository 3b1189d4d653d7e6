#include "storage/rocks_store.h"

#include <algorithm>

#include <rocksdb/cache.h>
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/merge_operator.h>
#include <rocksdb/slice_transform.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <optional>

#include <spdlog/spdlog.h>

#include "common/coding.h"
#include "storage/backend.h"
#include "storage/catalog_codec.h"
#include "storage/expiry_key.h"
#include "storage/key_codec.h"
#include "storage/key_locks.h"
#include "storage/rocksdb_logger.h"
#include "storage/search_queue.h"
#include "storage/store_internal.h"

namespace ttlstore::storage {
namespace {

constexpr char kNextTableIdKey[] = "next_table_id";

class StatsAddOperator : public rocksdb::AssociativeMergeOperator {
 public:
  bool Merge(const rocksdb::Slice&, const rocksdb::Slice* existing, const rocksdb::Slice& value,
             std::string* new_value, rocksdb::Logger*) const override {
    TableStats a, b;
    if (existing && !DecodeStats(std::string_view(existing->data(), existing->size()), &a)) {
      return false;
    }
    if (!DecodeStats(std::string_view(value.data(), value.size()), &b)) return false;
    *new_value = EncodeStats(a.item_count + b.item_count, a.size_bytes + b.size_bytes);
    return true;
  }
  const char* Name() const override { return "ttlstore.StatsAdd"; }
};

// Whether every key in [lower, upper) shares its first `n` bytes.
bool WithinOnePrefix(std::string_view lower, std::string_view upper, size_t n) {
  return lower.size() >= n && upper.size() >= n && lower.substr(0, n) == upper.substr(0, n);
}

}  // namespace

Result<std::unique_ptr<Store>> RocksStore::Open(const StoreOptions& options) {
  std::unique_ptr<RocksStore> store(new RocksStore());
  store->options_ = options;

  rocksdb::Options db_options;
  db_options.create_if_missing = true;
  db_options.create_missing_column_families = true;
  db_options.IncreaseParallelism(2);
  db_options.max_background_jobs = 2;
  // The small families (stats above all: one merge per write) rarely fill a memtable, and each
  // keeps alive every WAL file written since its last flush. Past this total RocksDB flushes
  // them, so the WAL, and the replay after a crash, stays bounded (was 538 MB after 2M puts).
  db_options.max_total_wal_size = 256u << 20;
  // Compactions run at the lowest CPU priority (nice 19): on a small machine they would otherwise
  // take a core from request handling and show as latency spikes. Flushes keep the normal
  // priority, so memtables still drain and writes do not stall behind them.
  rocksdb::Env::Default()->LowerThreadPoolCPUPriority(rocksdb::Env::Priority::LOW);
  // The WAL write of one write group overlaps the memtable inserts of the one before it; a batch
  // still becomes visible whole. put 60.7/61.9 -> 59.2/57.7 us CPU/op in an A/B (200k items).
  db_options.enable_pipelined_write = true;
  db_options.info_log = NewRocksDbLogger();

  rocksdb::BlockBasedTableOptions table_options;
  table_options.block_cache = rocksdb::NewLRUCache(options.block_cache_bytes);
  table_options.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  table_options.cache_index_and_filter_blocks = true;
  // Indexes and filters in partitions of ~4 KB, so they live in the block cache (memory stays
  // bounded by it) without being costly to miss. One index block per file was hundreds of KB,
  // compressed: a query on a table bigger than the cache spent most of its time decompressing
  // index blocks that the data blocks had pushed out (snappy 31% of the profile).
  table_options.index_type = rocksdb::BlockBasedTableOptions::kTwoLevelIndexSearch;
  table_options.partition_filters = true;
  table_options.pin_top_level_index_and_filter = true;
  rocksdb::ColumnFamilyOptions cf_options(db_options);
  cf_options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table_options));
  cf_options.level_compaction_dynamic_level_bytes = true;

  // The items get a bloom filter over whole keys in each memtable: a point
  // read (GetItem, and the read before every write) of a key the memtable does not hold skips
  // the skiplist search. Only there (and in `rows`, below): each filter is 1% of the write
  // buffer (0.64 MB, zeroed when the memtable is made, so it counts in an idle server's RSS),
  // which is still 10 bits a key for half a million entries of 100 bytes; the other families
  // are scanned, not point-read. 2% cost 1.4 MB more idle RSS (22.4 -> 20.9 MB).
  rocksdb::ColumnFamilyOptions items_options = cf_options;
  items_options.memtable_prefix_bloom_size_ratio = 0.01;
  items_options.memtable_whole_key_filtering = true;
  // Item keys begin with table id . partition hash (key_codec.h): the filters of each file and
  // memtable also hold these 8-byte prefixes, so a Query, which reads one partition, skips every
  // file and memtable without it for one cached filter probe instead of an index and data block
  // seek in each. That keeps a Query's cost from growing with the number of LSM levels, i.e. with
  // the table (and the data dir) size. Iterators over other ranges read in total order (Scan).
  items_options.prefix_extractor.reset(rocksdb::NewFixedPrefixTransform(kItemPrefixBytes));
  // The same for a Query on a secondary index: its entries begin with table id . index id .
  // hash (index/index_key.h).
  rocksdb::ColumnFamilyOptions indexes_options = cf_options;
  indexes_options.prefix_extractor.reset(rocksdb::NewFixedPrefixTransform(kIndexPrefixBytes));

  rocksdb::ColumnFamilyOptions stats_options = cf_options;
  stats_options.merge_operator = std::make_shared<StatsAddOperator>();
  // Every write batch adds one merge operand to its table's stats key; a read must fold all the
  // operands still in the memtable, so after a bulk load DescribeTable took ~9 ms. Folding them
  // into a value every 64 operands keeps that read to a few operands.
  stats_options.max_successive_merges = 64;

  // Every Tablestore write reads its row first (the purge index is a function of it), and a
  // PutRow of a new row reads a key no memtable holds: the same whole-key memtable filter as
  // the items' makes that miss a filter probe instead of a skiplist search.
  rocksdb::ColumnFamilyOptions rows_options = cf_options;
  rows_options.memtable_prefix_bloom_size_ratio = 0.01;
  rows_options.memtable_whole_key_filtering = true;

  std::vector<rocksdb::ColumnFamilyDescriptor> families = {
      {rocksdb::kDefaultColumnFamilyName, cf_options},
      {"catalog", cf_options},
      {"items", items_options},
      {"stats", stats_options},
      {"expiry", cf_options},
      {"indexes", indexes_options},
      {"streams", cf_options},
      {"rows", rows_options},
      {"purge", cf_options},
      {"pitr", cf_options},
      {"search", cf_options},
      {"sequences", cf_options},
      {"leases", cf_options},
      {"tokens", cf_options},
  };
  rocksdb::DB* db = nullptr;
  rocksdb::Status s;
  if (options.read_only) {
    // Every file is opened up front and kept open: a running server's compactions may delete
    // them, and an open descriptor still reads a deleted file.
    db_options.max_open_files = -1;
    db_options.create_if_missing = false;
    // A data dir last opened by a server older than the purge index has no `purge` family, and
    // a read-only open cannot create it: open without it (read-only users never read it).
    std::vector<std::string> existing;
    // Likewise for the `pitr` family (newer still): the families missing are the last ones.
    if (rocksdb::DB::ListColumnFamilies(rocksdb::DBOptions(db_options), options.path, &existing)
            .ok()) {
      while (families.size() > 1 &&
             std::find(existing.begin(), existing.end(), families.back().name) == existing.end()) {
        families.pop_back();
      }
    }
    s = rocksdb::DB::OpenForReadOnly(rocksdb::DBOptions(db_options), options.path, families,
                                     &store->handles_, &db);
  } else if (!std::filesystem::exists(std::filesystem::path(options.path) / "CURRENT")) {
    // A new data dir: open with the default family, then create the others in one call.
    // Opening with create_missing_column_families creates them one by one, and RocksDB writes,
    // fsyncs and re-parses its OPTIONS file after each: most of a fresh start-up's time.
    s = rocksdb::DB::Open(rocksdb::DBOptions(db_options), options.path, {families[0]},
                          &store->handles_, &db);
    if (s.ok()) {
      std::vector<rocksdb::ColumnFamilyHandle*> created;
      s = db->CreateColumnFamilies({families.begin() + 1, families.end()}, &created);
      store->handles_.insert(store->handles_.end(), created.begin(), created.end());
      if (!s.ok()) {
        for (auto* h : store->handles_) db->DestroyColumnFamilyHandle(h);
        store->handles_.clear();
        delete db;
        db = nullptr;
      }
    }
  } else {
    s = rocksdb::DB::Open(rocksdb::DBOptions(db_options), options.path, families, &store->handles_,
                          &db);
  }
  if (!s.ok()) return Error::Internal("cannot open data dir " + options.path + ": " + s.ToString());
  store->db_.reset(db);
  // The families were opened in Space order; a read-only open of an older data dir may lack the
  // newest ones (their handles stay null: nothing reads them there).
  for (size_t i = 0; i < store->handles_.size() && i < kSpaceCount; ++i) {
    store->handles_by_space_[i] = store->handles_[i];
  }
  if (store->HandleOf(Space::kSearch)) store->SeedSearchQueueSeq(store->LargestSearchQueueSeq());
  return std::unique_ptr<Store>(std::move(store));
}

uint64_t RocksStore::LargestSearchQueueSeq() const {
  // The largest sequence of each table's queue: one seek to the table's last entry, then one
  // to the next table's first, so the cost follows the number of tables, not of entries.
  std::unique_ptr<rocksdb::Iterator> it(
      db_->NewIterator(rocksdb::ReadOptions(), HandleOf(Space::kSearch)));
  uint64_t largest = 0;
  it->SeekToFirst();
  while (it->Valid()) {
    std::string_view k(it->key().data(), it->key().size());
    if (k.size() < 4) break;
    std::string next = PrefixSuccessor(std::string(k.substr(0, 4)));
    it->SeekForPrev(rocksdb::Slice(next.data(), next.size()));
    if (!it->Valid()) break;
    uint32_t table_id;
    uint64_t seq;
    if (DecodeSearchQueueKey({it->key().data(), it->key().size()}, &table_id, &seq)) {
      largest = std::max(largest, seq);
    }
    it->Seek(rocksdb::Slice(next.data(), next.size()));
  }
  return largest;
}

RocksStore::~RocksStore() {
  if (!db_) return;
  if (!options_.read_only) {
    // A clean stop leaves nothing to replay: otherwise the next start re-reads every WAL file
    // still live, hundreds of MB after a bulk load, which took seconds.
    db_->Flush(rocksdb::FlushOptions(), handles_).PermitUncheckedError();
  }
  for (auto* h : handles_) db_->DestroyColumnFamilyHandle(h);
  db_->Close().PermitUncheckedError();
}

Status RocksStore::Convert(const void* status, const char* what) const {
  const auto& s = *static_cast<const rocksdb::Status*>(status);
  if (s.ok()) return Status::Ok();
  return Error::Internal(std::string(what) + ": " + s.ToString());
}

namespace {

// What a client is told when the data dir cannot take a write; nullopt for other failures.
std::optional<std::string> UnavailableReason(const rocksdb::Status& s) {
  if (!s.IsIOError()) return std::nullopt;
  if (s.IsNoSpace() || s.ToString().find("No space left") != std::string::npos) {
    return "Internal server error: the data directory is full (no space left on device); "
           "writes resume once space is freed";
  }
  if (s.ToString().find("Read-only file system") != std::string::npos ||
      s.ToString().find("Permission denied") != std::string::npos) {
    return "Internal server error: the data directory is not writable (read-only file system or "
           "permissions); writes resume once it is";
  }
  return "Internal server error: the data directory failed a write (I/O error); writes resume "
         "once the storage recovers";
}

}  // namespace

// After a failed write RocksDB refuses every write until resumed (it cannot know whether the
// cause is gone). A write that finds it so tries DB::Resume, at most once a second across all
// threads, so writes come back on their own once space is freed or the disk is writable again.
bool RocksStore::TryResume() {
  int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                    std::chrono::steady_clock::now().time_since_epoch()).count();
  int64_t last = last_resume_ms_.load();
  if (now - last < 1000 || !last_resume_ms_.compare_exchange_strong(last, now)) return false;
  rocksdb::Status s = db_->Resume();
  if (s.ok()) {
    spdlog::warn("event=storage_recovered message=\"the data dir takes writes again\"");
    return true;
  }
  return false;
}

namespace {

// One batch's writes, straight into a rocksdb::WriteBatch (no copy of its keys and values).
class RocksSink final : public BatchSink {
 public:
  explicit RocksSink(const RocksStore& store) : store_(store) {}
  void Put(Space space, std::string_view key, std::string_view value) override {
    batch_.Put(store_.HandleOf(space), ToSlice(key), ToSlice(value)).PermitUncheckedError();
  }
  void Delete(Space space, std::string_view key) override {
    batch_.Delete(store_.HandleOf(space), ToSlice(key)).PermitUncheckedError();
  }
  void DeleteRange(Space space, std::string_view begin, std::string_view end) override {
    batch_.DeleteRange(store_.HandleOf(space), ToSlice(begin), ToSlice(end))
        .PermitUncheckedError();
  }
  void AddStats(std::string_view key, int64_t items, int64_t bytes) override {
    batch_.Merge(store_.HandleOf(Space::kStats), ToSlice(key), EncodeStats(items, bytes))
        .PermitUncheckedError();
  }
  rocksdb::WriteBatch* batch() { return &batch_; }

 private:
  const RocksStore& store_;
  rocksdb::WriteBatch batch_;
};

}  // namespace

std::unique_ptr<BatchSink> RocksStore::NewSink() const {
  return std::make_unique<RocksSink>(*this);
}

Status RocksStore::Commit(BatchSink& sink) {
  rocksdb::WriteBatch* batch = static_cast<RocksSink&>(sink).batch();
  std::unique_lock<std::mutex> sequence_lock;
  if (!sink.sequenced().empty()) {
    sequence_lock = std::unique_lock<std::mutex>(sequence_mu_);
    SequenceHeads heads;
    for (const auto& s : sink.sequenced()) {
      if (heads.count({s.space, s.head})) continue;
      ASSIGN_OR_RETURN(value, GetIn(s.space, s.head));
      heads[{s.space, s.head}] = std::move(value);
    }
    ResolveSequenced(sink.sequenced(), heads, sink);
    sink.sequenced().clear();  // in the batch now
  }
  rocksdb::WriteOptions wo;
  wo.sync = options_.sync;
  rocksdb::Status s = db_->Write(wo, batch);
  if (s.IsIOError() && TryResume()) s = db_->Write(wo, batch);
  if (s.ok()) return Status::Ok();
  if (auto reason = UnavailableReason(s)) {
    // Logged once per burst (the resume attempts are rate limited the same way).
    uint64_t n = ++unavailable_writes_;
    if ((n & (n - 1)) == 0) {
      spdlog::error("event=write_refused_storage count={} reason=\"{}\" status=\"{}\"", n, *reason,
                    s.ToString());
    }
    return Error(ErrorCode::kStorageUnavailable, *reason);
  }
  return Convert(&s, "write failed");
}

Result<std::vector<std::optional<std::string>>> RocksStore::GetItems(
    const std::vector<std::string>& keys) const {
  std::vector<std::optional<std::string>> out(keys.size());
  if (keys.empty()) return out;
  std::vector<rocksdb::Slice> slices;
  slices.reserve(keys.size());
  for (const auto& k : keys) slices.push_back(ToSlice(k));
  std::vector<rocksdb::PinnableSlice> values(keys.size());
  std::vector<rocksdb::Status> statuses(keys.size());
  db_->MultiGet(rocksdb::ReadOptions(), HandleOf(Space::kItems), keys.size(), slices.data(),
                values.data(),
                statuses.data(), /*sorted_input=*/false);
  for (size_t i = 0; i < keys.size(); ++i) {
    if (statuses[i].IsNotFound()) continue;
    if (!statuses[i].ok()) return Convert(&statuses[i], "read failed").error();
    out[i].emplace(values[i].data(), values[i].size());
  }
  return out;
}

Result<std::optional<std::string>> RocksStore::GetIn(Space space, std::string_view key) const {
  rocksdb::PinnableSlice value;
  rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), HandleOf(space), ToSlice(key), &value);
  if (s.IsNotFound()) return std::optional<std::string>();
  if (!s.ok()) return Convert(&s, "read failed").error();
  return std::optional<std::string>(value.ToString());
}

Status RocksStore::AttemptReadModifyWrite(const std::vector<RmwKey>& keys, const RmwFunction& fn,
                                          bool* conflict) {
  // One process owns the folder: the key's stripe, held from the reads to the commit, is all
  // the serialization needed (storage/key_locks.h). Never a conflict to retry.
  std::vector<size_t> stripes;
  stripes.reserve(keys.size());
  for (const RmwKey& k : keys) {
    Space space = k.family ? SpaceOf(*k.family) : Space::kItems;
    stripes.push_back(KeyLocks::StripeOf(static_cast<uint8_t>(space), k.key));
  }
  KeyLocks::Guard guard(rmw_locks_, std::move(stripes));
  RmwReads reads(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    ASSIGN_OR_RETURN(value, GetIn(keys[i].family ? SpaceOf(*keys[i].family) : Space::kItems,
                                  keys[i].key));
    reads[i] = std::move(value);
  }
  WriteBatch batch(*this);
  RETURN_IF_ERROR(RunRmwFunction(fn, reads, batch, conflict));
  if (static_cast<RocksSink&>(SinkOf(batch)).batch()->Count() == 0 &&
      SinkOf(batch).sequenced().empty()) {
    return Status::Ok();
  }
  RETURN_IF_ERROR(Commit(SinkOf(batch)));
  Committed(batch);
  return Status::Ok();
}

namespace {

class RocksIterator final : public ItemIterator {
 public:
  RocksIterator(std::string lower, std::string upper, bool reverse)
      : lower_(std::move(lower)), upper_(std::move(upper)), lower_slice_(lower_),
        upper_slice_(upper_), reverse_(reverse) {}
  bool Valid() const override { return it_->Valid(); }
  void Next() override {
    if (reverse_) {
      it_->Prev();
    } else {
      it_->Next();
    }
  }
  std::string_view key() const override { return {it_->key().data(), it_->key().size()}; }
  std::string_view value() const override { return {it_->value().data(), it_->value().size()}; }
  Status status() const override {
    rocksdb::Status s = it_->status();
    if (s.ok()) return Status::Ok();
    return Error::Internal("scan failed: " + s.ToString());
  }

 private:
  friend class ttlstore::storage::RocksStore;
  std::string lower_, upper_;
  rocksdb::Slice lower_slice_, upper_slice_;  // point into lower_ and upper_
  bool reverse_ = false;
  std::unique_ptr<rocksdb::Iterator> it_;
};

}  // namespace

std::unique_ptr<ItemIterator> RocksStore::ScanIn(Space space, std::string lower, std::string upper,
                                                bool reverse, const std::string* start_after,
                                                size_t /*limit_hint: a local read either way*/)
    const {
  auto iter = std::make_unique<RocksIterator>(std::move(lower), std::move(upper), reverse);
  rocksdb::ReadOptions ro;
  // Bounds let RocksDB skip whole files and stop at the range end without a comparison here.
  ro.iterate_lower_bound = &iter->lower_slice_;
  ro.iterate_upper_bound = &iter->upper_slice_;
  // Within one partition of `items` or `indexes` (a Query) the prefix filters may skip files;
  // any wider range must be read in total order, or a seek would skip files lacking the first
  // key's prefix.
  size_t prefix = space == Space::kItems     ? kItemPrefixBytes
                  : space == Space::kIndexes ? kIndexPrefixBytes
                                             : 0;
  ro.total_order_seek = !(prefix > 0 && WithinOnePrefix(iter->lower_, iter->upper_, prefix));
  ro.prefix_same_as_start = !ro.total_order_seek;
  iter->it_.reset(db_->NewIterator(ro, HandleOf(space)));
  rocksdb::Iterator* it = iter->it_.get();
  if (!reverse) {
    if (start_after) {
      it->Seek(*start_after);
      if (it->Valid() && it->key() == rocksdb::Slice(*start_after)) it->Next();
    } else {
      it->SeekToFirst();
    }
  } else {
    if (start_after) {
      it->SeekForPrev(*start_after);
      if (it->Valid() && it->key() == rocksdb::Slice(*start_after)) it->Prev();
    } else {
      it->SeekToLast();
    }
  }
  return iter;
}

Result<std::vector<model::TableDescriptor>> RocksStore::LoadTables() const {
  std::vector<model::TableDescriptor> tables;
  std::unique_ptr<rocksdb::Iterator> it(
      db_->NewIterator(rocksdb::ReadOptions(), HandleOf(Space::kCatalog)));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    auto t = DecodeTableDescriptor(std::string_view(it->value().data(), it->value().size()));
    if (!t) return Error::Internal("corrupt catalog entry for table " + it->key().ToString());
    tables.push_back(std::move(*t));
  }
  rocksdb::Status s = it->status();
  if (!s.ok()) return Convert(&s, "catalog scan failed").error();
  return tables;
}

Result<uint32_t> RocksStore::AllocateTableId() {
  std::lock_guard<std::mutex> lock(table_id_mu_);
  std::string value;
  uint32_t next = 1;
  rocksdb::Status s =
      db_->Get(rocksdb::ReadOptions(), HandleOf(Space::kMeta), kNextTableIdKey, &value);
  if (s.ok()) {
    std::string_view v = value;
    if (!GetFixed32BE(&v, &next)) return Error::Internal("corrupt next_table_id");
  } else if (!s.IsNotFound()) {
    return Convert(&s, "read failed").error();
  }
  std::string encoded;
  PutFixed32BE(&encoded, next + 1);
  rocksdb::WriteOptions wo;
  wo.sync = options_.sync;
  s = db_->Put(wo, HandleOf(Space::kMeta), kNextTableIdKey, encoded);
  if (!s.ok()) return Convert(&s, "write failed").error();
  return next;
}

Result<TableStats> RocksStore::ReadStats(std::string_view key) const {
  std::string value;
  rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), HandleOf(Space::kStats), ToSlice(key),
                               &value);
  TableStats stats;
  if (s.IsNotFound()) return stats;
  if (!s.ok()) return Convert(&s, "read failed").error();
  if (!DecodeStats(value, &stats)) return Error::Internal("corrupt stats");
  return stats;
}

uint64_t RocksStore::ApproximateItemBytes(std::string_view lower,
                                          std::string_view upper) const {
  rocksdb::Range range(ToSlice(lower), ToSlice(upper));
  rocksdb::SizeApproximationOptions options;
  options.include_memtables = true;
  options.include_files = true;
  uint64_t bytes = 0;
  db_->GetApproximateSizes(options, HandleOf(Space::kItems), &range, 1, &bytes)
      .PermitUncheckedError();
  return bytes;
}

CompactionState RocksStore::Compactions() const {
  CompactionState state;
  db_->GetIntProperty(rocksdb::DB::Properties::kNumRunningCompactions, &state.running);
  db_->GetIntProperty(rocksdb::DB::Properties::kNumRunningFlushes, &state.running_flushes);
  // The estimate is per family; sum them.
  for (auto* h : handles_) {
    uint64_t bytes = 0;
    if (db_->GetIntProperty(h, rocksdb::DB::Properties::kEstimatePendingCompactionBytes, &bytes)) {
      state.pending_bytes += bytes;
    }
  }
  return state;
}

}  // namespace ttlstore::storage
