// RocksDB's info log, sent to the server's own log (spdlog) instead of a LOG file in the data
// dir. One log stream for operators, and no file that a full disk can break: RocksDB's file
// logger aborts the process (a debug assertion in Debian's build) on the first line written
// after a failed one, which a full disk makes certain.
#pragma once

#include <memory>

namespace rocksdb {
class Logger;
}

namespace ttlstore::storage {

// Warnings and errors always; RocksDB's informational lines only when spdlog is at debug.
std::shared_ptr<rocksdb::Logger> NewRocksDbLogger();

}  // namespace ttlstore::storage
