// Tests for model::Number: parsing, canonical text, limits, ordering, exact arithmetic and the
// persisted ordered-key encoding.
#include "model/number.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace ttlstore::model {
namespace {

std::string Malformed(std::string_view text) {
  return "The parameter cannot be converted to a numeric value: " + std::string(text);
}
constexpr char kTooManyDigits[] = "Attempting to store more than 38 significant digits in a Number";
constexpr char kOverflow[] =
    "Number overflow. Attempting to store a number with magnitude larger than supported range";
constexpr char kUnderflow[] =
    "Number underflow. Attempting to store a number with magnitude smaller than supported range";
const std::string kMaxText = "9.9999999999999999999999999999999999999E+125";

Number N(std::string_view text) {
  Result<Number> n = Number::Parse(text);
  EXPECT_TRUE(n.ok()) << text << ": " << (n.ok() ? "" : n.error().message());
  return n.ok() ? *n : Number();
}

std::string Canon(std::string_view text) { return N(text).ToString(); }

// The error message Parse gives, or "" if it succeeds.
std::string ParseError(std::string_view text) {
  Result<Number> n = Number::Parse(text);
  if (n.ok()) return "";
  EXPECT_EQ(n.error().code(), ErrorCode::kValidation);
  return n.error().message();
}

std::string ArithError(const Result<Number>& r) {
  if (r.ok()) return "ok:" + r->ToString();
  EXPECT_EQ(r.error().code(), ErrorCode::kValidation);
  return r.error().message();
}

std::string Key(const Number& n) {
  std::string out;
  n.AppendOrderedKey(&out);
  return out;
}

std::string Hex(const std::string& bytes) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : bytes) {
    if (!out.empty()) out.push_back(' ');
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 15]);
  }
  return out;
}

TEST(NumberParse, AcceptsAllValidForms) {
  for (const char* text : {"0", "1", "-1", "+1", "007", "1.5", ".5", "5.", "-.5", "+5.", "1e2",
                           "1E2", "1e+2", "1e-2", "1.5E-3", "-0", "+0", "0.000", "00.00e5",
                           "123456789", "1e0", "1e007"}) {
    EXPECT_EQ(ParseError(text), "") << text;
  }
}

TEST(NumberParse, RejectsMalformedTextWithDynamoMessage) {
  for (const char* text : {"", " ", " 1", "1 ", "abc", "1e", "1e+", "e5", "--1", "+-1", "-",
                           "+", ".", ".e1", "1..2", "1.2.3", "Infinity", "-Infinity", "NaN",
                           "0x10", "1f", "1e1.5", "1,000", "١"}) {
    EXPECT_EQ(ParseError(text), Malformed(text)) << "[" << text << "]";
  }
  EXPECT_EQ(ParseError(std::string_view("1\0", 2)), Malformed(std::string_view("1\0", 2)));
}

TEST(NumberToString, ProducesCanonicalText) {
  EXPECT_EQ(Canon("1.0"), "1");
  EXPECT_EQ(Canon("01"), "1");
  EXPECT_EQ(Canon("1e2"), "100");
  EXPECT_EQ(Canon("0.10"), "0.1");
  EXPECT_EQ(Canon("-1.5e-3"), "-0.0015");
  EXPECT_EQ(Canon("1E+125"), "1" + std::string(125, '0'));
  EXPECT_EQ(Canon("-0"), "0");
  EXPECT_EQ(Canon("-0.000e-99"), "0");
  EXPECT_EQ(Canon("+5."), "5");
  EXPECT_EQ(Canon(".5"), "0.5");
  EXPECT_EQ(Canon("-.5"), "-0.5");
  EXPECT_EQ(Canon("123.456"), "123.456");
  EXPECT_EQ(Canon("123.456e1"), "1234.56");
  EXPECT_EQ(Canon("123.456e3"), "123456");
  EXPECT_EQ(Canon("123.456e5"), "12345600");
  EXPECT_EQ(Canon("123.456e-3"), "0.123456");
  EXPECT_EQ(Canon("123.456e-5"), "0.00123456");
  EXPECT_EQ(Canon("1000"), "1000");
  EXPECT_EQ(Canon("0001000.000100"), "1000.0001");
  EXPECT_EQ(Canon("1E-130"), "0." + std::string(129, '0') + "1");
}

TEST(NumberToString, RoundTripsThroughParse) {
  for (const char* text : {"0", "-7", "0.001", "123.45", "1e100", "-9.5e-100", "42e-1"}) {
    Number n = N(text);
    EXPECT_EQ(N(n.ToString()).ToString(), n.ToString());
    EXPECT_TRUE(N(n.ToString()) == n);
  }
}

