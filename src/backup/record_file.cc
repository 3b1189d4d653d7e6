#include "backup/record_file.h"

#include <filesystem>
#include <fstream>
#include <sstream>

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

Status ForEachRecordFile(const std::string& dir, const std::string& extension,
                         const std::function<Status(const std::string& path,
                                                    const std::string& text)>& each) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Error::Internal("cannot create " + dir + ": " + ec.message());
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".tmp") {
      fs::remove(entry.path(), ec);
      continue;
    }
    if (entry.path().extension() != extension) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    RETURN_IF_ERROR(each(entry.path().string(), text.str()));
  }
  return Status::Ok();
}

}  // namespace ttlstore::backup
