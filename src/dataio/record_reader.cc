#include "dataio/record_reader.h"

namespace ttlstore::dataio {
namespace {

Error TooLong(uint64_t line) {
  return Error::Validation("the record at line " + std::to_string(line) + " is longer than " +
                           std::to_string(kMaxRecordBytes) + " bytes");
}

}  // namespace

Result<std::optional<char>> RecordReader::Get() {
  if (pos_ == len_) {
    if (eof_) return std::optional<char>();
    auto n = in_->Read(buf_.data(), buf_.size());
    if (!n) return std::move(n).error();
    pos_ = 0;
    len_ = *n;
    if (len_ == 0) {
      eof_ = true;
      return std::optional<char>();
    }
  }
  ++bytes_;
  return std::optional<char>(buf_[pos_++]);
}

Result<std::optional<std::string>> RecordReader::NextLine() {
  std::string line;
  while (true) {
    record_line_ = line_;
    line.clear();
    bool ended = false;
    while (true) {
      auto c = Get();
      if (!c) return std::move(c).error();
      if (!*c) {
        ended = true;
        break;
      }
      if (**c == '\n') {
        ++line_;
        break;
      }
      if (line.size() >= kMaxRecordBytes) return TooLong(record_line_);
      line += **c;
    }
    if (!line.empty() && line.back() == '\r') line.pop_back();
    bool blank = line.find_first_not_of(" \t\r") == std::string::npos;
    if (!blank) return std::optional<std::string>(std::move(line));
    if (ended) return std::optional<std::string>();
  }
}

Result<std::optional<std::vector<std::string>>> RecordReader::NextCsvRecord(char delimiter) {
  while (true) {
    record_line_ = line_;
    std::vector<std::string> fields(1);
    size_t total = 0;
    bool quoted = false;       // inside a quoted field
    bool after_quote = false;  // a quoted field was closed; only a delimiter or line end may follow
    bool field_started = false;
    bool any = false;
    while (true) {
      auto got = Get();
      if (!got) return std::move(got).error();
      if (!*got) {
        if (quoted) {
          return Error::Validation("line " + std::to_string(record_line_) +
                                   ": a quoted field is not closed before the end of the file");
        }
        if (!any) return std::optional<std::vector<std::string>>();
        break;
      }
      char c = **got;
      any = true;
      if (++total > kMaxRecordBytes) return TooLong(record_line_);
      if (quoted) {
        if (c == '"') {
          quoted = false;
          after_quote = true;
        } else {
          if (c == '\n') ++line_;
          fields.back() += c;
        }
        continue;
      }
      if (after_quote && c == '"') {  // "" inside a quoted field: one quote
        fields.back() += '"';
        quoted = true;
        after_quote = false;
        continue;
      }
      if (c == '\n') {
        ++line_;
        break;
      }
      if (c == '\r') continue;  // CRLF; a lone CR inside a field is dropped too
      if (c == delimiter) {
        fields.emplace_back();
        after_quote = false;
        field_started = false;
        continue;
      }
      if (after_quote) {
        return Error::Validation("line " + std::to_string(record_line_) +
                                 ": unexpected text after a closing quote");
      }
      if (c == '"') {
        if (field_started) {
          return Error::Validation("line " + std::to_string(record_line_) +
                                   ": a quote inside an unquoted field (quotes must be doubled "
                                   "inside a quoted field)");
        }
        quoted = true;
        continue;
      }
      field_started = true;
      fields.back() += c;
    }
    if (fields.size() == 1 && fields[0].empty() && !after_quote) continue;  // blank line
    return std::optional<std::vector<std::string>>(std::move(fields));
  }
}

}  // namespace ttlstore::dataio
