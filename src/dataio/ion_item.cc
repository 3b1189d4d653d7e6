#include "dataio/ion_item.h"

#include <algorithm>
#include <cstdint>

#include "common/base64.h"
#include "common/utf8.h"
#include "model/number.h"

namespace ttlstore::dataio {
namespace {

using model::AttributeValue;
using model::ValueType;

// DynamoDB's nesting limit: the attribute itself and 31 containers inside it.
constexpr int kMaxDepth = 32;
constexpr size_t kMaxAttributeNameBytes = 65535;

bool IsIdentStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$';
}
bool IsIdentChar(char c) { return IsIdentStart(c) || (c >= '0' && c <= '9'); }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

class IonReader {
 public:
  explicit IonReader(std::string_view text) : s_(text) {}

  Result<model::Item> Line() {
    if (auto st = SkipSpace(); !st) return std::move(st).error();
    if (s_.substr(pos_, 8) == "$ion_1_0" && (pos_ + 8 == s_.size() || !IsIdentChar(s_[pos_ + 8]))) {
      pos_ += 8;
      if (auto st = SkipSpace(); !st) return std::move(st).error();
    }
    if (Peek() != '{') return Fail("expected a struct holding the item");
    std::optional<model::Map> item;
    auto st = Struct(1, [&](std::string name) -> Status {
      if (name != "Item") return Fail("unexpected field '" + name + "' (only Item is read)");
      if (Peek() != '{' || PeekAt(1) == '{') return Fail("the Item field must be a struct");
      auto map = StructValue(1);
      if (!map) return std::move(map).error();
      item = std::move(*map);
      return Status::Ok();
    });
    if (!st) return std::move(st).error();
    if (auto sp = SkipSpace(); !sp) return std::move(sp).error();
    if (pos_ != s_.size()) return Fail("unexpected text after the item");
    if (!item) return Fail("the line has no Item field");
    return std::move(*item);
  }

 private:
  char Peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  char PeekAt(size_t k) const { return pos_ + k < s_.size() ? s_[pos_ + k] : '\0'; }

  Error Fail(const std::string& what) const {
    return Error::Validation("Invalid Ion at byte " + std::to_string(pos_) + ": " + what);
  }

  // Whitespace and comments.
  Status SkipSpace() {
    while (pos_ < s_.size()) {
      char c = s_[pos_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f') {
        ++pos_;
      } else if (c == '/' && PeekAt(1) == '/') {
        while (pos_ < s_.size() && s_[pos_] != '\n') ++pos_;
      } else if (c == '/' && PeekAt(1) == '*') {
        size_t end = s_.find("*/", pos_ + 2);
        if (end == std::string_view::npos) return Fail("unterminated comment");
        pos_ = end + 2;
      } else {
        break;
      }
    }
    return Status::Ok();
  }

  std::string_view Identifier() {
    size_t start = pos_;
    while (pos_ < s_.size() && IsIdentChar(s_[pos_])) ++pos_;
    return s_.substr(start, pos_ - start);
  }

  // A struct: `{` name `:` value (`,` name `:` value)* `,`? `}`; `field` reads each value.
  template <typename Field>
  Status Struct(int depth, Field field) {
    ++pos_;  // {
    while (true) {
      if (auto st = SkipSpace(); !st) return st;
      if (Peek() == '}') {
        ++pos_;
        return Status::Ok();
      }
      auto name = FieldName();
      if (!name) return std::move(name).error();
      if (auto st = SkipSpace(); !st) return st;
      if (Peek() != ':' || PeekAt(1) == ':') return Fail("expected ':' after a field name");
      ++pos_;
      if (auto st = SkipSpace(); !st) return st;
      if (auto st = field(std::move(*name)); !st) return st;
      if (auto st = SkipSpace(); !st) return st;
      if (Peek() == ',') {
        ++pos_;
      } else if (Peek() != '}') {
        return Fail("expected ',' or '}' in a struct");
      }
    }
  }

  Result<std::string> FieldName() {
    char c = Peek();
    if (c == '"' || c == '\'') return Text(/*symbol_ok=*/true);
    if (IsIdentStart(c)) return std::string(Identifier());
    return Fail("expected a field name");
  }

