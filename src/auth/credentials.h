// Credentials: the access keys the operator lets in, from a file only the operator controls:
// one "ACCESS_KEY_ID SECRET" pair per line, '#' starts a comment, blank lines are ignored. Both
// front ends verify signatures against it (DynamoDB's SigV4, Tablestore's HMAC-SHA1).
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>

#include "common/result.h"

namespace ttlstore::auth {

class Credentials {
 public:
  static Result<Credentials> Load(const std::string& path);
  static Result<Credentials> Parse(std::string_view text);
  // The secret of `access_key_id`, or nullptr if the key is unknown.
  const std::string* SecretFor(std::string_view access_key_id) const;
  size_t size() const { return secrets_.size(); }

 private:
  std::unordered_map<std::string, std::string> secrets_;
};

}  // namespace ttlstore::auth
