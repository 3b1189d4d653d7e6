#include "backup/backup_file.h"

#include <unistd.h>

#include <boost/crc.hpp>
#include <cerrno>
#include <cstring>

#include "common/coding.h"

namespace ttlstore::backup {
namespace {

constexpr char kMagic[] = "TTLSBAK1";
constexpr size_t kMagicSize = 8;
// Largest record accepted: an item is at most 400 KB, a Tablestore row a few MB; anything
// beyond this is damage, not data.
constexpr uint32_t kMaxRecord = 64u << 20;
// kind + length + 3 x int64 + crc
constexpr size_t kTrailerRecordSize = 1 + 4 + 24 + 4;
constexpr size_t kFlushAt = 1 << 20;

uint32_t Crc(std::string_view bytes) {
  boost::crc_32_type crc;
  crc.process_bytes(bytes.data(), bytes.size());
  return crc.checksum();
}

std::string ErrnoText(const std::string& what, const std::string& path) {
  return what + " " + path + ": " + std::strerror(errno);
}

std::string EncodeHeader(const BackupHeader& h) {
  std::string p;
  PutLengthPrefixed(&p, h.backup_arn);
  PutLengthPrefixed(&p, h.backup_name);
  PutVarsint64(&p, h.created_ms);
  PutLengthPrefixed(&p, h.table_arn);
  PutLengthPrefixed(&p, h.table_descriptor);
  PutVarsint64(&p, h.expected_records);
  PutVarsint64(&p, h.expected_bytes);
  return p;
}

bool DecodeHeader(std::string_view p, BackupHeader* h) {
  std::string_view arn, name, table_arn, descriptor;
  bool ok = GetLengthPrefixed(&p, &arn) && GetLengthPrefixed(&p, &name) &&
            GetVarsint64(&p, &h->created_ms) && GetLengthPrefixed(&p, &table_arn) &&
            GetLengthPrefixed(&p, &descriptor) && GetVarsint64(&p, &h->expected_records) &&
            GetVarsint64(&p, &h->expected_bytes);
  if (!ok) return false;
  h->backup_arn = arn;
  h->backup_name = name;
  h->table_arn = table_arn;
  h->table_descriptor = descriptor;
  return true;
}

// One record's bytes: kind . length . payload . crc.
void AppendRecord(std::string* out, char kind, std::string_view payload) {
  size_t start = out->size();
  out->push_back(kind);
  PutFixed32BE(out, static_cast<uint32_t>(payload.size()));
  out->append(payload);
  PutFixed32BE(out, Crc(std::string_view(*out).substr(start)));
}

bool DecodeTrailer(std::string_view p, BackupTrailer* t) {
  uint64_t records, bytes, reserved;
  if (!GetFixed64BE(&p, &records) || !GetFixed64BE(&p, &bytes) || !GetFixed64BE(&p, &reserved)) {
    return false;
  }
  t->records = static_cast<int64_t>(records);
  t->bytes = static_cast<int64_t>(bytes);
  return true;
}

}  // namespace

// ---- writer ---------------------------------------------------------------------------------

Result<std::unique_ptr<BackupWriter>> BackupWriter::Create(const std::string& path,
                                                           const BackupHeader& header) {
  std::unique_ptr<BackupWriter> w(new BackupWriter());
  w->path_ = path;
  std::string tmp = path + ".tmp";
  w->file_ = std::fopen(tmp.c_str(), "wb");
  if (!w->file_) return Error::Internal(ErrnoText("cannot create backup file", tmp));
  w->buffer_.assign(kMagic, kMagicSize);
  AppendRecord(&w->buffer_, 'H', EncodeHeader(header));
  return w;
}

BackupWriter::~BackupWriter() {
  if (file_) std::fclose(file_);
  if (!finished_) std::remove((path_ + ".tmp").c_str());
}

Status BackupWriter::Append(char kind, std::string_view payload) {
  AppendRecord(&buffer_, kind, payload);
  if (buffer_.size() < kFlushAt && kind != 'T') return Status::Ok();
  if (std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size()) {
    return Error::Internal(ErrnoText("cannot write backup file", path_ + ".tmp"));
  }
  written_ += buffer_.size();
  buffer_.clear();
  return Status::Ok();
}

Status BackupWriter::Add(RecordKind kind, std::string_view key, std::string_view value) {
  std::string payload;
  payload.reserve(key.size() + value.size() + 5);
  PutLengthPrefixed(&payload, key);
  payload.append(value);
  ++trailer_.records;
  trailer_.bytes += static_cast<int64_t>(value.size());
  return Append(static_cast<char>(kind), payload);
}

Status BackupWriter::Finish() {
  std::string payload;
  PutFixed64BE(&payload, static_cast<uint64_t>(trailer_.records));
  PutFixed64BE(&payload, static_cast<uint64_t>(trailer_.bytes));
  PutFixed64BE(&payload, 0);  // reserved
  if (Status s = Append('T', payload); !s) return s;
  std::string tmp = path_ + ".tmp";
  if (std::fflush(file_) != 0 || ::fsync(fileno(file_)) != 0) {
    return Error::Internal(ErrnoText("cannot flush backup file", tmp));
  }
  std::fclose(file_);
  file_ = nullptr;
  if (std::rename(tmp.c_str(), path_.c_str()) != 0) {
    return Error::Internal(ErrnoText("cannot move backup file into place", path_));
  }
  finished_ = true;
  return Status::Ok();
}

// ---- reader ---------------------------------------------------------------------------------

namespace {

Error Damaged(const std::string& path, const std::string& why) {
  return Error::Validation("backup file " + path + " is damaged or incomplete: " + why);
}

}  // namespace

BackupReader::~BackupReader() {
  if (file_) std::fclose(file_);
}

Status BackupReader::ReadRecord(char* kind, std::string* payload) {
  char head[5];
  size_t got = std::fread(head, 1, 5, file_);
  if (got == 0 && std::feof(file_)) {
    *kind = '\0';
    return Status::Ok();
  }
  if (got != 5) return Damaged(path_, "a record is cut short");
  std::string_view hv(head, 5);
  hv.remove_prefix(1);
  uint32_t len = 0;
  GetFixed32BE(&hv, &len);
  if (len > kMaxRecord) return Damaged(path_, "a record is larger than any item");
  std::string bytes(head, 5);
  bytes.resize(5 + len + 4);
  if (std::fread(bytes.data() + 5, 1, len + 4, file_) != len + 4) {
    return Damaged(path_, "a record is cut short");
  }
  std::string_view crc_bytes = std::string_view(bytes).substr(5 + len);
  uint32_t crc = 0;
  GetFixed32BE(&crc_bytes, &crc);
  if (crc != Crc(std::string_view(bytes).substr(0, 5 + len))) {
    return Damaged(path_, "a record's checksum does not match");
  }
  *kind = head[0];
  payload->assign(bytes, 5, len);
  return Status::Ok();
}

Result<std::unique_ptr<BackupReader>> BackupReader::Open(const std::string& path) {
  std::unique_ptr<BackupReader> r(new BackupReader());
  r->path_ = path;
  r->file_ = std::fopen(path.c_str(), "rb");
  if (!r->file_) return Error::Validation(ErrnoText("cannot open backup file", path));
  // The trailer first: a file without one is refused before a single item is restored.
  if (std::fseek(r->file_, 0, SEEK_END) != 0) return Damaged(path, "cannot seek");
  long size = std::ftell(r->file_);
  if (size < static_cast<long>(kMagicSize + kTrailerRecordSize)) {
    return Damaged(path, "too short to hold a backup");
  }
  r->file_size_ = static_cast<uint64_t>(size);
  char kind;
  std::string payload;
  std::fseek(r->file_, size - static_cast<long>(kTrailerRecordSize), SEEK_SET);
  if (Status s = r->ReadRecord(&kind, &payload); !s) return std::move(s).error();
  if (kind != 'T' || !DecodeTrailer(payload, &r->trailer_)) {
    return Damaged(path, "it has no trailer (was it copied while being written?)");
  }
  std::fseek(r->file_, 0, SEEK_SET);
  char magic[kMagicSize];
  if (std::fread(magic, 1, kMagicSize, r->file_) != kMagicSize ||
      std::memcmp(magic, kMagic, kMagicSize) != 0) {
    return Error::Validation("not a ttlstore backup file: " + path);
  }
  if (Status s = r->ReadRecord(&kind, &payload); !s) return std::move(s).error();
  if (kind != 'H' || !DecodeHeader(payload, &r->header_)) return Damaged(path, "bad header");
  return r;
}

Result<bool> BackupReader::Next(RecordKind* kind, std::string* key, std::string* value) {
  char k;
  std::string payload;
  if (Status s = ReadRecord(&k, &payload); !s) return std::move(s).error();
  if (k == 'T') {
    if (records_read_ != trailer_.records) {
      return Damaged(path_, "it holds " + std::to_string(records_read_) +
                                " records, its trailer says " + std::to_string(trailer_.records));
    }
    return false;
  }
  if (k != 'I' && k != 'R' && k != 'S') return Damaged(path_, "unknown record kind");
  std::string_view p(payload);
  std::string_view kv;
  if (!GetLengthPrefixed(&p, &kv)) return Damaged(path_, "bad record");
  *kind = static_cast<RecordKind>(k);
  key->assign(kv);
  value->assign(p);
  ++records_read_;
  return true;
}

Result<std::pair<BackupHeader, BackupTrailer>> ReadBackupSummary(const std::string& path) {
  ASSIGN_OR_RETURN(reader, BackupReader::Open(path));
  return std::make_pair(reader->header(), reader->trailer());
}

}  // namespace ttlstore::backup
