#include "check/search_check.h"

#include <filesystem>
#include <set>

#include <fmt/format.h>
#include <xapian.h>

#include "search/document.h"
#include "search/terms.h"
#include "storage/search_queue.h"
#include "versions/row.h"
#include "versions/row_key.h"

namespace ttlstore::check {
namespace {

// Terms and values of a document, comparable. `array_slots`: with the array-element slots
// (search/terms.h), which documents written before they existed lack (still valid: aggregations
// then read the row).
std::string Describe(const Xapian::Document& doc, bool array_slots) {
  std::string out;
  for (auto t = doc.termlist_begin(); t != doc.termlist_end(); ++t) {
    out += *t;
    out += '|' + std::to_string(t.get_wdf()) + '\n';
  }
  for (auto v = doc.values_begin(); v != doc.values_end(); ++v) {
    if (!array_slots && v.get_valueno() >= search::kSlotArrayBase) continue;
    out += std::to_string(v.get_valueno()) + '=' + *v + '\n';
  }
  return out;
}

bool HasArraySlots(const Xapian::Document& doc) {
  for (auto v = doc.values_begin(); v != doc.values_end(); ++v) {
    if (v.get_valueno() >= search::kSlotArrayBase) return true;
  }
  return false;
}

}  // namespace

Status CheckSearchIndexes(const storage::Store& store,
                          const std::map<uint32_t, model::TableDescriptor>& tables,
                          const std::string& search_dir, int64_t now_ms, uint64_t* documents,
                          uint64_t* queued, const std::function<void(std::string)>& problem) {
  std::set<uint32_t> named;
  for (const auto& [table_id, table] : tables) {
    if (!table.tablestore) continue;
    const model::TablestoreSchema& schema = *table.tablestore;
    if (schema.search_indexes.empty()) continue;
    // Rows a queue entry names: their documents may lag.
    std::set<std::string> pending;
    auto q = store.ScanFamily(storage::Family::kSearch, storage::SearchQueueBegin(table_id),
                              storage::SearchQueueEnd(table_id), false, nullptr);
    for (; q->Valid(); q->Next()) {
      pending.emplace(q->value());
      ++*queued;
    }
    for (const auto& meta : schema.search_indexes) {
      named.insert(meta.id);
      std::string path = search_dir + "/" + std::to_string(meta.id);
      if (!std::filesystem::exists(path)) {
        if (!meta.building) {
          problem(fmt::format("table {}: search index {} has no database at {}", table.name,
                              meta.name, path));
        }
        continue;
      }
      try {
        Xapian::Database db(path);
        *documents += db.get_doccount();
        if (meta.building) continue;
        int64_t ttl = search::EffectiveTtlSeconds(meta, schema);
        auto expired = [&](const Xapian::Document& doc) {
          std::string v = doc.get_value(search::kSlotTimestamp);
          int64_t ts = int64_t(search::KeyFromBytes(v) ^ (uint64_t{1} << 63));
          return ttl >= 0 && !v.empty() && now_ms - ts > ttl * 1000;
        };
        uint64_t matched = 0;
        auto rows = store.ScanFamily(storage::Family::kRows, versions::TableRowsBegin(table_id),
                                     versions::TableRowsEnd(table_id), false, nullptr);
        for (; rows->Valid(); rows->Next()) {
          std::string key(rows->key());
          std::string term = search::UniqueTerm(key);
          std::optional<Xapian::Document> actual;
          auto p = db.postlist_begin(term);
          if (p != db.postlist_end(term)) {
            actual = db.get_document(*p);
            ++matched;
          }
          if (pending.count(key)) continue;
          versions::StoredRow row;
          if (!versions::DecodeRow(rows->value(), &row)) continue;  // CheckRows reports it
          auto want = search::BuildDocument(meta, schema, key, row, now_ms);
          if (!want) {
            if (actual && !expired(*actual)) {
              problem(fmt::format("table {}: search index {} has a document for a row that "
                                  "should have none", table.name, meta.name));
            }
          } else if (!actual) {
            problem(fmt::format("table {}: search index {} lacks the document of a row",
                                table.name, meta.name));
          } else if (bool arrays = HasArraySlots(*actual);
                     Describe(*want, arrays) != Describe(*actual, arrays)) {
            problem(fmt::format("table {}: search index {} has a stale document for a row",
                                table.name, meta.name));
          }
        }
        if (!rows->status().ok()) return rows->status();
        // Documents of rows that do not exist: every document is a unique term; the ones not
        // matched above have no row.
        if (matched < db.get_doccount()) {
          uint64_t orphans = 0;
          for (auto d = db.postlist_begin(""); d != db.postlist_end(""); ++d) {
            std::string key = db.get_document(*d).get_value(search::kSlotRowKey);
            if (pending.count(key)) continue;
            auto got = store.Get(storage::Family::kRows, key);
            if (got.ok() && !got->has_value()) ++orphans;
          }
          if (orphans > 0) {
            problem(fmt::format("table {}: search index {} has {} documents of rows that do "
                                "not exist", table.name, meta.name, orphans));
          }
        }
      } catch (const Xapian::Error& e) {
        problem(fmt::format("table {}: search index {} cannot be read: {}", table.name,
                            meta.name, e.get_description()));
      }
    }
  }
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(search_dir, ec)) {
    std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    if (!named.count(uint32_t(std::stoul(name)))) {
      problem(fmt::format("search index folder {} belongs to no table (removed at the next "
                          "start)", name));
    }
  }
  return Status::Ok();
}

}  // namespace ttlstore::check
