// Number: DynamoDB's exact decimal number type (the N attribute type).
//
// A Number holds up to 38 significant decimal digits with a magnitude of zero or between 1E-130
// and 9.9999999999999999999999999999999999999E+125, exactly as DynamoDB does. It is never
// rounded: parsing or arithmetic that would need rounding fails with a Validation error carrying
// DynamoDB's own wording. This file also defines the order-preserving binary encoding used for
// numeric sort keys (see AppendOrderedKey).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"

namespace ttlstore::model {

class Number {
 public:
  // DynamoDB's limits, in the convention value = 0.d1d2...dn * 10^Exponent().
  static constexpr int kMaxSignificantDigits = 38;
  static constexpr int kMinExponent = -129;  // 1E-130 = 0.1 * 10^-129
  static constexpr int kMaxExponent = 126;   // 9.99...E+125 = 0.999... * 10^126

  // Zero.
  Number();

  // Parses DynamoDB number text: [+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)? and nothing else (no
  // spaces, "Infinity", "NaN", hex). Errors are Error::Validation with DynamoDB's messages:
  //   malformed:  "The parameter cannot be converted to a numeric value: <text>" (no colon
  //               and text when empty)
  //   >38 digits: "Attempting to store more than 38 significant digits in a Number"
  //   too large:  "Number overflow. Attempting to store a number with magnitude larger than
  //                supported range"
  //   too small:  "Number underflow. Attempting to store a number with magnitude smaller than
  //                supported range"   (non-zero magnitude below 1E-130)
  // Significant digits are counted after stripping leading and trailing zeros, so "100" has 1,
  // "1.50" has 2 and "0.0001" has 1. The digit-count check comes before the range checks.
  static Result<Number> Parse(std::string_view text);

  // Canonical text, as DynamoDB returns numbers: no exponent, no leading zeros, no trailing
  // fractional zeros, no trailing '.', no '+', and zero is "0" (never "-0").
  // E.g. "1.0" -> "1", "1e2" -> "100", "-1.5e-3" -> "-0.0015". Parse(ToString()) == *this.
  std::string ToString() const;

  bool IsZero() const { return digits_.empty(); }
  bool IsNegative() const { return negative_; }  // false for zero

  // Total order by numeric value: returns <0, 0 or >0.
  int Compare(const Number& other) const;
  friend bool operator==(const Number& a, const Number& b) { return a.Compare(b) == 0; }
  friend bool operator<(const Number& a, const Number& b) { return a.Compare(b) < 0; }

  // Exact arithmetic. The exact result is checked like Parse: magnitude first (overflow /
  // underflow message), then precision, which the service reports with the overflow message
  // too (a result of more than 38 digits, such as 1e50 - 1). Nothing is ever rounded.
  Result<Number> Add(const Number& other) const;
  Result<Number> Subtract(const Number& other) const;

  // Appends an order-preserving, self-delimiting encoding: memcmp order of encodings (unsigned
  // bytes, a proper prefix sorts first) equals numeric order, and equal numbers ("1", "1.0",
  // "10e-1") encode identically. PERSISTED in RocksDB keys; the format must never change:
  //   negative: 0x01, then the positive encoding's remaining bytes, each bitwise inverted
  //   zero:     0x02 (nothing follows)
  //   positive: 0x03,
  //             2 bytes big-endian: (scientific exponent + 0x8000), where the scientific exponent
  //               is e in d1.d2d3... * 10^e (i.e. Exponent() - 1; "1" -> 0x8000, "0.5" -> 0x7FFF),
  //             one byte per significant digit: digit + 1 (0x01..0x0A), first and last non-zero,
  //             terminator 0x00 (below every digit byte, so "1" sorts before "12").
  // Example: 12 -> 03 80 01 02 03 00; -12 -> 01 7F FE FD FC FF.
  void AppendOrderedKey(std::string* out) const;

  // Decodes what AppendOrderedKey wrote at the front of `*in` and advances `*in` past it.
  // Returns nullopt (leaving `*in` unspecified) on truncated or non-canonical bytes; safe on
  // arbitrary input.
  static std::optional<Number> DecodeOrderedKey(std::string_view* in);

  // The value truncated toward zero, clamped to [INT64_MIN, INT64_MAX] (used by TTL).
  int64_t ToInt64Truncated() const;
  // Nearest double (correctly rounded).
  double ToDouble() const;

  // Count of significant digits, 0 for zero. DynamoDB sizes a number as about
  // 1 + ceil(SignificantDigits() / 2) bytes.
  int SignificantDigits() const { return static_cast<int>(digits_.size()); }
  // Decimal exponent in the convention value = 0.d1d2...dn * 10^Exponent(); 0 for zero.
  int Exponent() const { return exponent_; }

 private:
  Number(bool negative, std::string digits, int32_t exponent)
      : negative_(negative), digits_(std::move(digits)), exponent_(exponent) {}

  // Normalizes (strips leading/trailing zeros, adjusting the exponent) and checks the limits.
  // `exponent` is in the 0.d1d2... convention for `digits` as given.
  static Result<Number> FromParts(bool negative, std::string digits, int64_t exponent);
  // Compares |this| with |other|.
  int CompareMagnitude(const Number& other) const;
  // Exact sum of this and (other_negative ? -1 : 1) * |other|.
  Result<Number> AddSigned(const Number& other, bool other_negative) const;

  // Invariants: digits_ holds '0'..'9' with no leading or trailing '0'; empty means zero, in
  // which case negative_ is false and exponent_ is 0.
  bool negative_ = false;
  std::string digits_;
  int32_t exponent_ = 0;
};

}  // namespace ttlstore::model
