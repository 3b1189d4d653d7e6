// Number: parsing, canonical text, exact addition and the ordered key encoding.
#include "model/number.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <vector>

namespace ttlstore::model {
namespace {

// DynamoDB echoes the offending text verbatim, an empty value too ("...numeric value: ", a
// conformance suite's capture against the service).
Error Malformed(std::string_view text) {
  return Error::Validation("The parameter cannot be converted to a numeric value: " +
                           std::string(text));
}
constexpr char kTooManyDigits[] = "Attempting to store more than 38 significant digits in a Number";
constexpr char kOverflow[] =
    "Number overflow. Attempting to store a number with magnitude larger than supported range";
constexpr char kUnderflow[] =
    "Number underflow. Attempting to store a number with magnitude smaller than supported range";

// Ordered key bytes; see the format in number.h.
constexpr unsigned char kKeyNegative = 0x01;
constexpr unsigned char kKeyZero = 0x02;
constexpr unsigned char kKeyPositive = 0x03;
constexpr unsigned char kKeyTerminator = 0x00;
constexpr int kKeyExponentBias = 0x8000;

// Exponents in the text are saturated here: anything this large is out of range no matter how
// many digits precede it, and saturating keeps the arithmetic in int64.
constexpr int64_t kExponentSaturation = int64_t{1} << 40;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

Number::Number() = default;

Result<Number> Number::FromParts(bool negative, std::string digits, int64_t exponent) {
  size_t first = digits.find_first_not_of('0');
  if (first == std::string::npos) return Number();  // any zero, "-0" included, is plain zero
  size_t last = digits.find_last_not_of('0');
  // Each leading zero dropped moves the first significant digit one place right.
  exponent -= static_cast<int64_t>(first);
  digits = digits.substr(first, last - first + 1);
  if (exponent > kMaxExponent) return Error::Validation(kOverflow);
  if (exponent < kMinExponent) return Error::Validation(kUnderflow);
  if (digits.size() > static_cast<size_t>(kMaxSignificantDigits)) {
    return Error::Validation(kTooManyDigits);
  }
  return Number(negative, std::move(digits), static_cast<int32_t>(exponent));
}

Result<Number> Number::Parse(std::string_view text) {
  size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
    negative = text[i] == '-';
    ++i;
  }
  std::string digits;  // integer and fraction digits, the point dropped
  while (i < text.size() && IsDigit(text[i])) digits.push_back(text[i++]);
  const size_t int_digits = digits.size();
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && IsDigit(text[i])) digits.push_back(text[i++]);
  }
  // "." alone, "+", "" and ".e5" have no mantissa digits at all.
  if (digits.empty()) return Malformed(text);
  int64_t exp10 = 0;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    bool exp_negative = false;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
      exp_negative = text[i] == '-';
      ++i;
    }
    if (i >= text.size() || !IsDigit(text[i])) return Malformed(text);
    // The service reads the exponent in full: past a 64-bit integer it cannot be converted;
    // within it, the range check below answers (a conformance suite's capture against the
    // service, tests/tier3/limits/numberExponent).
    uint64_t magnitude = 0;
    bool beyond_int64 = false;
    while (i < text.size() && IsDigit(text[i])) {
      const uint64_t digit = static_cast<uint64_t>(text[i] - '0');
      beyond_int64 = beyond_int64 || magnitude > (uint64_t{1} << 63) / 10 ||
                     magnitude * 10 + digit > (uint64_t{1} << 63) - (exp_negative ? 0 : 1);
      if (!beyond_int64) magnitude = magnitude * 10 + digit;
      ++i;
    }
    if (i == text.size() && beyond_int64) return Malformed(text);
    // An exponent that fits 32 bits but whose sum with the integer digits does not wraps in the
    // service to an underflow (1e2147483647; 1e2147483648 overflows): the same capture.
    if (!exp_negative && magnitude <= 2147483647 &&
        magnitude + int_digits > uint64_t{2147483647}) {
      return Error::Validation(kUnderflow);
    }
    exp10 = static_cast<int64_t>(std::min<uint64_t>(magnitude, kExponentSaturation));
    if (exp_negative) exp10 = -exp10;
  }
  if (i != text.size()) return Malformed(text);
  const bool has_exponent = text.find_first_of("eE") != std::string_view::npos;

  // The digit count is DynamoDB's first complaint, before range, so check it on the stripped
  // digits up front (FromParts checks range first because arithmetic wants that order).
  size_t first = digits.find_first_not_of('0');
  if (first == std::string::npos) {
    // Zero written with an exponent is range-checked by it, as a 1 in its first place would be
    // (0e126 overflows, 0e125 is 0, 0e-131 underflows: the capture above).
    if (has_exponent) {
      const int64_t exponent = static_cast<int64_t>(int_digits) + exp10;
      if (exponent > kMaxExponent) return Error::Validation(kOverflow);
      if (exponent < kMinExponent) return Error::Validation(kUnderflow);
    }
    return Number();
  }
  size_t last = digits.find_last_not_of('0');
  if (last - first + 1 > static_cast<size_t>(kMaxSignificantDigits)) {
    return Error::Validation(kTooManyDigits);
  }
  // Text length is bounded by memory, far below int64 range, so this cannot overflow.
  return FromParts(negative, std::move(digits), static_cast<int64_t>(int_digits) + exp10);
}

