#include "api/tags.h"

#include <cstdint>
#include <unordered_set>

#include "api/request.h"

namespace ttlstore::api {
namespace {

constexpr char kInvalid[] = "One or more parameter values were invalid: ";
constexpr size_t kMaxKeyChars = 128;
constexpr size_t kMaxValueChars = 256;
constexpr size_t kMaxTags = 50;

// Whether a code point above ASCII is a letter, number or space (\p{L}, \p{N}, \p{Z}), the
// service's class for tag text. An approximation by blocks, with no Unicode tables: it refuses
// controls, format characters, combining marks, punctuation, symbols, arrows, box drawing,
// dingbats, private use and emoji, and takes the rest (the scripts' letters and digits).
bool LetterNumberOrSpace(uint32_t c) {
  if (c < 0xA0) return false;  // C1 controls
  if (c <= 0xBF) {
    return c == 0xA0 || c == 0xAA || c == 0xB2 || c == 0xB3 || c == 0xB5 || c == 0xB9 ||
           c == 0xBA || (c >= 0xBC && c <= 0xBE);
  }
  if (c == 0xD7 || c == 0xF7) return false;      // × ÷
  if (c >= 0x0300 && c <= 0x036F) return false;  // combining marks
  if (c >= 0x2000 && c <= 0x200A) return true;   // spaces
  if (c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000) return true;
  if (c >= 0x200B && c <= 0x206F) return false;  // format characters, punctuation
  if (c >= 0x20A0 && c <= 0x20FF) return false;  // currency, combining marks for symbols
  if (c >= 0x2190 && c <= 0x245F) return false;  // arrows, mathematical and technical symbols
  if (c >= 0x2500 && c <= 0x2BFF) return false;  // box drawing, shapes, dingbats, symbols
  if (c >= 0x3001 && c <= 0x3004) return false;  // CJK punctuation
  if (c >= 0x3008 && c <= 0x3020) return false;
  if (c >= 0xD800 && c <= 0xF8FF) return false;  // surrogates, private use
  if (c >= 0xFE00 && c <= 0xFE6F) return false;  // variation selectors, punctuation forms
  if (c >= 0xFEFF && c <= 0xFF0F) return false;  // byte order mark, fullwidth punctuation
  if ((c >= 0xFF1A && c <= 0xFF20) || (c >= 0xFF3B && c <= 0xFF40) ||
      (c >= 0xFF5B && c <= 0xFF65)) {
    return false;  // fullwidth punctuation
  }
  if (c >= 0xFFF0 && c <= 0xFFFF) return false;    // specials
  if (c >= 0x1F000 && c <= 0x1FBFF) return false;  // emoji and pictographs
  if (c >= 0xE0000) return false;                  // tag characters, private use planes
  return true;
}

bool AsciiAllowed(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         c == ' ' || c == '+' || c == '-' || c == '=' || c == '.' || c == '_' || c == ':' ||
         c == '/' || c == '@';
}

// Counts the characters of `s` into *count; false if one is not allowed in a tag (or `s` is not
// UTF-8).
bool TagText(std::string_view s, size_t* count) {
  *count = 0;
  for (size_t i = 0; i < s.size(); ++(*count)) {
    auto b = static_cast<unsigned char>(s[i]);
    if (b < 0x80) {
      if (!AsciiAllowed(s[i])) return false;
      ++i;
      continue;
    }
    size_t n = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 0;
    if (n == 0 || b >= 0xF8 || i + n > s.size()) return false;
    uint32_t c = b & (0x7F >> n);
    for (size_t k = 1; k < n; ++k) {
      auto cont = static_cast<unsigned char>(s[i + k]);
      if ((cont & 0xC0) != 0x80) return false;
      c = (c << 6) | (cont & 0x3F);
    }
    if (!LetterNumberOrSpace(c)) return false;
    i += n;
  }
  return true;
}

Error InvalidKey(std::string_view key) {
  return Error::Validation("The Tag Key provided is invalid, Key: " + std::string(key));
}

Status CheckValue(std::string_view value) {
  size_t chars = 0;
  if (!TagText(value, &chars) || chars > kMaxValueChars) {
    return Error::Validation("The Tag Value provided is invalid, Value: " + std::string(value));
  }
  return Status::Ok();
}

bool HasAwsPrefix(std::string_view key) {
  if (key.size() < 4) return false;
  for (size_t i = 0; i < 3; ++i) {
    if ((key[i] | 0x20) != "aws"[i]) return false;
  }
  return key[3] == ':';
}

}  // namespace

Status CheckTagKey(std::string_view key) {
  size_t chars = 0;
  if (!TagText(key, &chars) || chars == 0 || chars > kMaxKeyChars) return InvalidKey(key);
  if (HasAwsPrefix(key)) {
    return Error::Validation("Tag Key cannot be prefixed with aws:, Key: " + std::string(key));
  }
  return Status::Ok();
}

Result<std::vector<model::Tag>> DecodeTags(const rapidjson::Value& tags) {
  std::vector<model::Tag> out;
  std::unordered_set<std::string_view> seen;
  for (const auto& tag : tags.GetArray()) {
    if (!tag.IsObject()) return Error::Serialization("Unexpected field type");
    ASSIGN_OR_RETURN(key, OptString(tag, "Key"));
    ASSIGN_OR_RETURN(value, OptString(tag, "Value"));
    if (!key) return InvalidKey("null");
    if (!value) return Error::Validation("The Tag Value provided is invalid, Value: null");
    RETURN_IF_ERROR(CheckTagKey(*key));
    RETURN_IF_ERROR(CheckValue(*value));
    out.push_back({std::move(*key), std::move(*value)});
  }
  for (const auto& tag : out) {
    if (!seen.insert(tag.key).second) {
      return Error::Validation(
          "Duplicate Tag Keys provided as input: Duplicate Tag Key found " + tag.key);
    }
  }
  if (out.size() > kMaxTags) return Error::Validation(kTooManyTags);
  return out;
}

Result<TableArnParts> ParseTableArn(const std::string& arn) {
  Error malformed = Error::Validation("Invalid TableArn: Invalid ResourceArn provided as input " + arn);
  if (arn.rfind("arn:", 0) != 0) {
    return Error::Validation(std::string(kInvalid) + "ARNs must start with 'arn:': " + arn);
  }
  // arn : partition : service : region : account : resource (which may hold colons)
  std::vector<std::string> parts;
  size_t pos = 0;
  while (parts.size() < 5) {
    size_t colon = arn.find(':', pos);
    if (colon == std::string::npos) break;
    parts.push_back(arn.substr(pos, colon - pos));
    pos = colon + 1;
  }
  std::string_view service = parts.size() >= 3   ? std::string_view(parts[2])
                             : parts.size() == 2 ? std::string_view(arn).substr(pos)
                                                 : std::string_view();
  if (service != "dynamodb") {
    return Error::Validation(std::string(kInvalid) +
                             "Provided Arn is not a DynamoDB resource arn: " + arn);
  }
  if (parts.size() < 5) return malformed;
  std::string resource = arn.substr(pos);
  if (resource.rfind("table/", 0) != 0) {
    return Error::Validation(std::string(kInvalid) +
                             "Invalid resource arn provided, only table or stream is accepted. "
                             "Provided resource arn: " + arn);
  }
  std::string name = resource.substr(6);
  size_t slash = name.find('/');
  if (slash != std::string::npos) {
    // table/<name>/index/<index>: not a taggable resource. table/<name>/stream/<label>: the
    // service tags streams; ttlstore keeps no tags on them.
    if (name.compare(slash, 7, "/index/") == 0) {
      return Error::Validation(std::string(kInvalid) +
                               "Invalid resource arn provided, only table or stream is accepted. "
                               "Provided resource arn: " + arn);
    }
    return malformed;
  }
  Constraints c;
  c.TableName("tableName", name, 3);
  if (!c.ok()) return malformed;
  return TableArnParts{parts[3], parts[4], std::move(name)};
}

}  // namespace ttlstore::api
