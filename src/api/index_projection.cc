#include "api/index_projection.h"

#include <algorithm>
#include <string>

#include "api/request.h"
#include "index/index_key.h"

namespace ttlstore::api {

Result<bool> CheckIndexProjects(const model::TableDescriptor& table,
                                const model::SecondaryIndex& ix,
                                const std::vector<expr::Path>& paths) {
  std::vector<std::string> missing;
  for (const expr::Path& path : paths) {
    const std::string& name = path.front().name;
    if (!index::Projects(table, ix, name) &&
        std::find(missing.begin(), missing.end(), name) == missing.end()) {
      missing.push_back(name);
    }
  }
  if (missing.empty()) return false;
  if (ix.global) {
    return Error::Validation("One or more parameter values were invalid: Global secondary index " +
                             ix.name + " does not project " + JoinNames(missing));
  }
  return true;
}

Status CheckIndexFilter(const model::TableDescriptor& table, const model::SecondaryIndex& ix,
                        const expr::Condition& filter) {
  std::vector<std::string> missing;
  for (const std::string& name : filter.TopLevelNames()) {
    if (!index::Projects(table, ix, name)) missing.push_back(name);
  }
  if (missing.empty()) return Status::Ok();
  // "Secondary index", naming neither kind, on both.
  return Error::Validation("One or more parameter values were invalid: Secondary index " +
                           ix.name + " does not project one or more filter attributes: " +
                           JoinNames(missing));
}

}  // namespace ttlstore::api