  Result<model::Map> StructValue(int depth) {
    if (depth > kMaxDepth) {
      return Fail("nesting levels have exceeded supported limits (32)");
    }
    model::Map map;
    auto st = Struct(depth, [&](std::string name) -> Status {
      if (name.empty()) return Fail("empty attribute name");
      if (name.size() > kMaxAttributeNameBytes) return Fail("attribute name longer than 65535 bytes");
      auto v = Value(depth);
      if (!v) return std::move(v).error();
      map.insert_or_assign(std::move(name), std::move(*v));
      return Status::Ok();
    });
    if (!st) return std::move(st).error();
    return map;
  }

  // One value at nesting `depth` (the attribute itself is 1).
  Result<AttributeValue> Value(int depth) {
    std::optional<ValueType> set_type;
    // Annotations: `name::` before the value; only the three set annotations are known.
    while (true) {
      size_t start = pos_;
      std::string annotation;
      if (IsIdentStart(Peek())) {
        annotation = std::string(Identifier());
      } else if (Peek() == '\'' && PeekAt(1) != '\'') {
        auto t = Text(true);
        if (!t) return std::move(t).error();
        annotation = std::move(*t);
      } else {
        break;
      }
      if (auto st = SkipSpace(); !st) return std::move(st).error();
      if (Peek() != ':' || PeekAt(1) != ':') {
        pos_ = start;
        break;
      }
      pos_ += 2;
      if (auto st = SkipSpace(); !st) return std::move(st).error();
      if (set_type) return Fail("more than one annotation on a value");
      if (annotation == "$dynamodb_SS") {
        set_type = ValueType::kSS;
      } else if (annotation == "$dynamodb_NS") {
        set_type = ValueType::kNS;
      } else if (annotation == "$dynamodb_BS") {
        set_type = ValueType::kBS;
      } else {
        return Fail("unknown annotation '" + annotation + "'");
      }
    }
    if (set_type) {
      if (Peek() != '[') return Fail("a set annotation must annotate a list");
      return Set(*set_type);
    }
    char c = Peek();
    if (c == '{' && PeekAt(1) == '{') {
      auto bytes = Lob();
      if (!bytes) return std::move(bytes).error();
      return AttributeValue::Binary(std::move(*bytes));
    }
    if (c == '{') {
      auto map = StructValue(depth + 1);
      if (!map) return std::move(map).error();
      return AttributeValue::OfMap(std::move(*map));
    }
    if (c == '[') return ListValue(depth + 1);
    if (c == '(') return Fail("s-expressions have no DynamoDB type");
    if (c == '"' || (c == '\'' && PeekAt(1) == '\'' && PeekAt(2) == '\'')) {
      auto t = Text(false);
      if (!t) return std::move(t).error();
      return AttributeValue::String(std::move(*t));
    }
    if (c == '\'') return Fail("symbols have no DynamoDB type");
    if (IsDigit(c) || c == '-' || c == '+' || c == '.') {
      auto n = NumberText();
      if (!n) return std::move(n).error();
      return AttributeValue::Num(std::move(*n));
    }
    if (IsIdentStart(c)) {
      std::string_view word = Identifier();
      if (word == "true") return AttributeValue::Bool(true);
      if (word == "false") return AttributeValue::Bool(false);
      if (word == "null") {
        if (Peek() == '.') {  // typed null: null.string, null.struct, ...
          ++pos_;
          if (Identifier().empty()) return Fail("expected a type after 'null.'");
        }
        return AttributeValue::Null();
      }
      if (word == "nan") return Fail("nan is not a DynamoDB number");
      return Fail("symbols have no DynamoDB type ('" + std::string(word) + "')");
    }
    return Fail("expected a value");
  }

  // `[` value (`,` value)* `,`? `]`, calling `element` at each value.
  template <typename Element>
  Status Sequence(Element element) {
    ++pos_;  // [
    while (true) {
      if (auto st = SkipSpace(); !st) return st;
      if (Peek() == ']') {
        ++pos_;
        return Status::Ok();
      }
      if (auto st = element(); !st) return st;
      if (auto st = SkipSpace(); !st) return st;
      if (Peek() == ',') {
        ++pos_;
      } else if (Peek() != ']') {
        return Fail("expected ',' or ']' in a list");
      }
    }
  }

