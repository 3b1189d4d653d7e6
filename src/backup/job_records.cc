#include "backup/job_records.h"

#include "backup/record_file.h"
#include "storage/key_codec.h"
#include "storage/store.h"

namespace ttlstore::backup {
namespace {

std::string Prefix(const std::string& kind) { return "records/" + kind + "/"; }

}  // namespace

JobRecords::JobRecords(storage::Store& store, std::string dir, std::string kind)
    : store_(store),
      dir_(std::move(dir)),
      kind_(std::move(kind)),
      shared_(store.SharedByProcesses()) {}

Status JobRecords::Save(const std::string& id, const std::string& text) const {
  if (!shared_) return SaveRecordFile(dir_, id + "." + kind_, text);
  storage::WriteBatch batch(store_);
  SaveIn(batch, id, text);
  return store_.Write(batch);
}

void JobRecords::SaveIn(storage::WriteBatch& batch, const std::string& id,
                        const std::string& text) const {
  batch.Put(storage::Family::kLeases, Prefix(kind_) + id, text);
}

std::string JobRecords::TokenLockKey(const std::string& client_token) const {
  return "records/" + kind_ + "-token/" + client_token;
}

Status JobRecords::ForEach(const std::function<Status(const std::string& where,
                                                      const std::string& text)>& each) const {
  if (!shared_) return ForEachRecordFile(dir_, "." + kind_, each);
  const std::string prefix = Prefix(kind_);
  auto it = store_.ScanFamily(storage::Family::kLeases, prefix,
                              storage::PrefixSuccessor(prefix), false, nullptr);
  for (; it->Valid(); it->Next()) {
    RETURN_IF_ERROR(each(std::string(it->key()), std::string(it->value())));
  }
  if (!it->status().ok()) return it->status();
  return Status::Ok();
}

}  // namespace ttlstore::backup
