// A search index field named by its path: a top-level field ("l") or a sub-field of a Nested
// field ("n.nk", "n.m.x": each step a sub-field name, since names hold no dots), with its term
// key (search/terms.h) and where it sits.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/search_index.h"

namespace ttlstore::search {

struct FieldRef {
  const model::SearchField* field = nullptr;
  std::string path;           // as named
  std::string key;            // term key: "3", "3.1", "3.1.0"
  size_t top = 0;             // position of the top-level field in index.fields
  std::vector<size_t> steps;  // sub-field positions below the top-level field
  std::string scope;          // path of the Nested field it belongs to ("": top level)
};

// nullopt when no field has that path.
std::optional<FieldRef> ResolveField(const model::SearchIndexMeta& index, std::string_view path);

}  // namespace ttlstore::search
