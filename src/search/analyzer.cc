#include "search/analyzer.h"

#include <algorithm>
#include <cctype>
#include <cstdint>

namespace ttlstore::search {
namespace {

// Reads field `number` of a serialized protobuf message (varint or length-delimited); the
// analyzer parameters are small messages of one to three fields. False if absent or malformed.
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

// A bool field of the analyzer parameter (false when absent).
bool FlagOf(const model::SearchField& f, uint32_t number) {
  uint64_t v = 0;
  return ProtoField(f.analyzer_parameter, number, &v, nullptr) && v != 0;
}

// ---- Rules of model::kAnalysisV1 (indexes written before issue 31), unchanged ----------------

size_t Utf8Len(unsigned char c) {
  if (c < 0x80) return 1;
  if ((c >> 5) == 6) return 2;
  if ((c >> 4) == 14) return 3;
  if ((c >> 3) == 30) return 4;
  return 1;
}

char Lower(char c) { return (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c; }

std::vector<std::string> WordsV1(std::string_view text, bool lower, bool cjk_single) {
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

std::vector<std::string> CharsV1(std::string_view text) {
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

// ---- Characters (model::kAnalysisV2) ---------------------------------------------------------

constexpr uint32_t kInvalid = 0xFFFFFFFF;

// The code point at text[*i], advancing *i; kInvalid (one byte consumed) for a malformed,
// overlong or surrogate sequence.
uint32_t NextCodePoint(std::string_view text, size_t* i) {
  unsigned char c = static_cast<unsigned char>(text[*i]);
  size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
  if (n == 0 || *i + n > text.size()) {
    ++*i;
    return kInvalid;
  }
  uint32_t cp = n == 1 ? c : n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
  for (size_t k = 1; k < n; ++k) {
    unsigned char d = static_cast<unsigned char>(text[*i + k]);
    if ((d & 0xC0) != 0x80) {
      ++*i;
      return kInvalid;
    }
    cp = (cp << 6) | (d & 0x3F);
  }
  static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
    ++*i;
    return kInvalid;
  }
  *i += n;
  return cp;
}

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(char(cp));
  } else if (cp < 0x800) {
    out->push_back(char(0xC0 | (cp >> 6)));
    out->push_back(char(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(char(0xE0 | (cp >> 12)));
    out->push_back(char(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(char(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(char(0xF0 | (cp >> 18)));
    out->push_back(char(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(char(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(char(0x80 | (cp & 0x3F)));
  }
}

// Han ideographs (with radicals, compatibility ideographs and the supplementary planes),
// Hiragana, Katakana, Bopomofo and Hangul: one word per character.
bool IsCjk(uint32_t c) {
  return (c >= 0x1100 && c <= 0x11FF) || (c >= 0x2E80 && c <= 0x2FDF) ||
         (c >= 0x3005 && c <= 0x3007) || (c >= 0x3021 && c <= 0x3029) ||
         (c >= 0x3038 && c <= 0x303B) || (c >= 0x3041 && c <= 0x30FF && c != 0x30FB) ||
         (c >= 0x3105 && c <= 0x318F) || (c >= 0x31A0 && c <= 0x31BF) ||
         (c >= 0x31F0 && c <= 0x31FF) || (c >= 0x3400 && c <= 0x4DBF) ||
         (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0xA960 && c <= 0xA97F) ||
         (c >= 0xAC00 && c <= 0xD7FF) || (c >= 0xF900 && c <= 0xFAFF) ||
         (c >= 0xFF66 && c <= 0xFFDC) || (c >= 0x20000 && c <= 0x3FFFF);
}

bool IsDigit(uint32_t c) { return (c >= '0' && c <= '9') || (c >= 0xFF10 && c <= 0xFF19); }

// Spaces, punctuation and symbols: they end a word and are not indexed.
bool IsSeparator(uint32_t c) {
  if (c == kInvalid) return true;
  if (c < 0x80) return !std::isalnum(static_cast<unsigned char>(c));
  return (c <= 0xBF && c != 0xAA && c != 0xB2 && c != 0xB3 && c != 0xB5 && c != 0xB9 &&
          c != 0xBA) ||
         c == 0xD7 || c == 0xF7 || (c >= 0x2000 && c <= 0x2BFF) ||
         (c >= 0x3000 && c <= 0x303F && !IsCjk(c)) || c == 0x30FB ||
         (c >= 0xFE00 && c <= 0xFE6F) || c == 0xFEFF || (c >= 0xFF00 && c <= 0xFF0F) ||
         (c >= 0xFF1A && c <= 0xFF20) || (c >= 0xFF3B && c <= 0xFF40) ||
         (c >= 0xFF5B && c <= 0xFF65) || (c >= 0xFFE0 && c <= 0xFFFF) ||
         (c >= 0x1F000 && c <= 0x1FAFF);
}

// Simple lowercase of the scripts with case most text uses: ASCII, Latin-1, Latin Extended-A,
// Greek, Cyrillic and the fullwidth letters. Other code points are returned unchanged.
uint32_t Lowercase(uint32_t c) {
  if (c >= 'A' && c <= 'Z') return c + 32;
  if (c < 0xC0) return c;
  if (c <= 0xDE) return c == 0xD7 ? c : c + 32;
  if (c >= 0x100 && c <= 0x17F) {
    if (c == 0x130) return 'i';
    if (c == 0x178) return 0xFF;
    bool even = c % 2 == 0;
    if ((c <= 0x137 && c != 0x131 && even) || (c >= 0x14A && c <= 0x177 && even)) return c + 1;
    if (((c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17E)) && !even) return c + 1;
    return c;
  }
  if (c >= 0x391 && c <= 0x3AB && c != 0x3A2) return c + 32;
  if (c >= 0x400 && c <= 0x40F) return c + 80;
  if (c >= 0x410 && c <= 0x42F) return c + 32;
  if (c >= 0xFF21 && c <= 0xFF3A) return c + 32;
  return c;
}

std::string LowercaseText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    size_t at = i;
    uint32_t cp = NextCodePoint(text, &i);
    if (cp == kInvalid) {
      out.append(text.substr(at, i - at));
    } else {
      AppendUtf8(Lowercase(cp), &out);
    }
  }
  return out;
}

// single_word, min_word and max_word under model::kAnalysisV2.
std::vector<Word> WordsV2(std::string_view text, bool lower, bool delimit_word, bool pairs,
                          AnalyzeFor purpose) {
  std::vector<Word> out;
  std::string cur;
  uint32_t cur_start = 0, cur_end = 0;  // the bytes of `cur`
  int cur_digits = -1;  // the current word's class under delimit_word: 0 letters, 1 digits
  uint32_t pos = 0;
  auto push = [&](std::string w, uint32_t at, uint32_t b, uint32_t e) {
    if (out.size() < kMaxWordsPerValue) out.push_back(Word{std::move(w), at, b, e});
  };
  auto flush = [&] {
    if (!cur.empty()) push(std::move(cur), pos++, cur_start, cur_end);
    cur.clear();
    cur_digits = -1;
  };
  // The CJK run being read: its characters and their bytes, for max_word's pairs.
  std::vector<std::string> run;
  std::vector<std::pair<uint32_t, uint32_t>> run_bytes;
  uint32_t run_start = 0;
  auto end_run = [&] {
    if (run.empty()) return;
    bool query_pairs = pairs && purpose == AnalyzeFor::kQuery && run.size() >= 2;
    for (size_t k = 0; k < run.size(); ++k) {
      uint32_t at = run_start + uint32_t(k);
      if (!query_pairs) push(run[k], at, run_bytes[k].first, run_bytes[k].second);
      if (pairs && k + 1 < run.size()) {
        push(run[k] + run[k + 1], at, run_bytes[k].first, run_bytes[k + 1].second);
      }
    }
    run.clear();
    run_bytes.clear();
  };
  for (size_t i = 0; i < text.size() && out.size() < kMaxWordsPerValue;) {
    uint32_t from = uint32_t(i);
    uint32_t cp = NextCodePoint(text, &i);
    if (cp != kInvalid && IsCjk(cp)) {
      flush();
      if (run.empty()) run_start = pos;
      std::string ch;
      AppendUtf8(cp, &ch);
      run.push_back(std::move(ch));
      run_bytes.emplace_back(from, uint32_t(i));
      ++pos;
      continue;
    }
    end_run();
    if (IsSeparator(cp)) {
      flush();
      continue;
    }
    int digits = IsDigit(cp) ? 1 : 0;
    if (delimit_word && cur_digits >= 0 && digits != cur_digits) flush();
    cur_digits = digits;
    if (cur.empty()) cur_start = from;
    cur_end = uint32_t(i);
    AppendUtf8(lower ? Lowercase(cp) : cp, &cur);
  }
  end_run();
  flush();
  return out;  // in position order: a pair follows the character it starts at
}

std::vector<Word> Numbered(std::vector<std::string> words) {
  std::vector<Word> out;
  out.reserve(words.size());
  for (auto& w : words) {
    uint32_t at = uint32_t(out.size());
    out.push_back(Word{std::move(w), at});
  }
  return out;
}

std::vector<Word> Split(const model::SearchField& field, std::string_view text, uint32_t analysis) {
  std::string_view delim;
  bool has = ProtoField(field.analyzer_parameter, 1, nullptr, &delim) && !delim.empty();
  bool v2 = analysis >= model::kAnalysisV2;
  // The service's pages: a special character is written escaped ("\#" splits at "#").
  if (v2 && has && delim.size() >= 2 && delim[0] == '\\') delim.remove_prefix(1);
  bool lower = !(v2 && FlagOf(field, 2));  // SplitAnalyzerParameter.case_sensitive
  std::vector<Word> out;
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
    std::string_view w = text.substr(start, end - start);
    if (!w.empty()) {
      std::string word;
      if (!lower) {
        word.assign(w);
      } else if (v2) {
        word = LowercaseText(w);
      } else {
        word.assign(w);
        for (char& c : word) c = Lower(c);
      }
      uint32_t at = uint32_t(out.size());
      out.push_back(Word{std::move(word), at, uint32_t(start), uint32_t(end)});
    }
    start = end + skip;
  }
  return out;
}

// The characters fuzzy cuts into n-grams: the first kFuzzyMaxChars, lowercased unless
// FuzzyAnalyzerParameter.case_sensitive (field 3).
// With `bytes`, also where each character starts in `text`, and where the last one ends.
std::vector<std::string> FuzzyChars(const model::SearchField& f, std::string_view text,
                                    uint32_t analysis, std::vector<uint32_t>* bytes = nullptr) {
  if (analysis < model::kAnalysisV2) return CharsV1(text);
  bool lower = !FlagOf(f, 3);
  std::vector<std::string> out;
  size_t i = 0;
  while (i < text.size() && out.size() < kFuzzyMaxChars) {
    size_t at = i;
    if (bytes) bytes->push_back(uint32_t(at));
    uint32_t cp = NextCodePoint(text, &i);
    if (cp == kInvalid) {
      out.emplace_back(text.substr(at, i - at));
      continue;
    }
    std::string ch;
    AppendUtf8(lower ? Lowercase(cp) : cp, &ch);
    out.push_back(std::move(ch));
  }
  if (bytes) bytes->push_back(uint32_t(i));
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

std::vector<std::string> FuzzyQueryWords(const model::SearchField& field, std::string_view text,
                                         uint32_t analysis) {
  size_t lo, hi;
  FuzzyBounds(field, &lo, &hi);
  std::vector<std::string> chars = FuzzyChars(field, text, analysis);
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

std::vector<Word> AnalyzeText(const model::SearchField& field, std::string_view text,
                              uint32_t analysis, AnalyzeFor purpose) {
  const std::string& a = field.analyzer;
  bool v2 = analysis >= model::kAnalysisV2;
  if (a == "split") return Split(field, text, analysis);
  if (a == "fuzzy") {
    size_t lo, hi;
    FuzzyBounds(field, &lo, &hi);
    std::vector<uint32_t> bytes;
    std::vector<std::string> chars = FuzzyChars(field, text, analysis, &bytes);
    bool offsets = bytes.size() == chars.size() + 1;  // not under kAnalysisV1
    std::vector<Word> out;
    for (size_t i = 0; i < chars.size() && out.size() < kMaxWordsPerValue; ++i) {
      std::string gram;
      for (size_t n = 1; n <= hi && i + n <= chars.size(); ++n) {
        gram += chars[i + n - 1];
        if (n < lo) continue;
        uint32_t at = uint32_t(out.size());
        out.push_back(offsets ? Word{gram, at, bytes[i], bytes[i + n]} : Word{gram, at});
      }
    }
    return out;
  }
  if (a == "min_word" || a == "max_word") {
    if (!v2) return Numbered(WordsV1(text, true, true));
    return WordsV2(text, true, false, a == "max_word", purpose);
  }
  // single_word (and the default): SingleWordAnalyzerParameter case_sensitive is field 1,
  // delimit_word field 2.
  bool case_sensitive = FlagOf(field, 1);
  if (!v2) return Numbered(WordsV1(text, !case_sensitive, false));
  return WordsV2(text, !case_sensitive, FlagOf(field, 2), false, purpose);
}

}  // namespace ttlstore::search