std::string Number::ToString() const {
  if (IsZero()) return "0";
  std::string out;
  if (negative_) out.push_back('-');
  const int n = static_cast<int>(digits_.size());
  if (exponent_ <= 0) {
    out.append("0.");
    out.append(static_cast<size_t>(-exponent_), '0');
    out.append(digits_);
  } else if (exponent_ < n) {
    out.append(digits_, 0, static_cast<size_t>(exponent_));
    out.push_back('.');
    out.append(digits_, static_cast<size_t>(exponent_), std::string::npos);
  } else {
    out.append(digits_);
    out.append(static_cast<size_t>(exponent_ - n), '0');
  }
  return out;
}

int Number::CompareMagnitude(const Number& other) const {
  if (IsZero() || other.IsZero()) {
    return static_cast<int>(!IsZero()) - static_cast<int>(!other.IsZero());
  }
  // Digits are normalized (first digit non-zero), so the exponent decides first; then the digit
  // strings compare lexicographically, a proper prefix being smaller (trailing zeros are gone).
  if (exponent_ != other.exponent_) return exponent_ < other.exponent_ ? -1 : 1;
  int c = digits_.compare(other.digits_);
  return (c > 0) - (c < 0);
}

int Number::Compare(const Number& other) const {
  auto sign = [](const Number& x) { return x.IsZero() ? 0 : (x.negative_ ? -1 : 1); };
  int sa = sign(*this);
  int sb = sign(other);
  if (sa != sb) return sa < sb ? -1 : 1;
  int m = CompareMagnitude(other);
  return sa < 0 ? -m : m;
}

Result<Number> Number::AddSigned(const Number& other, bool other_negative) const {
  if (other.IsZero()) return *this;
  if (IsZero()) return Number(other_negative, other.digits_, other.exponent_);

  // Lay both magnitudes out as little-endian digit arrays over the positions they span.
  // Position p holds the coefficient of 10^p; digit i (0-based) of x sits at x.exponent_-1-i.
  auto lowest = [](const Number& x) {
    return x.exponent_ - static_cast<int>(x.digits_.size());
  };
  const int low = std::min(lowest(*this), lowest(other));
  const int high = std::max(exponent_, other.exponent_);  // exclusive; +1 slot for a carry
  const size_t width = static_cast<size_t>(high - low + 1);
  auto spread = [&](const Number& x) {
    std::vector<int> v(width, 0);
    for (size_t i = 0; i < x.digits_.size(); ++i) {
      v[static_cast<size_t>(x.exponent_ - 1 - static_cast<int>(i) - low)] = x.digits_[i] - '0';
    }
    return v;
  };

  bool result_negative;
  std::vector<int> sum(width, 0);
  if (negative_ == other_negative) {
    result_negative = negative_;
    std::vector<int> a = spread(*this);
    std::vector<int> b = spread(other);
    int carry = 0;
    for (size_t p = 0; p < width; ++p) {
      int d = a[p] + b[p] + carry;
      sum[p] = d % 10;
      carry = d / 10;
    }
  } else {
    int m = CompareMagnitude(other);
    if (m == 0) return Number();
    // Subtract the smaller magnitude from the larger; the larger one's sign wins.
    const Number& big = m > 0 ? *this : other;
    const Number& small = m > 0 ? other : *this;
    result_negative = m > 0 ? negative_ : other_negative;
    std::vector<int> a = spread(big);
    std::vector<int> b = spread(small);
    int borrow = 0;
    for (size_t p = 0; p < width; ++p) {
      int d = a[p] - b[p] - borrow;
      borrow = d < 0;
      sum[p] = d + 10 * borrow;
    }
  }
  // Back to most-significant-first text; the top slot is position `high`, i.e. 0.d * 10^(high+1).
  std::string digits;
  digits.reserve(width);
  for (size_t p = width; p-- > 0;) digits.push_back(static_cast<char>('0' + sum[p]));
  auto result = FromParts(result_negative, std::move(digits), int64_t{high} + 1);
  // A result that needs more than 38 digits is answered as an overflow by the service, however
  // small it is (1e50 - 1: ScyllaDB's Alternator test_update_expression_plus_imprecise, run
  // against the service, records that text); docs/limits.md.
  if (!result && result.error().message() == kTooManyDigits) return Error::Validation(kOverflow);
  return result;
}

