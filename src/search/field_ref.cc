#include "search/field_ref.h"

namespace ttlstore::search {

std::optional<FieldRef> ResolveField(const model::SearchIndexMeta& index, std::string_view path) {
  FieldRef ref;
  ref.path = std::string(path);
  const std::vector<model::SearchField>* level = &index.fields;
  size_t start = 0;
  for (int depth = 0; depth <= model::kMaxNestedDepth; ++depth) {
    size_t dot = path.find('.', start);
    std::string_view name = path.substr(start, dot == std::string_view::npos ? dot : dot - start);
    const model::SearchField* found = nullptr;
    size_t pos = 0;
    for (size_t i = 0; i < level->size(); ++i) {
      if ((*level)[i].name == name) {
        found = &(*level)[i];
        pos = i;
        break;
      }
    }
    if (!found) return std::nullopt;
    if (depth == 0) {
      ref.top = pos;
      ref.key = std::to_string(pos);
    } else {
      ref.steps.push_back(pos);
      ref.key += "." + std::to_string(pos);
    }
    ref.field = found;
    if (dot == std::string_view::npos) {
      ref.scope = start == 0 ? std::string() : std::string(path.substr(0, start - 1));
      return ref;
    }
    if (found->type != model::SearchFieldType::kNested) return std::nullopt;
    level = &found->sub_fields;
    start = dot + 1;
  }
  return std::nullopt;
}

}  // namespace ttlstore::search
