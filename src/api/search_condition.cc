// SearchConditionExpression parsing (search_condition.h): a hand-written tokenizer, since the
// grammar is only `operand = operand [AND operand = operand]...`.
#include "api/search_condition.h"

#include <cctype>
#include <set>

namespace ttlstore::api {
namespace {

// The service's texts (a conformance suite's capture against it, error-messages/searchVectors).
constexpr char kInvalidComparator[] =
    "Invalid SearchConditionExpression: Invalid comparator used in SearchConditionExpression";

struct Token {
  enum Kind { kName, kNameRef, kValueRef, kEquals, kAnd, kOther, kEnd } kind = kEnd;
  std::string text;
};

std::string Upper(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return s;
}

bool IsWordChar(char ch) {
  return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_';
}

// Splits `text` into tokens; anything that is not a name, a placeholder, `=` or AND is kOther
// (an operator, a function, a parenthesis, a path separator).
std::vector<Token> Tokenize(const std::string& text) {
  std::vector<Token> out;
  size_t i = 0;
  while (i < text.size()) {
    char ch = text[i];
    if (std::isspace(static_cast<unsigned char>(ch))) {
      ++i;
      continue;
    }
    if (ch == '#' || ch == ':') {
      size_t j = i + 1;
      while (j < text.size() && IsWordChar(text[j])) ++j;
      out.push_back({ch == '#' ? Token::kNameRef : Token::kValueRef, text.substr(i, j - i)});
      i = j;
      continue;
    }
    if (IsWordChar(ch)) {
      size_t j = i;
      while (j < text.size() && IsWordChar(text[j])) ++j;
      std::string word = text.substr(i, j - i);
      out.push_back({Upper(word) == "AND" ? Token::kAnd : Token::kName, word});
      i = j;
      continue;
    }
    if (ch == '=') {
      out.push_back({Token::kEquals, "="});
      ++i;
      continue;
    }
    // Two-character operators stay one token (<=, >=, <>).
    size_t len = (i + 1 < text.size() && (text[i + 1] == '=' || text[i + 1] == '>')) ? 2 : 1;
    out.push_back({Token::kOther, text.substr(i, len)});
    i += len;
  }
  out.push_back({Token::kEnd, ""});
  return out;
}

}  // namespace

Result<SearchCondition> ParseSearchCondition(const std::string& text,
                                             const model::SecondaryIndex& index,
                                             expr::Placeholders& ph) {
  if (text.empty()) {
    return Error::Validation("Invalid SearchConditionExpression: The expression can not be empty;");
  }
  if (text.size() > kMaxSearchConditionBytes) {
    return Error::Validation("Invalid SearchConditionExpression: Expression size has exceeded "
                             "the maximum allowed size; expression size: " +
                             std::to_string(text.size()));
  }
  const model::VectorIndexSettings& vs = *index.vector;
  std::vector<Token> tokens = Tokenize(text);
  SearchCondition out;
  std::set<std::string> seen;
  size_t i = 0;
  while (true) {
    // operand = operand, one of them an attribute and the other a value.
    const Token& a = tokens[i];
    const Token& op = tokens[i + (a.kind == Token::kEnd ? 0 : 1)];
    if (a.kind == Token::kEnd) {
      return Error::Validation("Invalid SearchConditionExpression: Syntax error; token: "
                               "<EOF>");
    }
    if (a.kind == Token::kOther || op.kind == Token::kOther || op.kind == Token::kName ||
        op.kind == Token::kAnd) {
      // An operator other than =, a function (begins_with(...)), BETWEEN, IN, OR, NOT, a
      // nested path (a.b, a[0]) or parentheses.
      return Error::Validation(kInvalidComparator);
    }
    if (op.kind != Token::kEquals) {
      return Error::Validation("Invalid SearchConditionExpression: Syntax error; token: " +
                               (op.kind == Token::kEnd ? std::string("<EOF>") : op.text));
    }
    const Token& b = tokens[i + 2];
    if (b.kind == Token::kOther || b.kind == Token::kEnd || b.kind == Token::kAnd) {
      return Error::Validation(b.kind == Token::kOther ? std::string(kInvalidComparator)
                                                       : "Invalid SearchConditionExpression: "
                                                         "Syntax error; token: " +
                                                             (b.kind == Token::kEnd
                                                                  ? std::string("<EOF>")
                                                                  : b.text));
    }
    const Token* attr = a.kind == Token::kValueRef ? &b : &a;
    const Token* value = a.kind == Token::kValueRef ? &a : &b;
    if (attr->kind == Token::kValueRef || value->kind != Token::kValueRef) {
      return Error::Validation("Invalid SearchConditionExpression: each condition compares one "
                               "SearchSchema attribute with one value (:value)");
    }
    std::string name = attr->text;
    if (attr->kind == Token::kNameRef) {
      auto it = ph.names.find(attr->text);
      if (it == ph.names.end()) {
        return Error::Validation("Value provided in ExpressionAttributeNames unused in "
                                 "expressions: An expression attribute name used in the "
                                 "document path is not defined; attribute name: " +
                                 attr->text);
      }
      ph.used_names.insert(attr->text);
      name = it->second;
    }
    auto v = ph.values.find(value->text);
    if (v == ph.values.end()) {
      return Error::Validation("Invalid SearchConditionExpression: An expression attribute "
                               "value used in expression is not defined; attribute value: " +
                               value->text);
    }
    ph.used_values.insert(value->text);
    const model::KeyElement* element = nullptr;
    bool is_hash = vs.has_hash && index.key.hash.name == name;
    if (is_hash) {
      element = &index.key.hash;
    } else {
      for (const auto& f : vs.inline_filters) {
        if (f.name == name) element = &f;
      }
    }
    if (!element) {
      return Error::Validation(
          "SearchConditionExpression must not contain any attributes that is not in "
          "SearchSchema. Invalid attribute: " + name);
    }
    if (!seen.insert(name).second) {
      return Error::Validation("Invalid SearchConditionExpression: The attribute " + name +
                               " is compared more than once");
    }
    if (v->second.type() != element->type) {
      return Error::Validation("One or more parameter values were invalid: Condition parameter "
                               "type does not match schema type");
    }
    if (is_hash) {
      out.hash = v->second;
    } else {
      out.filters.emplace_back(name, v->second);
    }
    i += 3;
    if (tokens[i].kind == Token::kEnd) break;
    if (tokens[i].kind != Token::kAnd) return Error::Validation(kInvalidComparator);
    ++i;
  }
  return out;
}

}  // namespace ttlstore::api