TEST(NumberParse, CountsSignificantDigitsAfterStrippingZeros) {
  EXPECT_EQ(N("0").SignificantDigits(), 0);
  EXPECT_EQ(N("100").SignificantDigits(), 1);
  EXPECT_EQ(N("1.50").SignificantDigits(), 2);
  EXPECT_EQ(N("0.0001").SignificantDigits(), 1);
  EXPECT_EQ(N("-120.034").SignificantDigits(), 6);
  EXPECT_EQ(N("1").Exponent(), 1);
  EXPECT_EQ(N("0.05").Exponent(), -1);
}

TEST(NumberParse, Accepts38SignificantDigits) {
  std::string digits38 = "12345678901234567890123456789012345678";
  EXPECT_EQ(Canon(digits38), digits38);
  EXPECT_EQ(Canon("-0.00" + digits38 + "000"), "-0.00" + digits38);
  EXPECT_EQ(N(digits38).SignificantDigits(), 38);
}

TEST(Number, RejectsMoreThan38SignificantDigits) {
  EXPECT_EQ(ParseError("123456789012345678901234567890123456789"), kTooManyDigits);
  EXPECT_EQ(ParseError("1.00000000000000000000000000000000000001"), kTooManyDigits);
  EXPECT_EQ(ParseError("-0.000123456789012345678901234567890123456789"), kTooManyDigits);
}

TEST(NumberParse, AcceptsManyTrailingOrLeadingZeros) {
  EXPECT_EQ(Canon("1" + std::string(60, '0')), "1" + std::string(60, '0'));
  EXPECT_EQ(Canon(std::string(500, '0') + "7"), "7");
  EXPECT_EQ(Canon("7." + std::string(500, '0')), "7");
  EXPECT_EQ(Canon("0.000"), "0");
  EXPECT_TRUE(N("0.000").IsZero());
  EXPECT_FALSE(N("-0.000").IsNegative());
}

TEST(NumberParse, EnforcesRangeAtTheEdges) {
  EXPECT_EQ(ParseError("1E-130"), "");
  EXPECT_EQ(ParseError("-1E-130"), "");
  EXPECT_EQ(ParseError("1E-131"), kUnderflow);
  EXPECT_EQ(ParseError("-0.99E-130"), kUnderflow);
  EXPECT_EQ(ParseError(kMaxText), "");
  EXPECT_EQ(ParseError("-" + kMaxText), "");
  EXPECT_EQ(ParseError("1E+126"), kOverflow);
  EXPECT_EQ(ParseError("-1E126"), kOverflow);
  EXPECT_EQ(ParseError("10E125"), kOverflow);
  EXPECT_EQ(ParseError("0.1E-129"), "");
  EXPECT_EQ(ParseError("0.01E-129"), kUnderflow);
  EXPECT_EQ(Canon(kMaxText), std::string(38, '9') + std::string(88, '0'));
}

// The service reads the exponent in full (a conformance suite's capture against it,
// tests/tier3/limits/numberExponent): past 64 bits it cannot be converted; past 32 bits it is
// out of range; zero is range-checked by its exponent.
TEST(NumberParse, ReadsExponentsInFull) {
  EXPECT_EQ(ParseError("1e99999999999"), kOverflow);
  EXPECT_EQ(ParseError("1e-99999999999"), kUnderflow);
  EXPECT_EQ(ParseError("1e2147483648"), kOverflow);
  EXPECT_EQ(ParseError("1e2147483647"), kUnderflow);  // the service's 32-bit wrap
  EXPECT_EQ(ParseError("1e9223372036854775807"), kOverflow);
  EXPECT_EQ(ParseError("1e-9223372036854775808"), kUnderflow);
  EXPECT_EQ(ParseError("1e9223372036854775808"), Malformed("1e9223372036854775808"));
  EXPECT_EQ(ParseError("1e99999999999999999999999999"), Malformed("1e99999999999999999999999999"));
  EXPECT_EQ(ParseError("0e126"), kOverflow);
  EXPECT_EQ(ParseError("0e-131"), kUnderflow);
  EXPECT_EQ(ParseError("0e125"), "");
  EXPECT_EQ(ParseError("0.000"), "");
  EXPECT_EQ(ParseError("1" + std::string(200, '0') + "e-150"), "");
}

