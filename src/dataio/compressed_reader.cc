#include "dataio/compressed_reader.h"

#include <zlib.h>
#include <zstd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace ttlstore::dataio {
namespace {

constexpr size_t kInputBuffer = 64 * 1024;

struct FileCloser {
  void operator()(FILE* f) const {
    if (f) std::fclose(f);
  }
};
using File = std::unique_ptr<FILE, FileCloser>;

// The file's raw bytes, buffered; counts what it has read.
class Input {
 public:
  explicit Input(File f) : f_(std::move(f)), buf_(kInputBuffer) {}

  // Refills when empty; false at end of file. Errors: a read error.
  Result<bool> Fill() {
    if (pos_ < len_) return true;
    len_ = std::fread(buf_.data(), 1, buf_.size(), f_.get());
    pos_ = 0;
    if (len_ == 0 && std::ferror(f_.get())) {
      return Error::Validation(std::string("read error: ") + std::strerror(errno));
    }
    read_ += len_;
    return len_ > 0;
  }
  const char* data() const { return buf_.data() + pos_; }
  size_t size() const { return len_ - pos_; }
  void Consume(size_t n) { pos_ += n; }
  uint64_t read() const { return read_; }

 private:
  File f_;
  std::vector<char> buf_;
  size_t pos_ = 0, len_ = 0;
  uint64_t read_ = 0;
};

class PlainReader : public CompressedReader {
 public:
  explicit PlainReader(File f) : in_(std::move(f)) {}
  Result<size_t> Read(char* buf, size_t n) override {
    auto more = in_.Fill();
    if (!more) return std::move(more).error();
    if (!*more) return size_t{0};
    size_t k = std::min(n, in_.size());
    std::memcpy(buf, in_.data(), k);
    in_.Consume(k);
    return k;
  }
  uint64_t file_bytes_read() const override { return in_.read(); }

 private:
  Input in_;
};

class GzipReader : public CompressedReader {
 public:
  explicit GzipReader(File f) : in_(std::move(f)) {
    std::memset(&z_, 0, sizeof z_);
    ok_ = inflateInit2(&z_, 15 + 16) == Z_OK;  // gzip wrapper only
  }
  ~GzipReader() override {
    if (ok_) inflateEnd(&z_);
  }
  Result<size_t> Read(char* buf, size_t n) override {
    if (!ok_) return Error::Validation("GZIP: cannot start the decompressor");
    while (true) {
      auto more = in_.Fill();
      if (!more) return std::move(more).error();
      if (!*more && !in_member_) return size_t{0};
      // At the end of the file the decompressor may still hold output: it is asked once more.
      z_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in_.data()));
      z_.avail_in = static_cast<uInt>(*more ? in_.size() : 0);
      z_.next_out = reinterpret_cast<Bytef*>(buf);
      z_.avail_out = static_cast<uInt>(n);
      in_member_ = true;
      int rc = inflate(&z_, Z_NO_FLUSH);
      if (*more) in_.Consume(in_.size() - z_.avail_in);
      size_t produced = n - z_.avail_out;
      if (rc == Z_STREAM_END) {
        // Another member may follow (concatenated gzip files are one gzip file).
        in_member_ = false;
        inflateReset(&z_);
      } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
        return Error::Validation(std::string("GZIP: ") + (z_.msg ? z_.msg : "invalid data"));
      }
      if (produced > 0) return produced;
      if (!*more) return Error::Validation("GZIP: the data ends inside a compressed stream");
    }
  }
  uint64_t file_bytes_read() const override { return in_.read(); }

 private:
  Input in_;
  z_stream z_;
  bool ok_ = false;
  bool in_member_ = false;
};

class ZstdReader : public CompressedReader {
 public:
  explicit ZstdReader(File f) : in_(std::move(f)), z_(ZSTD_createDStream()) {
    // Frames may not ask for more than 128 MB of window (zstd's default for decompression is
    // the same; said here so that a hostile frame header is refused, not obeyed).
    if (z_) ZSTD_DCtx_setParameter(z_, ZSTD_d_windowLogMax, 27);
  }
  ~ZstdReader() override { ZSTD_freeDStream(z_); }
  Result<size_t> Read(char* buf, size_t n) override {
    if (!z_) return Error::Validation("ZSTD: cannot start the decompressor");
    while (true) {
      auto more = in_.Fill();
      if (!more) return std::move(more).error();
      if (!*more && !in_frame_) return size_t{0};
      ZSTD_inBuffer input{*more ? in_.data() : nullptr, *more ? in_.size() : 0, 0};
      ZSTD_outBuffer output{buf, n, 0};
      size_t rc = ZSTD_decompressStream(z_, &output, &input);
      in_.Consume(input.pos);
      if (ZSTD_isError(rc)) return Error::Validation(std::string("ZSTD: ") + ZSTD_getErrorName(rc));
      in_frame_ = rc != 0;  // 0: a frame ended and is flushed
      if (output.pos > 0) return output.pos;
      if (!*more) return Error::Validation("ZSTD: the data ends inside a compressed frame");
    }
  }
  uint64_t file_bytes_read() const override { return in_.read(); }

 private:
  Input in_;
  ZSTD_DStream* z_;
  bool in_frame_ = false;
};

}  // namespace

Result<std::unique_ptr<CompressedReader>> CompressedReader::Open(const std::string& path,
                                                                 Compression c) {
  File f(std::fopen(path.c_str(), "rb"));
  if (!f) return Error::Validation("cannot open " + path + ": " + std::strerror(errno));
  switch (c) {
    case Compression::kNone: return std::unique_ptr<CompressedReader>(new PlainReader(std::move(f)));
    case Compression::kGzip: return std::unique_ptr<CompressedReader>(new GzipReader(std::move(f)));
    case Compression::kZstd: return std::unique_ptr<CompressedReader>(new ZstdReader(std::move(f)));
  }
  return Error::Validation("unknown compression");
}

}  // namespace ttlstore::dataio
