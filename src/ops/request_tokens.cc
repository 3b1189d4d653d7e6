#include "ops/request_tokens.h"

#include <spdlog/spdlog.h>

#include <vector>

#include "auth/sigv4.h"
#include "common/coding.h"

namespace ttlstore::ops {

namespace {
constexpr char kRecordFormat = 0x01;
constexpr char kRecordPrefix = 't';
constexpr char kExpiryPrefix = 'x';
}  // namespace

std::string EncodeTokenRecord(const TokenRecord& record) {
  std::string out(1, kRecordFormat);
  PutFixed64BE(&out, static_cast<uint64_t>(record.expires_ms));
  out += record.request_hash;
  return out;
}

std::optional<TokenRecord> DecodeTokenRecord(std::string_view value) {
  if (value.empty() || value[0] != kRecordFormat) return std::nullopt;
  value.remove_prefix(1);
  uint64_t expires = 0;
  if (!GetFixed64BE(&value, &expires)) return std::nullopt;
  return TokenRecord{static_cast<int64_t>(expires), std::string(value)};
}

std::string TokenKey(std::string_view token) {
  std::string key(1, kRecordPrefix);
  key += token;
  return key;
}

std::string TokenExpiryKey(int64_t expires_ms, std::string_view token) {
  std::string key(1, kExpiryPrefix);
  PutFixed64BE(&key, static_cast<uint64_t>(expires_ms));
  key += token;
  return key;
}

std::string RequestHash(std::string_view fingerprint) { return auth::Sha256Hex(fingerprint); }

Result<bool> IsRepeat(const std::optional<std::string>& read, const TokenUse& use) {
  std::optional<TokenRecord> record = read ? DecodeTokenRecord(*read) : std::nullopt;
  if (!record || record->expires_ms <= use.now_ms) return false;
  if (record->request_hash != use.request_hash) {
    return Error(ErrorCode::kIdempotentParameterMismatch,
                 "The request uses the same client token as a previous, but non-identical "
                 "request.");
  }
  return true;
}

void RecordToken(storage::WriteBatch& batch, const TokenUse& use,
                 const std::optional<std::string>& read) {
  if (std::optional<TokenRecord> old = read ? DecodeTokenRecord(*read) : std::nullopt) {
    batch.Delete(storage::Family::kTokens, TokenExpiryKey(old->expires_ms, use.token));
  }
  const int64_t expires = use.now_ms + kTokenLifetimeMs;
  batch.Put(storage::Family::kTokens, TokenKey(use.token),
            EncodeTokenRecord({expires, use.request_hash}));
  batch.Put(storage::Family::kTokens, TokenExpiryKey(expires, use.token), "");
}

Result<uint64_t> TokenTrimmer::TrimOnce(int64_t now_ms) {
  uint64_t removed = 0;
  const std::string begin(1, kExpiryPrefix);
  const std::string end = TokenExpiryKey(now_ms, "");  // entries due before now
  while (true) {
    // The index entries due, up to a group; each names a token whose record may be due.
    std::vector<std::pair<std::string, std::string>> due;  // (index key, token)
    auto it = store_.ScanFamily(storage::Family::kTokens, begin, end, false, nullptr);
    for (; it->Valid() && due.size() < kTrimGroup; it->Next()) {
      std::string_view key = it->key();
      if (key.size() < 9) continue;
      due.emplace_back(std::string(key), std::string(key.substr(9)));
    }
    RETURN_IF_ERROR(it->status());
    if (due.empty()) break;
    std::vector<storage::RmwKey> keys;
    for (const auto& [index_key, token] : due) {
      keys.push_back({storage::Family::kTokens, TokenKey(token)});
    }
    uint64_t group_removed = 0;
    RETURN_IF_ERROR(store_.ReadModifyWrite(
        keys, [&](const storage::RmwReads& reads, storage::WriteBatch& batch) -> Status {
          group_removed = 0;
          for (size_t i = 0; i < due.size(); ++i) {
            batch.Delete(storage::Family::kTokens, due[i].first);
            std::optional<TokenRecord> r = reads[i] ? DecodeTokenRecord(*reads[i]) : std::nullopt;
            // A token used again after this entry was written has a later time: it stays.
            if (r && r->expires_ms < now_ms) {
              batch.Delete(storage::Family::kTokens, keys[i].key);
              ++group_removed;
            }
          }
          return Status::Ok();
        }));
    removed += group_removed;
    if (due.size() < kTrimGroup) break;
  }
  trimmed_ += removed;
  return removed;
}

void TokenTrimmer::Start() {
  thread_.Start("token-trimmer", interval_ms_, [this] {
    if (!storage::MayRun(keeper_, kTokenTrimLeaseUnit)) return;
    auto removed = TrimOnce(clock_.NowMs());
    if (!removed) {
      spdlog::warn("event=token_trim_failed message=\"{}\"", removed.error().message());
    } else if (*removed) {
      spdlog::debug("event=token_trim records={}", *removed);
    }
  });
}

}  // namespace ttlstore::ops
