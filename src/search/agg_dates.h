// The groups of GroupByDateHistogram: where the group of a timestamp starts, for an interval of
// fixed length (week and below) or of calendar months (month, quarter, year), in a fixed time
// zone offset and shifted by an offset, as Elasticsearch's date_histogram rounds (the
// service's date histogram is Elasticsearch's: weeks start on Monday, months on their first
// day, both in the given zone). Pure arithmetic; timestamps are milliseconds since the epoch
// (UTC), clamped to int64 at the extremes.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "search/agg_types.h"

namespace ttlstore::search {

// The length of `s` in milliseconds when it is fixed (week and below); nullopt for month,
// quarter and year, or a length past int64.
std::optional<int64_t> FixedMillis(const DateSpan& s);

// "+hh:mm" or "-hh:mm" (hh 00-18, mm 00-59) as milliseconds east of UTC; nullopt otherwise.
std::optional<int64_t> ParseZoneOffset(std::string_view zone);

class DateRounding {
 public:
  // REQUIRES: interval.value >= 1; offset_ms and zone_ms within a few days.
  DateRounding(DateSpan interval, int64_t offset_ms, int64_t zone_ms);

  // The start (UTC milliseconds) of the group holding `t`.
  int64_t Floor(int64_t t) const;
  // The start of the group after the one starting at `start` (a value Floor returned).
  int64_t Next(int64_t start) const;

 private:
  int64_t fixed_ = 0;   // fixed length in ms; 0 for calendar months
  int64_t months_ = 0;  // calendar step in months
  int64_t origin_ = 0;  // where fixed groups are counted from (Monday 1969-12-29 for weeks)
  int64_t offset_ = 0;
  int64_t zone_ = 0;
};

// Days since 1970-01-01 of a proleptic Gregorian date, and back.
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d);
void CivilFromDays(int64_t days, int64_t* y, unsigned* m, unsigned* d);

}  // namespace ttlstore::search
