#include "search/json_doc.h"

#include <charconv>
#include <cmath>

namespace ttlstore::search {
namespace {

class Parser {
 public:
  explicit Parser(std::string_view in) : in_(in) {}

  bool Parse(JsonValue* out) {
    if (!Value(out, 0)) return false;
    Ws();
    return i_ == in_.size();
  }

 private:
  void Ws() {
    while (i_ < in_.size() &&
           (in_[i_] == ' ' || in_[i_] == '\t' || in_[i_] == '\n' || in_[i_] == '\r')) {
      ++i_;
    }
  }
  bool Literal(std::string_view word) {
    if (in_.substr(i_, word.size()) != word) return false;
    i_ += word.size();
    return true;
  }
  static void PutUtf8(uint32_t cp, std::string* s) {
    if (cp < 0x80) {
      s->push_back(char(cp));
    } else if (cp < 0x800) {
      s->push_back(char(0xC0 | (cp >> 6)));
      s->push_back(char(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      s->push_back(char(0xE0 | (cp >> 12)));
      s->push_back(char(0x80 | ((cp >> 6) & 0x3F)));
      s->push_back(char(0x80 | (cp & 0x3F)));
    } else {
      s->push_back(char(0xF0 | (cp >> 18)));
      s->push_back(char(0x80 | ((cp >> 12) & 0x3F)));
      s->push_back(char(0x80 | ((cp >> 6) & 0x3F)));
      s->push_back(char(0x80 | (cp & 0x3F)));
    }
  }
  bool Hex4(uint32_t* cp) {
    if (i_ + 4 > in_.size()) return false;
    uint32_t v = 0;
    for (int k = 0; k < 4; ++k) {
      char c = in_[i_++];
      v <<= 4;
      if (c >= '0' && c <= '9') v |= uint32_t(c - '0');
      else if (c >= 'a' && c <= 'f') v |= uint32_t(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') v |= uint32_t(c - 'A' + 10);
      else return false;
    }
    *cp = v;
    return true;
  }
  bool String(std::string* s) {
    ++i_;  // the opening quote
    while (i_ < in_.size()) {
      char c = in_[i_++];
      if (c == '"') return true;
      if (static_cast<unsigned char>(c) < 0x20) return false;
      if (c != '\\') {
        s->push_back(c);
        continue;
      }
      if (i_ >= in_.size()) return false;
      char e = in_[i_++];
      switch (e) {
        case '"': s->push_back('"'); break;
        case '\\': s->push_back('\\'); break;
        case '/': s->push_back('/'); break;
        case 'b': s->push_back('\b'); break;
        case 'f': s->push_back('\f'); break;
        case 'n': s->push_back('\n'); break;
        case 'r': s->push_back('\r'); break;
        case 't': s->push_back('\t'); break;
        case 'u': {
          uint32_t cp;
          if (!Hex4(&cp)) return false;
          if (cp >= 0xD800 && cp < 0xDC00) {  // a high surrogate: its low half must follow
            uint32_t lo;
            if (!Literal("\\u") || !Hex4(&lo) || lo < 0xDC00 || lo >= 0xE000) return false;
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          } else if (cp >= 0xDC00 && cp < 0xE000) {
            return false;
          }
          PutUtf8(cp, s);
          break;
        }
        default: return false;
      }
    }
    return false;
  }
  bool Number(JsonValue* out) {
    size_t start = i_;
    bool integral = true;
    if (in_[i_] == '-') ++i_;
    size_t digits = 0;
    while (i_ < in_.size() && std::isdigit(static_cast<unsigned char>(in_[i_]))) ++i_, ++digits;
    if (digits == 0) return false;
    if (i_ < in_.size() && in_[i_] == '.') {
      integral = false;
      ++i_;
      size_t frac = 0;
      while (i_ < in_.size() && std::isdigit(static_cast<unsigned char>(in_[i_]))) ++i_, ++frac;
      if (frac == 0) return false;
    }
    if (i_ < in_.size() && (in_[i_] == 'e' || in_[i_] == 'E')) {
      integral = false;
      ++i_;
      if (i_ < in_.size() && (in_[i_] == '+' || in_[i_] == '-')) ++i_;
      size_t exp = 0;
      while (i_ < in_.size() && std::isdigit(static_cast<unsigned char>(in_[i_]))) ++i_, ++exp;
      if (exp == 0) return false;
    }
    std::string_view text = in_.substr(start, i_ - start);
    if (integral) {
      int64_t v = 0;
      auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
      if (ec == std::errc() && end == text.data() + text.size()) {
        out->type = JsonValue::Type::kInt;
        out->integer = v;
        out->number = double(v);
        return true;
      }
    }
    double d = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), d);
    if (ec != std::errc() || end != text.data() + text.size()) return false;
    if (!std::isfinite(d)) return false;
    out->type = JsonValue::Type::kDouble;
    out->number = d;
    return true;
  }
  bool Value(JsonValue* out, int depth) {
    if (depth > kMaxJsonDepth || ++values_ > kMaxJsonValues) return false;
    Ws();
    if (i_ >= in_.size()) return false;
    char c = in_[i_];
    switch (c) {
      case '{': {
        out->type = JsonValue::Type::kObject;
        ++i_;
        Ws();
        if (i_ < in_.size() && in_[i_] == '}') {
          ++i_;
          return true;
        }
        while (true) {
          Ws();
          if (i_ >= in_.size() || in_[i_] != '"') return false;
          std::string name;
          if (!String(&name)) return false;
          Ws();
          if (i_ >= in_.size() || in_[i_] != ':') return false;
          ++i_;
          out->members.emplace_back(std::move(name), JsonValue());
          if (!Value(&out->members.back().second, depth + 1)) return false;
          Ws();
          if (i_ < in_.size() && in_[i_] == ',') {
            ++i_;
            continue;
          }
          if (i_ < in_.size() && in_[i_] == '}') {
            ++i_;
            return true;
          }
          return false;
        }
      }
      case '[': {
        out->type = JsonValue::Type::kArray;
        ++i_;
        Ws();
        if (i_ < in_.size() && in_[i_] == ']') {
          ++i_;
          return true;
        }
        while (true) {
          out->items.emplace_back();
          if (!Value(&out->items.back(), depth + 1)) return false;
          Ws();
          if (i_ < in_.size() && in_[i_] == ',') {
            ++i_;
            continue;
          }
          if (i_ < in_.size() && in_[i_] == ']') {
            ++i_;
            return true;
          }
          return false;
        }
      }
      case '"':
        out->type = JsonValue::Type::kString;
        return String(&out->text);
      case 't':
        out->type = JsonValue::Type::kBool;
        out->boolean = true;
        return Literal("true");
      case 'f':
        out->type = JsonValue::Type::kBool;
        return Literal("false");
      case 'n':
        out->type = JsonValue::Type::kNull;
        return Literal("null");
      default:
        if (c == '-' || (c >= '0' && c <= '9')) return Number(out);
        return false;
    }
  }

  std::string_view in_;
  size_t i_ = 0;
  size_t values_ = 0;
};

}  // namespace

const JsonValue* JsonValue::Find(std::string_view name) const {
  for (const auto& [k, v] : members) {
    if (k == name) return &v;
  }
  return nullptr;
}

bool ParseJson(std::string_view text, JsonValue* out) {
  if (text.size() > kMaxJsonBytes) return false;
  *out = JsonValue();
  Parser p(text);
  return p.Parse(out);
}

}  // namespace ttlstore::search
