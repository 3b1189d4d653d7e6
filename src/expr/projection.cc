#include "expr/projection.h"

#include <algorithm>
#include <cctype>
#include <memory>
#include <unordered_set>

#include "expr/path_parser.h"

namespace ttlstore::expr {
namespace {

constexpr char kPrefix[] = "Invalid ProjectionExpression: ";

const std::unordered_set<std::string>& ReservedWords() {
  static const auto* words = new std::unordered_set<std::string>{
#include "expr/reserved_words.inc"
  };
  return *words;
}

bool IsNameStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsNameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// A hand-written scanner over "path (, path)*". Each token is remembered with its position so
// that syntax errors can quote the text around them as DynamoDB does.
class Parser {
 public:
  Parser(std::string_view text, const std::map<std::string, std::string>& names,
         std::set<std::string>* used)
      : text_(text), names_(names), used_(used) {}

  Result<std::vector<Path>> ParseAll() {
    std::vector<Path> paths;
    Next();
    while (true) {
      auto path = ParsePath();
      if (!path) return path.error();
      paths.push_back(std::move(*path));
      if (tok_.kind == Kind::kEnd) break;
      if (tok_.kind != Kind::kComma) return SyntaxError();
      Next();
    }
    return paths;
  }

 private:
  enum class Kind { kName, kPlaceholder, kDot, kLBracket, kRBracket, kNumber, kComma, kEnd, kBad };
  struct Token {
    Kind kind = Kind::kEnd;
    size_t begin = 0, end = 0;
    std::string_view text() const = delete;
  };

  std::string_view TokText(const Token& t) const { return text_.substr(t.begin, t.end - t.begin); }

  void Next() {
    prev_ = tok_;
    size_t i = pos_;
    while (i < text_.size() && std::isspace(static_cast<unsigned char>(text_[i]))) ++i;
    tok_.begin = i;
    if (i >= text_.size()) {
      tok_ = {Kind::kEnd, i, i};
      pos_ = i;
      return;
    }
    char c = text_[i];
    size_t j = i + 1;
    Kind kind = Kind::kBad;
    if (c == '.') kind = Kind::kDot;
    else if (c == '[') kind = Kind::kLBracket;
    else if (c == ']') kind = Kind::kRBracket;
    else if (c == ',') kind = Kind::kComma;
    else if (c == '#') {
      while (j < text_.size() && IsNameChar(text_[j])) ++j;
      kind = j > i + 1 ? Kind::kPlaceholder : Kind::kBad;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      while (j < text_.size() && std::isdigit(static_cast<unsigned char>(text_[j]))) ++j;
      kind = Kind::kNumber;
    } else if (IsNameStart(c)) {
      while (j < text_.size() && IsNameChar(text_[j])) ++j;
      kind = Kind::kName;
    }
    tok_ = {kind, i, j};
    pos_ = j;
  }

  // DynamoDB quotes the offending token and the source text from the token before it to the
  // token after it: "a, !!" -> token "!", near ", !!"; "a," -> token "<EOF>", near ",".
  Error SyntaxError() {
    std::string token = tok_.kind == Kind::kEnd ? "<EOF>" : std::string(TokText(tok_));
    size_t near_begin = prev_.end > prev_.begin ? prev_.begin : tok_.begin;
    Token current = tok_, before = prev_;
    Next();
    size_t near_end = tok_.end;
    tok_ = current;
    prev_ = before;
    pos_ = current.end;
    std::string near(text_.substr(near_begin, near_end - near_begin));
    return Error::Validation(std::string(kPrefix) + "Syntax error; token: \"" + token +
                             "\", near: \"" + near + "\"");
  }

  Result<std::string> ParseName() {
    std::string_view t = TokText(tok_);
    if (tok_.kind == Kind::kName) {
      std::string upper(t);
      std::transform(upper.begin(), upper.end(), upper.begin(), ::toupper);
      if (ReservedWords().count(upper)) {
        return Error::Validation(std::string(kPrefix) +
                                 "Attribute name is a reserved keyword; reserved keyword: " +
                                 std::string(t));
      }
      Next();
      return std::string(t);
    }
    if (tok_.kind == Kind::kPlaceholder) {
      auto it = names_.find(std::string(t));
      if (it == names_.end()) {
        return Error::Validation(
            std::string(kPrefix) +
            "An expression attribute name used in the document path is not defined; attribute "
            "name: " +
            std::string(t));
      }
      used_->insert(it->first);
      Next();
      return it->second;
    }
    return SyntaxError();
  }

  Result<Path> ParsePath() {
    Path path;
    auto first = ParseName();
    if (!first) return first.error();
    path.push_back({std::move(*first)});
    while (tok_.kind == Kind::kDot || tok_.kind == Kind::kLBracket) {
      if (tok_.kind == Kind::kDot) {
        Next();
        auto name = ParseName();
        if (!name) return name.error();
        path.push_back({std::move(*name)});
      } else {
        Next();
        if (tok_.kind != Kind::kNumber) return SyntaxError();
        std::string_view digits = TokText(tok_);
        if (digits.size() > 9) {
          return Error::Validation(std::string(kPrefix) +
                                   "List index is not within the allowable range; index: [" +
                                   std::string(digits) + "]");
        }
        int index = std::stoi(std::string(digits));
        Next();
        if (tok_.kind != Kind::kRBracket) return SyntaxError();
        Next();
        path.push_back({"", index});
      }
    }
    if (path.size() > kMaxPathDepth) {
      return Error::Validation(std::string(kPrefix) +
                               "The document path has too many nesting levels; nesting levels: " +
                               std::to_string(path.size()));
    }
    return path;
  }