Result<Number> Number::Add(const Number& other) const { return AddSigned(other, other.negative_); }

Result<Number> Number::Subtract(const Number& other) const {
  return AddSigned(other, !other.IsZero() && !other.negative_);
}

void Number::AppendOrderedKey(std::string* out) const {
  if (IsZero()) {
    out->push_back(static_cast<char>(kKeyZero));
    return;
  }
  // Negative magnitudes sort in reverse, which inverting every byte after the sign achieves;
  // the terminator becomes 0xFF so a longer negative magnitude (more negative) sorts first.
  const unsigned char mask = negative_ ? 0xFF : 0x00;
  out->push_back(static_cast<char>(negative_ ? kKeyNegative : kKeyPositive));
  const auto biased = static_cast<uint16_t>(exponent_ - 1 + kKeyExponentBias);
  out->push_back(static_cast<char>((biased >> 8) ^ mask));
  out->push_back(static_cast<char>((biased & 0xFF) ^ mask));
  for (char c : digits_) out->push_back(static_cast<char>((c - '0' + 1) ^ mask));
  out->push_back(static_cast<char>(kKeyTerminator ^ mask));
}

std::optional<Number> Number::DecodeOrderedKey(std::string_view* in) {
  if (in->empty()) return std::nullopt;
  const auto tag = static_cast<unsigned char>(in->front());
  in->remove_prefix(1);
  if (tag == kKeyZero) return Number();
  if (tag != kKeyNegative && tag != kKeyPositive) return std::nullopt;
  const bool negative = tag == kKeyNegative;
  const unsigned char mask = negative ? 0xFF : 0x00;
  auto byte_at = [&](size_t i) { return static_cast<unsigned char>((*in)[i] ^ mask); };

  if (in->size() < 2) return std::nullopt;
  const int biased = (byte_at(0) << 8) | byte_at(1);
  const int exponent = biased - kKeyExponentBias + 1;
  if (exponent < kMinExponent || exponent > kMaxExponent) return std::nullopt;
  std::string digits;
  size_t i = 2;
  for (;; ++i) {
    if (i >= in->size()) return std::nullopt;
    const unsigned char b = byte_at(i);
    if (b == kKeyTerminator) break;
    if (b > 10) return std::nullopt;
    if (digits.size() >= static_cast<size_t>(kMaxSignificantDigits)) return std::nullopt;
    digits.push_back(static_cast<char>('0' + b - 1));
  }
  // Only the canonical form is accepted, so each number has exactly one valid encoding.
  if (digits.empty() || digits.front() == '0' || digits.back() == '0') return std::nullopt;
  in->remove_prefix(i + 1);
  return Number(negative, std::move(digits), exponent);
}

int64_t Number::ToInt64Truncated() const {
  if (IsZero() || exponent_ <= 0) return 0;  // |value| < 1
  // 2^63 has 19 digits; anything with 20 or more integer digits is clamped.
  if (exponent_ > 19) {
    return negative_ ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int64_t>::max();
  }
  // At most 19 digits: below 10^19 < 2^64, so uint64 holds it exactly.
  uint64_t magnitude = 0;
  for (int i = 0; i < exponent_; ++i) {
    const size_t idx = static_cast<size_t>(i);
    magnitude = magnitude * 10 + (idx < digits_.size() ? static_cast<uint64_t>(digits_[idx] - '0')
                                                        : 0);
  }
  constexpr uint64_t kMaxPositive = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (!negative_) return static_cast<int64_t>(std::min(magnitude, kMaxPositive));
  if (magnitude > kMaxPositive) return std::numeric_limits<int64_t>::min();
  return -static_cast<int64_t>(magnitude);
}

double Number::ToDouble() const {
  if (IsZero()) return 0.0;
  // "ddd" "e" (exponent - n) avoids a radix character; from_chars is locale-independent and
  // correctly rounded.
  std::string text = digits_;
  text.push_back('e');
  text.append(std::to_string(exponent_ - static_cast<int>(digits_.size())));
  double value = 0.0;
  std::from_chars(text.data(), text.data() + text.size(), value);
  return negative_ ? -value : value;
}

}  // namespace ttlstore::model
