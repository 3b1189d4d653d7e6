#include "auth/credentials.h"

#include <cctype>
#include <fstream>
#include <sstream>

namespace ttlstore::auth {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

}  // namespace

Result<Credentials> Credentials::Parse(std::string_view text) {
  Credentials c;
  std::istringstream in{std::string(text)};
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    std::string_view l = Trim(line);
    if (l.empty() || l.front() == '#') continue;
    std::istringstream fields{std::string(l)};
    std::string id, secret, extra;
    if (!(fields >> id >> secret) || (fields >> extra)) {
      return Error::Validation("credentials line " + std::to_string(number) +
                               ": expected 'ACCESS_KEY_ID SECRET'");
    }
    c.secrets_[id] = secret;
  }
  return c;
}

Result<Credentials> Credentials::Load(const std::string& path) {
  std::ifstream f(path);
  if (!f) return Error::Validation("cannot read credentials file " + path);
  std::stringstream ss;
  ss << f.rdbuf();
  auto c = Parse(ss.str());
  if (!c) return Error::Validation(path + ": " + c.error().message());
  if (c->size() == 0) return Error::Validation(path + ": no access keys");
  return c;
}

const std::string* Credentials::SecretFor(std::string_view access_key_id) const {
  auto it = secrets_.find(std::string(access_key_id));
  return it == secrets_.end() ? nullptr : &it->second;
}

}  // namespace ttlstore::auth