  Result<AttributeValue> ListValue(int depth) {
    if (depth > kMaxDepth) return Fail("nesting levels have exceeded supported limits (32)");
    model::List list;
    auto st = Sequence([&]() -> Status {
      auto v = Value(depth);
      if (!v) return std::move(v).error();
      list.push_back(std::move(*v));
      return Status::Ok();
    });
    if (!st) return std::move(st).error();
    return AttributeValue::OfList(std::move(list));
  }

  Result<AttributeValue> Set(ValueType type) {
    std::vector<std::string> members;
    auto st = Sequence([&]() -> Status {
      char c = Peek();
      if (type == ValueType::kSS) {
        if (c != '"' && c != '\'') return Fail("a $dynamodb_SS member must be a string");
        auto t = Text(false);
        if (!t) return std::move(t).error();
        members.push_back(std::move(*t));
      } else if (type == ValueType::kNS) {
        if (!IsDigit(c) && c != '-' && c != '+' && c != '.') {
          return Fail("a $dynamodb_NS member must be a number");
        }
        auto n = NumberText();
        if (!n) return std::move(n).error();
        members.push_back(std::move(*n));
      } else {
        if (c != '{' || PeekAt(1) != '{') return Fail("a $dynamodb_BS member must be a blob");
        auto b = Lob();
        if (!b) return std::move(b).error();
        members.push_back(std::move(*b));
      }
      return Status::Ok();
    });
    if (!st) return std::move(st).error();
    if (members.empty()) return Fail("a set may not be empty");
    std::vector<std::string> sorted = members;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
      return Fail("a set contains duplicates");
    }
    return AttributeValue::Set(type, std::move(members));
  }

