#include "dataio/export_files.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <unistd.h>
#include <zlib.h>

#include <cstring>
#include <ctime>

#include "common/base64.h"
#include "dataio/ion_item.h"

namespace ttlstore::dataio {
namespace {

std::string Md5(std::string_view bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(bytes.data(), bytes.size(), digest, &len, EVP_md5(), nullptr);
  return std::string(reinterpret_cast<const char*>(digest), len);
}

std::string Hex(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (char c : bytes) {
    out += kHex[static_cast<unsigned char>(c) >> 4];
    out += kHex[static_cast<unsigned char>(c) & 15];
  }
  return out;
}

// A JSON string literal of `s` (UTF-8 passes through; control characters are \u-escaped).
void JsonString(std::string& out, std::string_view s) {
  out += '"';
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20) {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\u00";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    } else {
      out += c;
    }
  }
  out += '"';
}

// A string member, or null when empty (the summary writes "s3SseKmsKeyId": null).
void Member(std::string& out, const char* name, const std::string& value, bool null_if_empty) {
  if (out.size() > 1) out += ',';
  JsonString(out, name);
  out += ':';
  if (null_if_empty && value.empty()) {
    out += "null";
  } else {
    JsonString(out, value);
  }
}

void NumberMember(std::string& out, const char* name, int64_t value) {
  if (out.size() > 1) out += ',';
  JsonString(out, name);
  out += ':';
  out += std::to_string(value);
}

}  // namespace

std::string Md5Base64(std::string_view bytes) { return Base64Encode(Md5(bytes)); }
std::string Md5Hex(std::string_view bytes) { return Hex(Md5(bytes)); }

Status WriteFileDurably(const std::string& path, std::string_view bytes) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Error::Internal("cannot create " + path + ": " + std::strerror(errno));
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      int e = errno;
      ::close(fd);
      return Error::Internal("cannot write " + path + ": " + std::strerror(e));
    }
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    return Error::Internal("cannot sync " + path + ": " + std::strerror(errno));
  }
  return Status::Ok();
}

// ---- GzipLineWriter ----------------------------------------------------------------------------

struct GzipLineWriter::State {
  z_stream z{};
  bool z_open = false;
  EVP_MD_CTX* md5 = nullptr;
  char out[64 * 1024];
};

GzipLineWriter::~GzipLineWriter() {
  if (state_) {
    if (state_->z_open) deflateEnd(&state_->z);
    if (state_->md5) EVP_MD_CTX_free(state_->md5);
  }
  if (file_) std::fclose(file_);
}

Result<std::unique_ptr<GzipLineWriter>> GzipLineWriter::Create(const std::string& path) {
  std::unique_ptr<GzipLineWriter> w(new GzipLineWriter());
  w->path_ = path;
  w->state_ = std::make_unique<State>();
  w->file_ = std::fopen(path.c_str(), "wbe");
  if (!w->file_) return Error::Internal("cannot create " + path + ": " + std::strerror(errno));
  // windowBits 15 + 16: a gzip header and trailer, as `gzip` writes.
  if (deflateInit2(&w->state_->z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
                   Z_DEFAULT_STRATEGY) != Z_OK) {
    return Error::Internal("cannot start a gzip stream for " + path);
  }
  w->state_->z_open = true;
  w->state_->md5 = EVP_MD_CTX_new();
  if (!w->state_->md5 || EVP_DigestInit_ex(w->state_->md5, EVP_md5(), nullptr) != 1) {
    return Error::Internal("cannot start an MD5 digest");
  }
  return w;
}

Status GzipLineWriter::Deflate(const char* data, size_t n, int flush) {
  z_stream& z = state_->z;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data));
  z.avail_in = static_cast<uInt>(n);
  do {
    z.next_out = reinterpret_cast<Bytef*>(state_->out);
    z.avail_out = sizeof(state_->out);
    int rc = deflate(&z, flush);
    if (rc == Z_STREAM_ERROR) return Error::Internal("gzip stream error writing " + path_);
    size_t have = sizeof(state_->out) - z.avail_out;
    if (have > 0) {
      if (std::fwrite(state_->out, 1, have, file_) != have) {
        return Error::Internal("cannot write " + path_ + ": " + std::strerror(errno));
      }
      EVP_DigestUpdate(state_->md5, state_->out, have);
      file_bytes_ += have;
    }
  } while (z.avail_out == 0 || (flush == Z_FINISH && z.avail_in > 0));
  return Status::Ok();
}

