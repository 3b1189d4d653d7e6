#include "check/pitr_check.h"

#include <fmt/format.h>

#include "storage/item_codec.h"
#include "storage/key_codec.h"
#include "storage/pitr_log.h"

namespace ttlstore::check {
namespace {

std::string Hex(std::string_view bytes) {
  std::string out;
  for (unsigned char c : bytes) out += fmt::format("{:02x}", c);
  return out;
}

// Whether `encoded` decodes to an item whose key attributes are the ones `item_key` names.
bool ImageMatchesKey(const model::TableDescriptor& table, const std::string& item_key,
                     const std::string& encoded) {
  auto item = storage::DecodeItem(encoded);
  if (!item) return false;
  uint32_t id = 0;
  model::AttributeValue pk;
  std::optional<model::AttributeValue> sk;
  if (!storage::DecodeItemKey(item_key, table.key, &id, &pk, &sk)) return false;
  auto has = [&](const model::KeyElement& e, const model::AttributeValue& v) {
    auto a = item->find(e.name);
    return a != item->end() && a->second == v;
  };
  if (!has(table.key.hash, pk)) return false;
  return !table.key.range || (sk && has(*table.key.range, *sk));
}

}  // namespace

Status CheckPitrLog(const storage::Store& store,
                    const std::map<uint32_t, model::TableDescriptor>& tables, uint64_t* records,
                    const std::function<void(std::string)>& problem) {
  for (const auto& [id, t] : tables) {
    if (t.pitr && (t.pitr->recovery_period_days < 1 || t.pitr->recovery_period_days > 35)) {
      problem(fmt::format("table {}: RecoveryPeriodInDays {} is outside 1-35", t.name,
                          t.pitr->recovery_period_days));
    }
  }
  std::map<uint32_t, uint64_t> orphans;
  auto it = store.ScanFamily(storage::Family::kPitr, "", std::string(5, '\xff'), false, nullptr);
  for (; it->Valid(); it->Next()) {
    ++*records;
    storage::PitrLogRecord r;
    if (!storage::DecodePitrRecord(it->key(), it->value(), &r)) {
      problem("a PITR change-log record does not decode: " + Hex(it->key()));
      continue;
    }
    auto t = tables.find(r.table_id);
    if (t == tables.end() || !t->second.pitr) {
      ++orphans[r.table_id];
      continue;
    }
    if (r.old_image && !ImageMatchesKey(t->second, r.item_key, *r.old_image)) {
      problem(fmt::format("table {}: PITR change-log record {} holds an image that does not "
                          "decode or does not carry its key",
                          t->second.name, Hex(it->key())));
    }
  }
  RETURN_IF_ERROR(it->status());
  for (const auto& [id, n] : orphans) {
    auto t = tables.find(id);
    problem(t == tables.end()
                ? fmt::format("{} PITR change-log records under table id {}, which names no "
                              "table (orphans)", n, id)
                : fmt::format("table {}: {} PITR change-log records, but PITR is disabled", 
                              t->second.name, n));
  }
  return Status::Ok();
}

}  // namespace ttlstore::check
