// Byte coding helpers shared by every persisted format: varints, big-endian fixed ints and
// length-prefixed strings. Decoders take a string_view cursor, advance it, and return false on
// truncated input (never read past the end).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ttlstore {

inline void PutFixed32BE(std::string* out, uint32_t v) {
  char b[4] = {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
               static_cast<char>(v)};
  out->append(b, 4);
}

inline void PutFixed64BE(std::string* out, uint64_t v) {
  PutFixed32BE(out, static_cast<uint32_t>(v >> 32));
  PutFixed32BE(out, static_cast<uint32_t>(v));
}

inline bool GetFixed32BE(std::string_view* in, uint32_t* v) {
  if (in->size() < 4) return false;
  const auto* p = reinterpret_cast<const unsigned char*>(in->data());
  *v = (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
  in->remove_prefix(4);
  return true;
}

inline bool GetFixed64BE(std::string_view* in, uint64_t* v) {
  uint32_t hi, lo;
  if (!GetFixed32BE(in, &hi) || !GetFixed32BE(in, &lo)) return false;
  *v = (uint64_t{hi} << 32) | lo;
  return true;
}

inline void PutVarint64(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

inline bool GetVarint64(std::string_view* in, uint64_t* v) {
  uint64_t result = 0;
  for (int shift = 0; shift <= 63 && !in->empty(); shift += 7) {
    auto byte = static_cast<unsigned char>(in->front());
    in->remove_prefix(1);
    result |= uint64_t{byte & 0x7fu} << shift;
    if (!(byte & 0x80)) {
      *v = result;
      return true;
    }
  }
  return false;
}

// Zig-zag so that small negative numbers stay small.
inline void PutVarsint64(std::string* out, int64_t v) {
  PutVarint64(out, (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63));
}

inline bool GetVarsint64(std::string_view* in, int64_t* v) {
  uint64_t u;
  if (!GetVarint64(in, &u)) return false;
  *v = static_cast<int64_t>((u >> 1) ^ (~(u & 1) + 1));
  return true;
}

inline void PutLengthPrefixed(std::string* out, std::string_view s) {
  PutVarint64(out, s.size());
  out->append(s);
}

inline bool GetLengthPrefixed(std::string_view* in, std::string_view* s) {
  uint64_t n;
  if (!GetVarint64(in, &n) || n > in->size()) return false;
  *s = in->substr(0, n);
  in->remove_prefix(n);
  return true;
}

}  // namespace ttlstore
