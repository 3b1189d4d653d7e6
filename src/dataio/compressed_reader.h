// Reads an import file's bytes, decompressing as ImportTable's InputCompressionType says: NONE,
// GZIP (one or more gzip members, as `gzip` and S3 exports write them) or ZSTD (one or more
// frames). Streaming: memory stays at a few buffers whatever the file's size, so a file that
// inflates to gigabytes (or a decompression bomb) costs time, never memory; the caller bounds
// what it keeps (RecordReader bounds a record's length).
#pragma once

#include <cstdio>
#include <memory>
#include <string>

#include "common/result.h"

namespace ttlstore::dataio {

enum class Compression { kNone, kGzip, kZstd };

class CompressedReader {
 public:
  virtual ~CompressedReader() = default;

  // Opens `path`. Errors: the file cannot be opened.
  static Result<std::unique_ptr<CompressedReader>> Open(const std::string& path, Compression c);

  // Up to `n` decompressed bytes into `buf`; 0 at the end of the data. Errors: a read error, or
  // data that is not valid for the compression (including a truncated stream).
  virtual Result<size_t> Read(char* buf, size_t n) = 0;

  // Compressed bytes consumed from the file so far (ImportTable's ProcessedSizeBytes).
  virtual uint64_t file_bytes_read() const = 0;
};

}  // namespace ttlstore::dataio