  std::string_view text_;
  const std::map<std::string, std::string>& names_;
  std::set<std::string>* used_;
  size_t pos_ = 0;
  Token tok_, prev_;
};

}  // namespace

// The union of the paths as a tree; a leaf takes the whole value at that point.
struct Projection::Node {
  bool leaf = false;
  std::map<std::string, std::unique_ptr<Node>> members;
  std::map<int, std::unique_ptr<Node>> elements;
};

namespace {

using Node = Projection::Node;

void Insert(Node* root, const Path& path) {
  // CheckPairs has already rejected overlapping paths, so no leaf is ever extended.
  Node* node = root;
  for (const PathElement& e : path) {
    std::unique_ptr<Node>& child = e.is_index() ? node->elements[e.index] : node->members[e.name];
    if (!child) child = std::make_unique<Node>();
    node = child.get();
  }
  node->leaf = true;
}

Status CheckPairs(const std::vector<Path>& paths) {
  for (size_t a = 0; a < paths.size(); ++a) {
    for (size_t b = 0; b < a; ++b) {
      const Path& x = paths[b];
      const Path& y = paths[a];
      size_t n = std::min(x.size(), y.size());
      size_t i = 0;
      bool conflict = false;
      for (; i < n; ++i) {
        if (x[i].is_index() != y[i].is_index()) {
          conflict = true;
          break;
        }
        if (x[i].is_index() ? x[i].index != y[i].index : x[i].name != y[i].name) break;
      }
      if (conflict) {
        return Error::Validation(std::string(kPrefix) +
                                 "Two document paths conflict with each other; must remove or "
                                 "rewrite one of these paths; path one: " +
                                 PathToString(x) + ", path two: " + PathToString(y));
      }
      if (i == n) {
        return Error::Validation(std::string(kPrefix) +
                                 "Two document paths overlap with each other; must remove or "
                                 "rewrite one of these paths; path one: " +
                                 PathToString(x) + ", path two: " + PathToString(y));
      }
    }
  }
  return Status::Ok();
}

std::optional<model::AttributeValue> Select(const model::AttributeValue& v, const Node& node) {
  if (node.leaf) return v;
  if (v.type() == model::ValueType::kM && !node.members.empty()) {
    model::Map out;
    for (const auto& [name, child] : node.members) {
      auto it = v.map().find(name);
      if (it == v.map().end()) continue;
      if (auto sub = Select(it->second, *child)) out.emplace(name, std::move(*sub));
    }
    if (out.empty()) return std::nullopt;
    return model::AttributeValue::OfMap(std::move(out));
  }
  if (v.type() == model::ValueType::kL && !node.elements.empty()) {
    model::List out;
    for (const auto& [index, child] : node.elements) {
      if (index >= static_cast<int>(v.list().size())) continue;
      if (auto sub = Select(v.list()[index], *child)) out.push_back(std::move(*sub));
    }
    if (out.empty()) return std::nullopt;
    return model::AttributeValue::OfList(std::move(out));
  }
  return std::nullopt;
}

}  // namespace

std::string PathToString(const Path& path) {
  std::string out = "[";
  for (size_t i = 0; i < path.size(); ++i) {
    if (i) out += ", ";
    out += path[i].is_index() ? "[" + std::to_string(path[i].index) + "]" : path[i].name;
  }
  return out + "]";
}

bool IsReservedWord(std::string_view word) {
  std::string upper(word);
  std::transform(upper.begin(), upper.end(), upper.begin(), ::toupper);
  return ReservedWords().count(upper) > 0;
}

Result<Projection> Projection::Parse(std::string_view text,
                                     const std::map<std::string, std::string>& names,
                                     std::set<std::string>* used_names) {
  RETURN_IF_ERROR(CheckExpressionText(text, "ProjectionExpression"));
  Parser parser(text, names, used_names);
  auto paths = parser.ParseAll();
  if (!paths) return paths.error();
  if (Status s = CheckPairs(*paths); !s) return std::move(s).error();
  auto root = std::make_shared<Node>();
  for (const Path& path : *paths) Insert(root.get(), path);
  Projection p;
  p.paths_ = std::move(*paths);
  p.root_ = std::move(root);
  return p;
}

model::Item Projection::Apply(const model::Item& item) const {
  model::Item out;
  for (const auto& [name, child] : root_->members) {
    auto it = item.find(name);
    if (it == item.end()) continue;
    if (auto v = Select(it->second, *child)) out.emplace(name, std::move(*v));
  }
  return out;
}

}  // namespace ttlstore::expr
