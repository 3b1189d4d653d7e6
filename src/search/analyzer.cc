#include "search/analyzer.h"

#include <algorithm>
#include <cctype>
#include <cstdint>

namespace ttlstore::search {
namespace {

// Reads field `number` of a serialized protobuf message (varint or length-delimited); the
// analyzer parameters are small messages of one or two fields. False if absent or malformed.
bool ReadVarint(std::string_view* in, uint64_t* v) {
  *v = 0;
  for (int shift = 0; shift < 64 && !in->empty(); shift += 7) {
    uint8_t b = static_cast<uint8_t>(in->front());
    in->remove_prefix(1);
    *v |= uint64_t(b & 0x7f) << shift;
    if (!(b & 0x80)) return true;
  }
  return false;
}

bool ProtoField(std::string_view msg, uint32_t number, uint64_t* varint, std::string_view* bytes) {
  while (!msg.empty()) {
    uint64_t key;
    if (!ReadVarint(&msg, &key)) return false;
    uint32_t wire = key & 7, num = uint32_t(key >> 3);
    if (wire == 0) {
      uint64_t v;
      if (!ReadVarint(&msg, &v)) return false;
      if (num == number && varint) { *varint = v; return true; }
    } else if (wire == 2) {
      uint64_t len;
      if (!ReadVarint(&msg, &len) || len > msg.size()) return false;
      if (num == number && bytes) { *bytes = msg.substr(0, len); return true; }
      msg.remove_prefix(len);
    } else if (wire == 5) {
      if (msg.size() < 4) return false;
      msg.remove_prefix(4);
    } else if (wire == 1) {
      if (msg.size() < 8) return false;
      msg.remove_prefix(8);
    } else {
      return false;
    }
  }
  return false;
}

size_t Utf8Len(unsigned char c) {
  if (c < 0x80) return 1;
  if ((c >> 5) == 6) return 2;
  if ((c >> 4) == 14) return 3;
  if ((c >> 3) == 30) return 4;
  return 1;
}

char Lower(char c) { return (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c; }

std::vector<std::string> Words(std::string_view text, bool lower, bool cjk_single) {
  std::vector<std::string> out;
  std::string cur;
  auto flush = [&] {
    if (!cur.empty() && out.size() < kMaxWordsPerValue) out.push_back(std::move(cur));
    cur.clear();
  };
  for (size_t i = 0; i < text.size();) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    size_t n = std::min(Utf8Len(c), text.size() - i);
    if (c >= 0x80) {
      if (cjk_single) {
        flush();
        cur.assign(text.substr(i, n));
        flush();
      } else {
        cur.append(text.substr(i, n));
      }
    } else if (std::isalnum(c)) {
      cur.push_back(lower ? Lower(char(c)) : char(c));
    } else {
      flush();
    }
    i += n;
  }
  flush();
  return out;
}

std::vector<std::string> Chars(std::string_view text) {
  std::vector<std::string> out;
  for (size_t i = 0; i < text.size();) {
    size_t n = std::min(Utf8Len(static_cast<unsigned char>(text[i])), text.size() - i);
    std::string ch(text.substr(i, n));
    if (n == 1) ch[0] = Lower(ch[0]);
    out.push_back(std::move(ch));
    i += n;
  }
  return out;
}

void FuzzyBounds(const model::SearchField& f, size_t* min_chars, size_t* max_chars) {
  *min_chars = 1;
  *max_chars = 7;
  uint64_t v;
  if (ProtoField(f.analyzer_parameter, 1, &v, nullptr) && v >= 1 && v <= 100) *min_chars = v;
  if (ProtoField(f.analyzer_parameter, 2, &v, nullptr) && v >= 1 && v <= 100) *max_chars = v;
  if (*max_chars < *min_chars) *max_chars = *min_chars;
}

}  // namespace

bool IsFuzzy(const model::SearchField& field) { return field.analyzer == "fuzzy"; }

std::vector<std::string> FuzzyQueryWords(const model::SearchField& field,
                                         std::string_view text) {
  size_t lo, hi;
  FuzzyBounds(field, &lo, &hi);
  std::vector<std::string> chars = Chars(text);
  std::vector<std::string> out;
  if (chars.empty()) return out;
  size_t n = std::min(hi, chars.size());
  for (size_t i = 0; i + n <= chars.size() && out.size() < kMaxWordsPerValue; ++i) {
    std::string gram;
    for (size_t j = 0; j < n; ++j) gram += chars[i + j];
    out.push_back(std::move(gram));
  }
  return out;
}

std::vector<std::string> AnalyzeText(const model::SearchField& field, std::string_view text) {
  const std::string& a = field.analyzer;
  if (a == "split") {
    std::string_view delim;
    bool has = ProtoField(field.analyzer_parameter, 1, nullptr, &delim) && !delim.empty();
    std::vector<std::string> out;
    size_t start = 0;
    while (start <= text.size() && out.size() < kMaxWordsPerValue) {
      size_t end;
      size_t skip;
      if (has) {
        end = text.find(delim, start);
        skip = delim.size();
      } else {
        end = text.find_first_of(" \t\r\n", start);
        skip = 1;
      }
      if (end == std::string_view::npos) end = text.size();
      std::string w(text.substr(start, end - start));
      for (char& c : w) c = Lower(c);
      if (!w.empty()) out.push_back(std::move(w));
      start = end + skip;
    }
    return out;
  }
  if (a == "fuzzy") {
    size_t lo, hi;
    FuzzyBounds(field, &lo, &hi);
    std::vector<std::string> chars = Chars(text);
    std::vector<std::string> out;
    for (size_t i = 0; i < chars.size() && out.size() < kMaxWordsPerValue; ++i) {
      std::string gram;
      for (size_t n = 1; n <= hi && i + n <= chars.size(); ++n) {
        gram += chars[i + n - 1];
        if (n >= lo) out.push_back(gram);
      }
    }
    return out;
  }
  if (a == "min_word" || a == "max_word") return Words(text, true, true);
  // single_word (and the default): SingleWordAnalyzerParameter.case_sensitive is field 1.
  uint64_t case_sensitive = 0;
  ProtoField(field.analyzer_parameter, 1, &case_sensitive, nullptr);
  return Words(text, case_sensitive == 0, false);
}

}  // namespace ttlstore::search