  // A number token: decimal, float or int (decimal, 0x hex, 0b binary, `_` between digits), as
  // DynamoDB's canonical number text.
  Result<std::string> NumberText() {
    size_t start = pos_;
    while (pos_ < s_.size()) {
      char c = s_[pos_];
      if (IsIdentChar(c) || c == '.' || c == '+' || c == '-' || c == ':') {
        ++pos_;
      } else {
        break;
      }
    }
    std::string_view token = s_.substr(start, pos_ - start);
    if (token == "+inf" || token == "-inf") return Fail("infinities are not DynamoDB numbers");
    bool negative = !token.empty() && token[0] == '-';
    std::string_view body = negative ? token.substr(1) : token;
    if (body.size() > 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X' || body[1] == 'b' ||
                                              body[1] == 'B')) {
      const int base = (body[1] == 'x' || body[1] == 'X') ? 16 : 2;
      // Exact for any length: multiply-and-add over a decimal digit string.
      std::string digits = "0";
      for (char c : body.substr(2)) {
        if (c == '_') continue;
        int d = base == 16 ? HexValue(c) : (c == '0' || c == '1' ? c - '0' : -1);
        if (d < 0) return Fail("malformed integer '" + std::string(token) + "'");
        int carry = d;
        for (auto it = digits.rbegin(); it != digits.rend(); ++it) {
          int v = (*it - '0') * base + carry;
          *it = static_cast<char>('0' + v % 10);
          carry = v / 10;
        }
        while (carry > 0) {
          digits.insert(digits.begin(), static_cast<char>('0' + carry % 10));
          carry /= 10;
        }
        if (digits.size() > 200) return Fail("integer '" + std::string(token) + "' is too large");
      }
      return Canonical((negative ? "-" : "") + digits, token);
    }
    std::string text;
    text.reserve(token.size());
    for (size_t i = 0; i < token.size(); ++i) {
      char c = token[i];
      if (c == '_') {
        if (i == 0 || i + 1 == token.size() || !IsDigit(token[i - 1]) || !IsDigit(token[i + 1])) {
          return Fail("malformed number '" + std::string(token) + "'");
        }
        continue;
      }
      if (c == 'T' || c == ':' || (c == '-' && i > 0 && token[i - 1] != 'e' && token[i - 1] != 'E' &&
                                   token[i - 1] != 'd' && token[i - 1] != 'D')) {
        return Fail("timestamps have no DynamoDB type ('" + std::string(token) + "')");
      }
      text += (c == 'd' || c == 'D') ? 'e' : c;
    }
    return Canonical(text, token);
  }

  Result<std::string> Canonical(const std::string& text, std::string_view token) {
    auto n = model::Number::Parse(text);
    if (!n) {
      return Error::Validation("Invalid Ion at byte " + std::to_string(pos_) + ": number '" +
                               std::string(token) + "': " + n.error().message());
    }
    return n->ToString();
  }

  // A string ("..." or one or more '''...''' pieces), or with `symbol_ok` a 'quoted symbol';
  // escapes decoded, checked to be UTF-8.
  Result<std::string> Text(bool symbol_ok) {
    std::string out;
    if (Peek() == '"') {
      ++pos_;
      if (auto st = Escaped('"', /*newlines=*/false, out); !st) return std::move(st).error();
    } else if (Peek() == '\'' && PeekAt(1) == '\'' && PeekAt(2) == '\'') {
      while (Peek() == '\'' && PeekAt(1) == '\'' && PeekAt(2) == '\'') {
        pos_ += 3;
        if (auto st = Escaped('\'', /*newlines=*/true, out); !st) return std::move(st).error();
        size_t after = pos_;
        if (auto st = SkipSpace(); !st) return std::move(st).error();
        if (!(Peek() == '\'' && PeekAt(1) == '\'' && PeekAt(2) == '\'')) {
          pos_ = after;
          break;
        }
      }
    } else if (Peek() == '\'' && symbol_ok) {
      ++pos_;
      if (auto st = Escaped('\'', false, out); !st) return std::move(st).error();
    } else {
      return Fail("expected a string");
    }
    if (!IsValidUtf8(out)) return Fail("a string is not valid UTF-8");
    return out;
  }

  // Reads up to the closing quote (for ''' strings: three quotes) and decodes the escapes.
  Status Escaped(char quote, bool long_string, std::string& out) {
    while (true) {
      if (pos_ >= s_.size()) return Fail("unterminated string");
      char c = s_[pos_];
      if (c == quote) {
        if (!long_string) {
          ++pos_;
          return Status::Ok();
        }
        if (PeekAt(1) == '\'' && PeekAt(2) == '\'') {
          pos_ += 3;
          return Status::Ok();
        }
      }
      if ((c == '\n' || c == '\r') && !long_string) return Fail("a newline inside a string");
      if (c != '\\') {
        out += c;
        ++pos_;
        continue;
      }
      char e = PeekAt(1);
      pos_ += 2;
      switch (e) {
        case 'a': out += '\a'; break;
        case 'b': out += '\b'; break;
        case 't': out += '\t'; break;
        case 'n': out += '\n'; break;
        case 'f': out += '\f'; break;
        case 'r': out += '\r'; break;
        case 'v': out += '\v'; break;
        case '0': out += '\0'; break;
        case '?': case '/': case '\'': case '"': case '\\': out += e; break;
        case '\n': break;  // an escaped newline continues the string
        case 'x': case 'u': case 'U': {
          const int len = e == 'x' ? 2 : e == 'u' ? 4 : 8;
          auto cp = HexDigits(len);
          if (!cp) return std::move(cp).error();
          uint32_t code = *cp;
          if (e == 'u' && code >= 0xD800 && code <= 0xDBFF && PeekAt(0) == '\\' && PeekAt(1) == 'u') {
            pos_ += 2;
            auto low = HexDigits(4);
            if (!low) return std::move(low).error();
            if (*low < 0xDC00 || *low > 0xDFFF) return Fail("unpaired surrogate in a string");
            code = 0x10000 + ((code - 0xD800) << 10) + (*low - 0xDC00);
          }
          if (code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) {
            return Fail("invalid code point in a string escape");
          }
          AppendUtf8(out, code);
          break;
        }
        default:
          return Fail("unknown escape in a string");
      }
    }
  }

  Result<uint32_t> HexDigits(int len) {
    uint32_t v = 0;
    for (int i = 0; i < len; ++i) {
      int d = HexValue(Peek());
      if (d < 0) return Fail("malformed escape in a string");
      v = v * 16 + static_cast<uint32_t>(d);
      ++pos_;
    }
    return v;
  }

  // {{ base64 }} (a blob) or {{ "text" }} (a clob), as bytes.
  Result<std::string> Lob() {
    pos_ += 2;
    if (auto st = SkipSpace(); !st) return std::move(st).error();
    std::string bytes;
    if (Peek() == '"' || Peek() == '\'') {
      auto t = Text(false);
      if (!t) return std::move(t).error();
      bytes = std::move(*t);
      if (auto st = SkipSpace(); !st) return std::move(st).error();
    } else {
      std::string b64;
      while (pos_ < s_.size() && s_[pos_] != '}') {
        char c = s_[pos_++];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f') continue;
        b64 += c;
      }
      auto decoded = Base64Decode(b64);
      if (!decoded) return Fail("a blob is not valid base64");
      bytes = std::move(*decoded);
    }
    if (Peek() != '}' || PeekAt(1) != '}') return Fail("expected '}}' after a blob");
    pos_ += 2;
    return bytes;
  }

  std::string_view s_;
  size_t pos_ = 0;
};