Status GzipLineWriter::Append(std::string_view line) {
  // Lines are far below 4 GB (an item is at most 400 KB), so one call takes a whole line.
  RETURN_IF_ERROR(Deflate(line.data(), line.size(), Z_NO_FLUSH));
  RETURN_IF_ERROR(Deflate("\n", 1, Z_NO_FLUSH));
  raw_bytes_ += line.size() + 1;
  return Status::Ok();
}

Result<GzipLineWriter::Summary> GzipLineWriter::Finish() {
  z_stream& z = state_->z;
  z.next_in = nullptr;
  z.avail_in = 0;
  for (;;) {
    z.next_out = reinterpret_cast<Bytef*>(state_->out);
    z.avail_out = sizeof(state_->out);
    int rc = deflate(&z, Z_FINISH);
    if (rc == Z_STREAM_ERROR) return Error::Internal("gzip stream error ending " + path_);
    size_t have = sizeof(state_->out) - z.avail_out;
    if (have > 0) {
      if (std::fwrite(state_->out, 1, have, file_) != have) {
        return Error::Internal("cannot write " + path_ + ": " + std::strerror(errno));
      }
      EVP_DigestUpdate(state_->md5, state_->out, have);
      file_bytes_ += have;
    }
    if (rc == Z_STREAM_END) break;
  }
  deflateEnd(&z);
  state_->z_open = false;
  if (std::fflush(file_) != 0 || ::fsync(::fileno(file_)) != 0) {
    return Error::Internal("cannot sync " + path_ + ": " + std::strerror(errno));
  }
  int rc = std::fclose(file_);
  file_ = nullptr;
  if (rc != 0) return Error::Internal("cannot close " + path_ + ": " + std::strerror(errno));
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_DigestFinal_ex(state_->md5, digest, &len);
  std::string md5(reinterpret_cast<const char*>(digest), len);
  Summary s;
  s.file_bytes = file_bytes_;
  s.md5_base64 = Base64Encode(md5);
  s.etag = Hex(md5);
  return s;
}

// ---- manifests ---------------------------------------------------------------------------------

std::string ManifestFilesLine(int64_t item_count, const std::string& md5_base64,
                              const std::string& etag, const std::string& data_file_key) {
  std::string out = "{";
  NumberMember(out, "itemCount", item_count);
  Member(out, "md5Checksum", md5_base64, false);
  Member(out, "etag", etag, false);
  Member(out, "dataFileS3Key", data_file_key, false);
  out += '}';
  return out;
}

std::string IsoMillis(int64_t ms) {
  std::time_t seconds = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(ms % 1000));
  return buf;
}

std::string FormatManifestSummary(const ManifestSummary& s) {
  std::string out = "{";
  Member(out, "version", "2020-06-30", false);
  Member(out, "exportArn", s.export_arn, false);
  Member(out, "startTime", IsoMillis(s.start_ms), false);
  Member(out, "endTime", IsoMillis(s.end_ms), false);
  Member(out, "tableArn", s.table_arn, false);
  Member(out, "tableId", s.table_id, false);
  if (s.export_type == "INCREMENTAL_EXPORT") {
    Member(out, "exportFromTime", IsoMillis(s.export_from_ms), false);
    Member(out, "exportToTime", IsoMillis(s.export_to_ms), false);
  } else {
    Member(out, "exportTime", IsoMillis(s.export_ms), false);
  }
  Member(out, "s3Bucket", s.bucket, false);
  Member(out, "s3Prefix", s.prefix, true);
  Member(out, "s3SseAlgorithm", s.sse_algorithm, true);
  Member(out, "s3SseKmsKeyId", s.sse_kms_key_id, true);
  Member(out, "manifestFilesS3Key", s.manifest_files_key, false);
  NumberMember(out, "billedSizeBytes", s.billed_size_bytes);
  NumberMember(out, "itemCount", s.item_count);
  Member(out, "outputFormat", s.output_format, false);
  if (s.export_type == "INCREMENTAL_EXPORT") {
    Member(out, "outputView", s.output_view, false);
  }
  Member(out, "exportType", s.export_type, false);
  out += '}';
  return out;
}

std::string FormatIonChangeLine(int64_t write_time_micros, const model::Item& keys,
                                const model::Item* old_image, const model::Item* new_image) {
  std::string out = "$ion_1_0 {Metadata:{WriteTimeEpochMicros:";
  out += std::to_string(write_time_micros);
  out += "},Keys:";
  out += FormatIonStruct(keys);
  if (old_image) {
    out += ",OldImage:";
    out += FormatIonStruct(*old_image);
  }
  if (new_image) {
    out += ",NewImage:";
    out += FormatIonStruct(*new_image);
  }
  out += '}';
  return out;
}

}  // namespace ttlstore::dataio