TEST(NumberCompare, OrdersByNumericValue) {
  EXPECT_EQ(N("1").Compare(N("1.0")), 0);
  EXPECT_EQ(N("1").Compare(N("10e-1")), 0);
  EXPECT_EQ(N("0").Compare(N("-0")), 0);
  EXPECT_LT(N("1").Compare(N("2")), 0);
  EXPECT_GT(N("10").Compare(N("9")), 0);
  EXPECT_LT(N("1").Compare(N("1.5")), 0);
  EXPECT_LT(N("-2").Compare(N("-1")), 0);
  EXPECT_LT(N("-1.5").Compare(N("-1")), 0);
  EXPECT_LT(N("-1").Compare(N("0")), 0);
  EXPECT_LT(N("0").Compare(N("1E-130")), 0);
  EXPECT_LT(N("-1E-130").Compare(N("0")), 0);
  EXPECT_LT(N("0.09").Compare(N("0.1")), 0);
  EXPECT_TRUE(N("2.50") == N("2.5"));
  EXPECT_TRUE(N("-3") < N("2"));
}

TEST(NumberAdd, IsExactForDecimalFractions) {
  EXPECT_TRUE(*N("0.1").Add(N("0.2")) == N("0.3"));
  EXPECT_EQ(N("0.1").Add(N("0.2"))->ToString(), "0.3");
  EXPECT_EQ(N("1.005").Add(N("-0.005"))->ToString(), "1");
  EXPECT_EQ(N("123.456").Add(N("0.000544"))->ToString(), "123.456544");
}

TEST(NumberAdd, PropagatesCarriesAndBorrows) {
  EXPECT_EQ(N("999").Add(N("1"))->ToString(), "1000");
  EXPECT_EQ(N("99.99").Add(N("0.01"))->ToString(), "100");
  EXPECT_EQ(N("1000").Subtract(N("1"))->ToString(), "999");
  EXPECT_EQ(N("1").Subtract(N("0.0001"))->ToString(), "0.9999");
  EXPECT_EQ(N("1e20").Add(N("1e-17"))->ToString(),
            "100000000000000000000.00000000000000001");
}

TEST(NumberAdd, HandlesSignsAndZero) {
  EXPECT_EQ(N("1").Subtract(N("3"))->ToString(), "-2");
  EXPECT_EQ(N("-1").Add(N("-2.5"))->ToString(), "-3.5");
  EXPECT_EQ(N("-5").Add(N("3"))->ToString(), "-2");
  EXPECT_EQ(N("-5").Subtract(N("-5"))->ToString(), "0");
  EXPECT_FALSE(N("-5").Subtract(N("-5"))->IsNegative());
  EXPECT_EQ(N("0").Subtract(N("7"))->ToString(), "-7");
  EXPECT_EQ(N("0").Subtract(N("-7"))->ToString(), "7");
  EXPECT_EQ(N("7").Subtract(N("0"))->ToString(), "7");
  EXPECT_EQ(N("0").Add(N("0"))->ToString(), "0");
}

TEST(NumberAdd, IsExactForLargeValues) {
  std::string big = "9999999999999999999999999999999999999";  // 37 nines
  EXPECT_EQ(N(big).Add(N("1"))->ToString(), "1" + std::string(37, '0'));
  EXPECT_EQ(N("1e125").Add(N("1e125"))->ToString(), "2" + std::string(125, '0'));
  EXPECT_EQ(N(kMaxText).Subtract(N("1e88"))->ToString(),
            std::string(37, '9') + "8" + std::string(88, '0'));
}

TEST(NumberAdd, ReportsOverflowUnderflowAndPrecision) {
  EXPECT_EQ(ArithError(N(kMaxText).Add(N("1e88"))), kOverflow);
  EXPECT_EQ(ArithError(N("-" + kMaxText).Subtract(N("1e88"))), kOverflow);
  EXPECT_EQ(ArithError(N(kMaxText).Add(N("1"))), kOverflow);
  EXPECT_EQ(ArithError(N(std::string(38, '9')).Add(N("1"))), "ok:1" + std::string(38, '0'));
  EXPECT_EQ(ArithError(N("1e37").Add(N("0.1"))), kOverflow);
  EXPECT_EQ(ArithError(N("1e50").Subtract(N("1"))), kOverflow);  // precision, as the service says
  EXPECT_EQ(ArithError(N("1.234E-130").Subtract(N("1.233E-130"))), kUnderflow);
  EXPECT_EQ(ArithError(N("2E-130").Subtract(N("1E-130"))), "ok:" + Canon("1E-130"));
}

