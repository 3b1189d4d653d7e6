#include "backup/record_file.h"

#include <filesystem>

#include "dataio/export_files.h"

namespace ttlstore::backup {
namespace fs = std::filesystem;

std::string EscapeRecordValue(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string UnescapeRecordValue(std::string_view v) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i] == '\\' && i + 1 < v.size()) {
      out += v[i + 1] == 'n' ? '\n' : v[i + 1];
      ++i;
    } else {
      out += v[i];
    }
  }
  return out;
}

Status SaveRecordFile(const std::string& dir, const std::string& name, const std::string& text) {
  fs::path path = fs::path(dir) / name;
  fs::path tmp = path;
  tmp += ".tmp";
  RETURN_IF_ERROR(dataio::WriteFileDurably(tmp.string(), text));
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) return Error::Internal("cannot rename " + tmp.string() + ": " + ec.message());
  return Status::Ok();
}

}  // namespace ttlstore::backup
