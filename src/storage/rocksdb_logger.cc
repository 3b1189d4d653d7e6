#include "storage/rocksdb_logger.h"

#include <rocksdb/env.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>

namespace ttlstore::storage {
namespace {

class SpdlogLogger : public rocksdb::Logger {
 public:
  explicit SpdlogLogger(rocksdb::InfoLogLevel level) : rocksdb::Logger(level) {}

  using rocksdb::Logger::Logv;
  void Logv(const char* format, va_list ap) override {
    Logv(rocksdb::InfoLogLevel::INFO_LEVEL, format, ap);
  }

  void Logv(const rocksdb::InfoLogLevel level, const char* format, va_list ap) override {
    if (level < GetInfoLogLevel()) return;
    char line[1024];
    int n = std::vsnprintf(line, sizeof line, format, ap);
    // Some of RocksDB's lines end in a newline; the server's log has one event per line.
    for (int i = std::min<int>(n, sizeof line - 1) - 1; i >= 0 && line[i] == '\n'; --i) line[i] = '\0';
    switch (level) {
      case rocksdb::InfoLogLevel::DEBUG_LEVEL:
      case rocksdb::InfoLogLevel::INFO_LEVEL:
        spdlog::debug("event=rocksdb message=\"{}\"", line);
        break;
      case rocksdb::InfoLogLevel::WARN_LEVEL:
        spdlog::warn("event=rocksdb message=\"{}\"", line);
        break;
      default:
        spdlog::error("event=rocksdb message=\"{}\"", line);
        break;
    }
  }
};

}  // namespace

std::shared_ptr<rocksdb::Logger> NewRocksDbLogger() {
  auto level = spdlog::get_level() <= spdlog::level::debug ? rocksdb::InfoLogLevel::INFO_LEVEL
                                                           : rocksdb::InfoLogLevel::WARN_LEVEL;
  return std::make_shared<SpdlogLogger>(level);
}

}  // namespace ttlstore::storage