TEST(NumberOrderedKey, MatchesGoldenBytes) {
  // Persisted format: these bytes must never change.
  EXPECT_EQ(Hex(Key(N("0"))), "02");
  EXPECT_EQ(Hex(Key(N("1"))), "03 80 00 02 00");
  EXPECT_EQ(Hex(Key(N("12"))), "03 80 01 02 03 00");
  EXPECT_EQ(Hex(Key(N("-12"))), "01 7F FE FD FC FF");
  EXPECT_EQ(Hex(Key(N("0.5"))), "03 7F FF 06 00");
  EXPECT_EQ(Hex(Key(N("-1"))), "01 7F FF FD FF");
  EXPECT_EQ(Hex(Key(N("1E-130"))), "03 7F 7E 02 00");
  EXPECT_EQ(Hex(Key(N("9.09E+125"))), "03 80 7D 0A 01 0A 00");
}

TEST(NumberOrderedKey, EncodesEqualNumbersIdentically) {
  EXPECT_EQ(Key(N("1")), Key(N("1.0")));
  EXPECT_EQ(Key(N("1")), Key(N("10e-1")));
  EXPECT_EQ(Key(N("0")), Key(N("-0.00")));
}

TEST(NumberOrderedKey, IsSelfDelimiting) {
  std::string buf;
  N("-12.5").AppendOrderedKey(&buf);
  N("0").AppendOrderedKey(&buf);
  N("3e7").AppendOrderedKey(&buf);
  buf.push_back('x');
  std::string_view in = buf;
  EXPECT_EQ(Number::DecodeOrderedKey(&in)->ToString(), "-12.5");
  EXPECT_EQ(Number::DecodeOrderedKey(&in)->ToString(), "0");
  EXPECT_EQ(Number::DecodeOrderedKey(&in)->ToString(), "30000000");
  EXPECT_EQ(in, "x");
}

TEST(NumberOrderedKey, RejectsMalformedBytes) {
  auto decode = [](std::string bytes) {
    std::string_view in = bytes;
    return Number::DecodeOrderedKey(&in).has_value();
  };
  using namespace std::string_literals;
  EXPECT_FALSE(decode(""));
  EXPECT_FALSE(decode("\x04"s));
  EXPECT_FALSE(decode("\x03"s));
  EXPECT_FALSE(decode("\x03\x80"s));
  EXPECT_FALSE(decode("\x03\x80\x00"s));            // no digits, no terminator
  EXPECT_FALSE(decode("\x03\x80\x00\x00"s));        // no digits
  EXPECT_FALSE(decode("\x03\x80\x00\x02"s));        // no terminator
  EXPECT_FALSE(decode("\x03\x80\x00\x0B\x00"s));    // digit byte out of range
  EXPECT_FALSE(decode("\x03\x80\x00\x01\x02\x00"s));  // leading zero digit
  EXPECT_FALSE(decode("\x03\x80\x00\x02\x01\x00"s));  // trailing zero digit
  EXPECT_FALSE(decode("\x03\x80\x7E\x02\x00"s));    // exponent above 1E+125
  EXPECT_FALSE(decode("\x03\x7F\x7D\x02\x00"s));    // exponent below 1E-130
  EXPECT_FALSE(decode("\x03\x80\x00"s + std::string(39, '\x02') + "\x00"s));  // 39 digits
  EXPECT_TRUE(decode("\x03\x80\x00"s + std::string(38, '\x02') + "\x00"s));
  EXPECT_TRUE(decode("\x01\x7F\xFF\xFD\xFF"s));
}

TEST(NumberOrderedKey, SurvivesRandomGarbage) {
  std::mt19937 rng(7);
  int decoded = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string bytes(rng() % 12, '\0');
    for (char& c : bytes) c = static_cast<char>(rng() % 4 == 0 ? rng() % 12 : rng());
    if (!bytes.empty() && rng() % 2) bytes[0] = static_cast<char>(1 + rng() % 3);
    std::string_view in = bytes;
    std::optional<Number> n = Number::DecodeOrderedKey(&in);
    if (!n) continue;
    ++decoded;
    // Whatever decodes must re-encode to exactly the bytes consumed.
    EXPECT_EQ(Key(*n), bytes.substr(0, bytes.size() - in.size()));
  }
  EXPECT_GT(decoded, 0);
}

// Builds a random valid number: random sign, 1..38 digits, exponent across the whole range,
// sometimes clustered near 1 so that close values and shared prefixes are common.
Number RandomNumber(std::mt19937_64& rng) {
  if (rng() % 20 == 0) return Number();
  int n = 1 + static_cast<int>(rng() % (rng() % 3 == 0 ? 38 : 4));
  std::string digits;
  for (int i = 0; i < n; ++i) digits.push_back(static_cast<char>('0' + rng() % 10));
  if (digits.front() == '0') digits.front() = '1';
  int exponent = rng() % 2 ? -129 + static_cast<int>(rng() % 256) : -2 + static_cast<int>(rng() % 5);
  std::string text = (rng() % 2 ? "-0." : "0.") + digits + "e" + std::to_string(exponent);
  return N(text);
}

