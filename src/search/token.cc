#include "search/token.h"

#include <openssl/sha.h>

#include "common/coding.h"

namespace ttlstore::search {
namespace {

std::string Check(std::string_view body) {
  static constexpr std::string_view kSalt = "ttlstore search token";
  std::string all(kSalt);
  all += body;
  unsigned char d[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(all.data()), all.size(), d);
  return std::string(reinterpret_cast<const char*>(d), 8);
}

}  // namespace

std::string EncodeToken(const Token& t) {
  std::string s = "S";
  s.push_back(t.kind);
  PutFixed32BE(&s, t.index_id);
  PutFixed64BE(&s, t.fingerprint);
  s += t.payload;
  s += Check(s);
  return s;
}

std::optional<Token> DecodeToken(std::string_view bytes) {
  if (bytes.size() > kMaxTokenBytes || bytes.size() < 2 + 4 + 8 + 8) return std::nullopt;
  std::string_view body = bytes.substr(0, bytes.size() - 8);
  if (Check(body) != bytes.substr(bytes.size() - 8)) return std::nullopt;
  if (body[0] != 'S') return std::nullopt;
  Token t;
  t.kind = body[1];
  body.remove_prefix(2);
  if (!GetFixed32BE(&body, &t.index_id) || !GetFixed64BE(&body, &t.fingerprint)) {
    return std::nullopt;
  }
  if (t.kind != 'K' && t.kind != 'O' && t.kind != 'P') return std::nullopt;
  t.payload.assign(body);
  return t;
}

}  // namespace ttlstore::search
