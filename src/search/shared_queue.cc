#include "search/shared_queue.h"

#include <algorithm>
#include <set>

#include "common/coding.h"
#include "storage/search_queue.h"
#include "storage/store.h"

namespace ttlstore::search {
namespace {

// A record that lapsed this long ago belongs to a process that is gone: deleted by Trim.
constexpr int64_t kForgetAfterMs = 3600 * 1000;

}  // namespace

std::string EncodeConsumer(const ConsumerRecord& record) {
  std::string v;
  PutFixed64BE(&v, uint64_t(record.expiry_ms));
  PutFixed32BE(&v, uint32_t(record.cursors.size()));
  for (const auto& [table_id, cursor] : record.cursors) {
    PutFixed32BE(&v, table_id);
    PutFixed64BE(&v, cursor);
  }
  return v;
}

bool DecodeConsumer(std::string_view bytes, ConsumerRecord* record) {
  uint64_t expiry = 0;
  uint32_t count = 0;
  if (!GetFixed64BE(&bytes, &expiry) || !GetFixed32BE(&bytes, &count)) return false;
  if (bytes.size() != size_t(count) * 12) return false;
  record->expiry_ms = int64_t(expiry);
  record->cursors.clear();
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t table_id = 0;
    uint64_t cursor = 0;
    GetFixed32BE(&bytes, &table_id);
    GetFixed64BE(&bytes, &cursor);
    record->cursors[table_id] = cursor;
  }
  return true;
}

SharedQueue::SharedQueue(storage::Store& store, std::string owner, int64_t lease_ms,
                         const Clock& clock)
    : store_(store), owner_(std::move(owner)), lease_ms_(lease_ms), clock_(clock) {}

bool SharedQueue::PublishDue() const {
  return clock_.NowMs() - last_publish_ms_ >= lease_ms_ / 3;
}

Result<uint64_t> SharedQueue::Head(uint32_t table_id) const {
  ASSIGN_OR_RETURN(head, store_.Get(storage::Family::kSearch,
                                    storage::SearchQueueHeadKey(table_id)));
  return head ? storage::DecodeSearchSeq(*head) : 0;
}

Result<std::vector<CopyStart>> SharedQueue::Publish(const std::vector<CopyCursor>& copies) {
  std::set<uint32_t> tables;
  for (const auto& c : copies) tables.insert(c.table_id);
  // The floors first, in table order, then the record: every Publish and Trim locks the floors
  // it names in one order.
  std::vector<storage::RmwKey> keys;
  for (uint32_t t : tables) keys.push_back({storage::Family::kSearch, storage::SearchQueueFloorKey(t)});
  keys.push_back({storage::Family::kSearch, storage::SearchConsumerKey(owner_)});
  const int64_t now = clock_.NowMs();
  std::vector<CopyStart> starts;
  ConsumerRecord record;
  Status s = store_.ReadModifyWrite(
      keys, [&](const storage::RmwReads& reads, storage::WriteBatch& batch) -> Status {
        // Assigned afresh: the function runs again after a serialization conflict.
        starts.clear();
        record = ConsumerRecord{now + lease_ms_, {}};
        std::map<uint32_t, uint64_t> floors, heads;
        size_t i = 0;
        for (uint32_t t : tables) {
          floors[t] = reads[i] ? storage::DecodeSearchSeq(*reads[i]) : 0;
          ++i;
        }
        for (const auto& c : copies) {
          std::optional<uint64_t> at = c.cursor;
          bool rebuild = false;
          if (at) {
            // What the floors were held to while this process's record held them; a floor past
            // it deleted entries this copy may not have applied.
            auto p = published_.find(c.table_id);
            uint64_t needed = p != published_.end() ? std::min(p->second, *at) : *at;
            if (floors[c.table_id] > needed) {
              at.reset();
              rebuild = true;
            }
          }
          if (!at) {
            if (!heads.count(c.table_id)) {
              ASSIGN_OR_RETURN(head, Head(c.table_id));
              heads[c.table_id] = head;
            }
            // The floor never passes a held cursor, and cursors never pass the head.
            at = std::max(heads[c.table_id], floors[c.table_id]);
            starts.push_back({c.index_id, *at, rebuild});
          }
          auto [it, fresh] = record.cursors.emplace(c.table_id, *at);
          if (!fresh) it->second = std::min(it->second, *at);
        }
        batch.Put(storage::Family::kSearch, storage::SearchConsumerKey(owner_),
                  EncodeConsumer(record));
        return Status::Ok();
      });
  if (!s) return s.error();
  last_publish_ms_ = now;
  published_ = record.cursors;
  return starts;
}

