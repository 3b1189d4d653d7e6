// The search queue of a store several processes share (storage/search_queue.h, issue 34).
//
// Each process keeps its own copy of every search index, under its own --data-dir, and follows
// each table's queue by a cursor: the table's entries are numbered in commit order, so "every
// entry up to the cursor is applied" is exact. A process publishes its cursors in a consumer
// record with an expiry (a lease period ahead, renewed while it runs). Entries stay until every
// live consumer is past them: Trim raises each table's floor to the smallest cursor of the live
// records and deletes the entries up to it, in one read-modify-write of the floors.
//
// A copy starts (new index, lost folder, new process) at the table's head, read in the same
// read-modify-write that publishes it, and builds from the rows; every change numbered up to
// the head is in the rows it reads afterwards, and every later one is queued and kept for it.
// A record that lapsed still holds the floors for kRetainLapsedMs (10 minutes): a process that
// comes back within that time (a restart: the consumer id is kept in its --data-dir) carries on
// from its cursors. One that comes back later may find that the floor passed entries it had not
// applied: those copies are rebuilt the same way.
//
// Thread-safety: Publish and Trim are called from the search engine's thread only; Trim may run
// in every process at once (the floors' read-modify-write orders them).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "common/result.h"

namespace ttlstore::storage { class Store; }

namespace ttlstore::search {

struct ConsumerRecord {
  int64_t expiry_ms = 0;
  std::map<uint32_t, uint64_t> cursors;  // table id -> every entry up to it is applied
};
std::string EncodeConsumer(const ConsumerRecord& record);
bool DecodeConsumer(std::string_view bytes, ConsumerRecord* record);

// A copy of an index, as Publish takes it.
struct CopyCursor {
  uint32_t table_id = 0;
  uint32_t index_id = 0;
  // nullopt: a copy that has none (new, or its folder lost): it starts at the head.
  std::optional<uint64_t> cursor;
};

// A copy that starts at its table's head (Publish's answer).
struct CopyStart {
  uint32_t index_id = 0;
  uint64_t cursor = 0;   // the head: the entries after it are kept for this process
  bool rebuild = false;  // entries it had not applied were deleted: build it again from the rows
};

class SharedQueue {
 public:
  static constexpr int64_t kRetainLapsedMs = 10 * 60 * 1000;

  SharedQueue(storage::Store& store, std::string owner, int64_t lease_ms, const Clock& clock);

  // Publishes this process's record: per table, the smallest cursor of its copies (a copy that
  // starts, at its start), expiring a lease period from now. Returns the copies that start.
  Result<std::vector<CopyStart>> Publish(const std::vector<CopyCursor>& copies);
  // Whether the record should be renewed (a third of the lease period since the last Publish).
  bool PublishDue() const;
  // Raises the floor of each table to the smallest cursor the records give it (those live, or
  // lapsed less than kRetainLapsedMs ago) and deletes the entries up to it; so too, up to its
  // head, for a table no longer in `table_ids` (its last search index dropped) that no record
  // follows; deletes records that lapsed an hour ago.
  Status Trim(const std::vector<uint32_t>& table_ids);
  // The last sequence numbered in the table's queue (0: none yet).
  Result<uint64_t> Head(uint32_t table_id) const;
  const std::string& owner() const { return owner_; }

 private:
  // The tables not in `followed` that have a head and queue entries still.
  std::vector<uint32_t> TablesLeftWithEntries(const std::set<uint32_t>& followed) const;
  Result<std::vector<ConsumerRecord>> HeldRecords(int64_t now_ms,
                                                  std::vector<std::string>* stale) const;

  storage::Store& store_;
  const std::string owner_;
  const int64_t lease_ms_;
  const Clock& clock_;
  int64_t last_publish_ms_ = 0;
  // Tables left with entries (TablesLeftWithEntries) are looked for this often.
  static constexpr int64_t kLeftCheckEveryMs = 60'000;
  int64_t last_left_check_ms_ = 0;
  // Per table, the cursor the last Publish wrote: what the floors were held to while the
  // record was live.
  std::map<uint32_t, uint64_t> published_;
};

}  // namespace ttlstore::search