TEST(NumberOrderedKey, PreservesOrderAndRoundTripsForRandomNumbers) {
  std::mt19937_64 rng(20240601);
  std::vector<Number> numbers;
  for (int i = 0; i < 3000; ++i) numbers.push_back(RandomNumber(rng));
  for (const Number& n : numbers) {
    std::string key = Key(n);
    std::string_view in = key;
    std::optional<Number> back = Number::DecodeOrderedKey(&in);
    ASSERT_TRUE(back.has_value()) << n.ToString();
    EXPECT_TRUE(in.empty());
    EXPECT_EQ(back->ToString(), n.ToString());
  }
  std::vector<Number> by_value = numbers;
  std::sort(by_value.begin(), by_value.end());
  for (size_t i = 0; i + 1 < by_value.size(); ++i) {
    const Number& a = by_value[i];
    const Number& b = by_value[i + 1];
    int c = a.Compare(b);
    int k = Key(a).compare(Key(b));
    EXPECT_EQ((c > 0) - (c < 0), (k > 0) - (k < 0)) << a.ToString() << " vs " << b.ToString();
    // Correctly rounded doubles are monotone, an independent check of Compare.
    EXPECT_LE(a.ToDouble(), b.ToDouble()) << a.ToString() << " vs " << b.ToString();
  }
  for (int i = 0; i < 20000; ++i) {
    const Number& a = numbers[rng() % numbers.size()];
    const Number& b = numbers[rng() % numbers.size()];
    int c = a.Compare(b);
    int k = Key(a).compare(Key(b));
    ASSERT_EQ((c > 0) - (c < 0), (k > 0) - (k < 0)) << a.ToString() << " vs " << b.ToString();
  }
}

TEST(NumberAdd, AgreesWithSubtractionForRandomNumbers) {
  std::mt19937_64 rng(99);
  int checked = 0;
  for (int i = 0; i < 3000; ++i) {
    Number a = RandomNumber(rng);
    Number b = RandomNumber(rng);
    Result<Number> sum = a.Add(b);
    Result<Number> sum2 = b.Add(a);
    ASSERT_EQ(sum.ok(), sum2.ok());
    if (!sum.ok()) continue;
    EXPECT_TRUE(*sum == *sum2);
    Result<Number> back = sum->Subtract(b);
    ASSERT_TRUE(back.ok()) << a.ToString() << " + " << b.ToString();
    EXPECT_EQ(back->ToString(), a.ToString());
    ++checked;
  }
  EXPECT_GT(checked, 1000);
}

TEST(NumberConvert, TruncatesTowardZeroAndClamps) {
  EXPECT_EQ(N("0").ToInt64Truncated(), 0);
  EXPECT_EQ(N("0.99").ToInt64Truncated(), 0);
  EXPECT_EQ(N("-0.99").ToInt64Truncated(), 0);
  EXPECT_EQ(N("1.99").ToInt64Truncated(), 1);
  EXPECT_EQ(N("-1.99").ToInt64Truncated(), -1);
  EXPECT_EQ(N("1700000000").ToInt64Truncated(), 1700000000);
  EXPECT_EQ(N("1.7e9").ToInt64Truncated(), 1700000000);
  EXPECT_EQ(N("9223372036854775807").ToInt64Truncated(), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(N("9223372036854775808").ToInt64Truncated(), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(N("-9223372036854775808").ToInt64Truncated(), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(N("-9223372036854775809").ToInt64Truncated(), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(N("-9223372036854775807.9").ToInt64Truncated(),
            -std::numeric_limits<int64_t>::max());
  EXPECT_EQ(N("9999999999999999999").ToInt64Truncated(), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(N("1e100").ToInt64Truncated(), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(N("-1e100").ToInt64Truncated(), std::numeric_limits<int64_t>::min());
}

TEST(NumberConvert, ApproximatesAsDouble) {
  EXPECT_EQ(N("0").ToDouble(), 0.0);
  EXPECT_EQ(N("1.5").ToDouble(), 1.5);
  EXPECT_EQ(N("-0.1").ToDouble(), -0.1);
  EXPECT_EQ(N("1e100").ToDouble(), 1e100);
  EXPECT_EQ(N("1E-130").ToDouble(), 1e-130);
  EXPECT_EQ(N(kMaxText).ToDouble(), 1e126);
}

}  // namespace
}  // namespace ttlstore::model