Result<std::vector<ConsumerRecord>> SharedQueue::HeldRecords(
    int64_t now_ms, std::vector<std::string>* stale) const {
  std::vector<ConsumerRecord> held;
  auto it = store_.ScanFamily(storage::Family::kSearch, storage::SearchConsumersBegin(),
                              storage::SearchConsumersEnd(), false, nullptr);
  for (; it->Valid(); it->Next()) {
    ConsumerRecord r;
    if (!DecodeConsumer(it->value(), &r)) continue;
    if (r.expiry_ms > now_ms - kRetainLapsedMs) {
      held.push_back(std::move(r));
    } else if (stale && r.expiry_ms < now_ms - kForgetAfterMs) {
      stale->emplace_back(it->key());
    }
  }
  if (!it->status().ok()) return it->status().error();
  return held;
}

std::vector<uint32_t> SharedQueue::TablesLeftWithEntries(const std::set<uint32_t>& followed) const {
  std::vector<uint32_t> out;
  const std::string heads = storage::SearchSharedKey('h', "");
  auto it = store_.ScanFamily(storage::Family::kSearch, heads, storage::SearchSharedKey('i', ""),
                              false, nullptr);
  for (; it->Valid(); it->Next()) {
    std::string_view id = it->key().substr(heads.size());
    uint32_t t = 0;
    if (!GetFixed32BE(&id, &t) || followed.count(t)) continue;
    auto entry = store_.ScanFamily(storage::Family::kSearch, storage::SearchQueueBegin(t),
                                   storage::SearchQueueEnd(t), false, nullptr);
    if (entry->Valid()) out.push_back(t);
  }
  return out;
}

Status SharedQueue::Trim(const std::vector<uint32_t>& table_ids) {
  std::set<uint32_t> tables(table_ids.begin(), table_ids.end());
  // Tables whose last search index was dropped keep the entries that writers holding the table
  // as it was queued meanwhile: trimmed up to the head once no record follows them.
  std::set<uint32_t> left;
  const int64_t now = clock_.NowMs();
  if (now - last_left_check_ms_ >= kLeftCheckEveryMs) {
    last_left_check_ms_ = now;
    for (uint32_t t : TablesLeftWithEntries(tables)) left.insert(t);
  }
  tables.insert(left.begin(), left.end());
  if (tables.empty()) return Status::Ok();
  std::vector<storage::RmwKey> keys;
  for (uint32_t t : tables) keys.push_back({storage::Family::kSearch, storage::SearchQueueFloorKey(t)});
  std::vector<std::string> stale;
  RETURN_IF_ERROR(store_.ReadModifyWrite(
      keys, [&](const storage::RmwReads& reads, storage::WriteBatch& batch) -> Status {
        // Read under the floors' locks: a process publishing meanwhile holds one of them, so
        // its record is read here as it committed.
        stale.clear();
        ASSIGN_OR_RETURN(held, HeldRecords(clock_.NowMs(), &stale));
        size_t i = 0;
        for (uint32_t t : tables) {
          uint64_t floor = reads[i] ? storage::DecodeSearchSeq(*reads[i]) : 0;
          ++i;
          std::optional<uint64_t> lowest;
          for (const auto& r : held) {
            auto c = r.cursors.find(t);
            if (c != r.cursors.end()) lowest = std::min(lowest.value_or(UINT64_MAX), c->second);
          }
          if (!lowest && left.count(t)) {
            ASSIGN_OR_RETURN(head, Head(t));
            lowest = head;
          }
          // No process follows the table: one that starts to starts at the head.
          if (!lowest || *lowest <= floor) continue;
          batch.Put(storage::Family::kSearch, storage::SearchQueueFloorKey(t),
                    storage::EncodeSearchSeq(*lowest));
          batch.DeleteRange(storage::Family::kSearch, storage::SearchQueueBegin(t),
                            storage::SearchQueueKey(t, *lowest + 1));
        }
        return Status::Ok();
      }));
  for (const std::string& key : stale) {
    // Deleted only if still lapsed (its process may have come back).
    Status s = store_.ReadModifyWrite(
        {{storage::Family::kSearch, key}},
        [&](const storage::RmwReads& reads, storage::WriteBatch& batch) -> Status {
          ConsumerRecord r;
          if (reads[0] && DecodeConsumer(*reads[0], &r) &&
              r.expiry_ms < clock_.NowMs() - kForgetAfterMs) {
            batch.Delete(storage::Family::kSearch, key);
          }
          return Status::Ok();
        });
    if (!s) return s;
  }
  return Status::Ok();
}

}  // namespace ttlstore::search
