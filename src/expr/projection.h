// ProjectionExpression: parse "a, b.c, #n[2]" (with ExpressionAttributeNames) into a set of
// document paths, and apply it to an item. Errors use DynamoDB's wording:
//   "Invalid ProjectionExpression: Syntax error; token: ..., near: ..."
//   "Invalid ProjectionExpression: Attribute name is a reserved keyword; reserved keyword: ..."
//   "Invalid ProjectionExpression: Two document paths overlap with each other; ..."
//   "Invalid ProjectionExpression: An expression attribute name used in the document path is not
//    defined; attribute name: #n"
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "expr/path.h"
#include "model/attribute_value.h"

namespace ttlstore::expr {

// Maximum length of any expression, in bytes (DynamoDB limit: 4 KB).
inline constexpr size_t kMaxExpressionBytes = 4096;
// Maximum depth of a document path (DynamoDB limit: 32).
inline constexpr size_t kMaxPathDepth = 32;

class Projection {
 public:
  // Parses `text`, substituting `#name` placeholders from `names`; every placeholder used is
  // added to `used_names` so the caller can reject unused ones.
  static Result<Projection> Parse(std::string_view text,
                                  const std::map<std::string, std::string>& names,
                                  std::set<std::string>* used_names);

  const std::vector<Path>& paths() const { return paths_; }

  // The parts of `item` named by the paths; attributes that do not exist are left out.
  model::Item Apply(const model::Item& item) const;

 struct Node;  // the paths merged into a tree (projection.cc)

 private:
  std::vector<Path> paths_;
  std::shared_ptr<const Node> root_;
};

// True if `word` (any case) is one of DynamoDB's reserved words.
bool IsReservedWord(std::string_view word);

}  // namespace ttlstore::expr
