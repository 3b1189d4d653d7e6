// Document paths (`a.b[3].c`), the common building block of every expression kind.
#pragma once

#include <string>
#include <vector>

namespace ttlstore::expr {

// One step of a document path: a map member (by name) or a list element (by index).
struct PathElement {
  std::string name;  // for a member
  int index = -1;    // >= 0 for a list element
  bool is_index() const { return index >= 0; }
};

using Path = std::vector<PathElement>;

// DynamoDB's rendering of a path in error messages: "[a, b, [3]]".
std::string PathToString(const Path& path);

}  // namespace ttlstore::expr