// Writing.
bool PlainName(const std::string& name) {
  if (name.empty() || !IsIdentStart(name[0]) || name[0] == '$') return false;
  if (name == "null" || name == "true" || name == "false" || name == "nan") return false;
  return std::all_of(name.begin(), name.end(), IsIdentChar);
}

void WriteText(std::string& out, const std::string& s) {
  out += '"';
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20 || u == 0x7F) {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    } else {
      out += c;
    }
  }
  out += '"';
}

void WriteNumber(std::string& out, const std::string& canonical) {
  out += canonical;
  // Without a point Ion reads an int, which DynamoDB would also take; the exporter writes
  // decimals, so does this.
  if (canonical.find('.') == std::string::npos) out += '.';
}

void WriteValue(std::string& out, const AttributeValue& v);

void WriteMap(std::string& out, const model::Map& map) {
  out += '{';
  bool first = true;
  for (const auto& [name, value] : map) {
    if (!first) out += ',';
    first = false;
    if (PlainName(name)) {
      out += name;
    } else {
      WriteText(out, name);
    }
    out += ':';
    WriteValue(out, value);
  }
  out += '}';
}

void WriteValue(std::string& out, const AttributeValue& v) {
  switch (v.type()) {
    case ValueType::kS: WriteText(out, v.scalar()); break;
    case ValueType::kN: WriteNumber(out, v.scalar()); break;
    case ValueType::kB: out += "{{" + Base64Encode(v.scalar()) + "}}"; break;
    case ValueType::kBool: out += v.boolean() ? "true" : "false"; break;
    case ValueType::kNull: out += "null"; break;
    case ValueType::kM: WriteMap(out, v.map()); break;
    case ValueType::kL: {
      out += '[';
      for (size_t i = 0; i < v.list().size(); ++i) {
        if (i) out += ',';
        WriteValue(out, v.list()[i]);
      }
      out += ']';
      break;
    }
    case ValueType::kSS:
    case ValueType::kNS:
    case ValueType::kBS: {
      out += v.type() == ValueType::kSS   ? "$dynamodb_SS::["
             : v.type() == ValueType::kNS ? "$dynamodb_NS::["
                                          : "$dynamodb_BS::[";
      for (size_t i = 0; i < v.set().size(); ++i) {
        if (i) out += ',';
        const std::string& m = v.set()[i];
        if (v.type() == ValueType::kSS) {
          WriteText(out, m);
        } else if (v.type() == ValueType::kNS) {
          WriteNumber(out, m);
        } else {
          out += "{{" + Base64Encode(m) + "}}";
        }
      }
      out += ']';
      break;
    }
  }
}

}  // namespace

Result<model::Item> ParseIonItemLine(std::string_view line) { return IonReader(line).Line(); }

std::string FormatIonItemLine(const model::Item& item) {
  std::string out = "$ion_1_0 {Item:";
  WriteMap(out, item);
  out += '}';
  return out;
}

std::string FormatIonStruct(const model::Item& item) {
  std::string out;
  WriteMap(out, item);
  return out;
}

}  // namespace ttlstore::dataio
