// JsonWriter: RapidJSON's Writer into a StringBuffer, with strings (values and keys) escaped a
// run at a time instead of a character at a time. Responses are mostly strings (attribute
// names, S values, numbers as text), and RapidJSON without RAPIDJSON_SSE2 tests and copies each
// character on its own. RAPIDJSON_SSE2 is not an option: it also turns on the reader's SIMD
// scans, which load aligned blocks past the end of the input (see BENCHMARKS.md, issue 23).
//
// The output is byte for byte RapidJSON's: `"` and `\` escaped with a backslash, \b \t \n \f \r
// by their letters, the other control characters as \u00XX (upper-case hex), everything else
// (DEL, UTF-8 sequences) as it is.
#pragma once

#include <cstddef>
#include <cstring>
#include <string>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace ttlstore::api {

// The length of the longest prefix of [p, p + n) that JSON writes without escapes.
inline size_t UnescapedPrefix(const char* p, size_t n) {
  size_t k = 0;
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  const __m128i last_control = _mm_set1_epi8(0x1F);
  for (; k + 16 <= n; k += 16) {  // unaligned loads, never past p + n
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + k));
    const __m128i control = _mm_cmpeq_epi8(_mm_max_epu8(v, last_control), last_control);
    const __m128i special = _mm_or_si128(
        control, _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)));
    const int mask = _mm_movemask_epi8(special);
    if (mask != 0) return k + static_cast<size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
  }
#endif
  for (; k < n; ++k) {
    const auto c = static_cast<unsigned char>(p[k]);
    if (c < 0x20 || c == '"' || c == '\\') return k;
  }
  return n;
}

class JsonWriter : public rapidjson::Writer<rapidjson::StringBuffer> {
  using Base = rapidjson::Writer<rapidjson::StringBuffer>;

 public:
  // Most responses fit in 4 KB: reserving it at once saves the buffer's realloc chain
  // (256 bytes growing by half: seven reallocs for a 10-item Query).
  static constexpr size_t kInitialBytes = 4096;

  explicit JsonWriter(rapidjson::StringBuffer& out) : Base(out) {
    if (out.GetSize() == 0) out.Reserve(kInitialBytes);
  }

  using Base::Key;
  using Base::String;
  bool String(const char* s, rapidjson::SizeType n, bool copy = false) {
    (void)copy;
    Prefix(rapidjson::kStringType);
    WriteEscaped(s, n);
    return EndValue(true);
  }
  bool String(const char* s) { return String(s, static_cast<rapidjson::SizeType>(std::strlen(s))); }
  bool String(const std::string& s) {
    return String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
  }
  bool Key(const char* s, rapidjson::SizeType n, bool copy = false) { return String(s, n, copy); }
  bool Key(const char* s) { return String(s); }
  bool Key(const std::string& s) { return String(s); }

 private:
  void WriteEscaped(const char* s, size_t n) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    // Room for the worst case (every character \u00XX) and the quotes, as RapidJSON reserves.
    char* const start = os_->Push(2 + 6 * n);
    char* d = start;
    *d++ = '"';
    size_t i = 0;
    while (true) {
      const size_t run = UnescapedPrefix(s + i, n - i);
      if (run != 0) std::memcpy(d, s + i, run);
      d += run;
      i += run;
      if (i == n) break;
      const auto c = static_cast<unsigned char>(s[i++]);
      *d++ = '\\';
      switch (c) {
        case '"': *d++ = '"'; break;
        case '\\': *d++ = '\\'; break;
        case '\b': *d++ = 'b'; break;
        case '\t': *d++ = 't'; break;
        case '\n': *d++ = 'n'; break;
        case '\f': *d++ = 'f'; break;
        case '\r': *d++ = 'r'; break;
        default:
          *d++ = 'u';
          *d++ = '0';
          *d++ = '0';
          *d++ = kHex[c >> 4];
          *d++ = kHex[c & 0xF];
      }
    }
    *d++ = '"';
    os_->Pop(static_cast<size_t>(start + 2 + 6 * n - d));
  }
};

}  // namespace ttlstore::api
