#include "search/agg_dates.h"

#include <limits>

namespace ttlstore::search {
namespace {

constexpr int64_t kDayMs = 86'400'000;
constexpr __int128 kMin = std::numeric_limits<int64_t>::min();
constexpr __int128 kMax = std::numeric_limits<int64_t>::max();

int64_t Clamp(__int128 v) { return int64_t(v < kMin ? kMin : v > kMax ? kMax : v); }

__int128 FloorDiv(__int128 a, __int128 b) {
  __int128 q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

}  // namespace

int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  // Eras of 400 years (146097 days) starting on March 1st, so that the leap day ends a year.
  y -= m <= 2;
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  int64_t yoe = y - era * 400;                                   // [0, 399]
  int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;  // [0, 365]
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;           // [0, 146096]
  return era * 146097 + doe - 719468;
}

void CivilFromDays(int64_t days, int64_t* y, unsigned* m, unsigned* d) {
  days += 719468;
  int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  int64_t doe = days - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  *d = unsigned(doy - (153 * mp + 2) / 5 + 1);
  *m = unsigned(mp < 10 ? mp + 3 : mp - 9);
  *y = yoe + era * 400 + (*m <= 2);
}

std::optional<int64_t> FixedMillis(const DateSpan& s) {
  int64_t unit = 0;
  switch (s.unit) {
    case DateUnit::kWeek: unit = 7 * kDayMs; break;
    case DateUnit::kDay: unit = kDayMs; break;
    case DateUnit::kHour: unit = 3'600'000; break;
    case DateUnit::kMinute: unit = 60'000; break;
    case DateUnit::kSecond: unit = 1000; break;
    case DateUnit::kMillisecond: unit = 1; break;
    default: return std::nullopt;
  }
  __int128 v = __int128(s.value) * unit;
  if (v > kMax || v < kMin) return std::nullopt;
  return int64_t(v);
}

std::optional<int64_t> ParseZoneOffset(std::string_view z) {
  if (z.size() != 6 || (z[0] != '+' && z[0] != '-') || z[3] != ':') return std::nullopt;
  auto digit = [&](size_t i) { return z[i] >= '0' && z[i] <= '9'; };
  if (!digit(1) || !digit(2) || !digit(4) || !digit(5)) return std::nullopt;
  int hh = (z[1] - '0') * 10 + (z[2] - '0');
  int mm = (z[4] - '0') * 10 + (z[5] - '0');
  if (hh > 18 || mm > 59 || (hh == 18 && mm > 0)) return std::nullopt;
  int64_t ms = (int64_t(hh) * 60 + mm) * 60'000;
  return z[0] == '-' ? -ms : ms;
}

DateRounding::DateRounding(DateSpan interval, int64_t offset_ms, int64_t zone_ms)
    : offset_(offset_ms), zone_(zone_ms) {
  if (auto f = FixedMillis(interval)) {
    fixed_ = *f;
    // Weeks start on Monday: 1970-01-01 was a Thursday.
    if (interval.unit == DateUnit::kWeek) origin_ = -3 * kDayMs;
  } else {
    int64_t per = interval.unit == DateUnit::kYear ? 12 : interval.unit == DateUnit::kQuarter ? 3 : 1;
    months_ = interval.value * per;
    if (months_ <= 0) months_ = 1;  // REQUIRES above; never a zero step
  }
  if (fixed_ <= 0 && months_ == 0) fixed_ = 1;
}

int64_t DateRounding::Floor(int64_t t) const {
  __int128 local = __int128(t) + zone_ - offset_;
  __int128 start;
  if (fixed_ > 0) {
    start = FloorDiv(local - origin_, fixed_) * fixed_ + origin_;
  } else {
    __int128 days = FloorDiv(local, kDayMs);
    days = days < kMin / kDayMs ? kMin / kDayMs : days > kMax / kDayMs ? kMax / kDayMs : days;
    int64_t y;
    unsigned m, d;
    CivilFromDays(int64_t(days), &y, &m, &d);
    __int128 months = __int128(y) * 12 + (m - 1);
    __int128 first = FloorDiv(months, months_) * months_;
    int64_t fy = int64_t(FloorDiv(first, 12));
    unsigned fm = unsigned(first - __int128(fy) * 12) + 1;
    start = __int128(DaysFromCivil(fy, fm, 1)) * kDayMs;
  }
  return Clamp(start + offset_ - zone_);
}

int64_t DateRounding::Next(int64_t start) const {
  if (fixed_ > 0) return Clamp(__int128(start) + fixed_);
  __int128 local = __int128(start) + zone_ - offset_;
  __int128 days = FloorDiv(local, kDayMs);
  days = days < kMin / kDayMs ? kMin / kDayMs : days > kMax / kDayMs ? kMax / kDayMs : days;
  int64_t y;
  unsigned m, d;
  CivilFromDays(int64_t(days), &y, &m, &d);
  __int128 months = __int128(y) * 12 + (m - 1) + months_;
  int64_t ny = int64_t(FloorDiv(months, 12));
  unsigned nm = unsigned(months - __int128(ny) * 12) + 1;
  return Clamp(__int128(DaysFromCivil(ny, nm, 1)) * kDayMs + offset_ - zone_);
}

}  // namespace ttlstore::search
