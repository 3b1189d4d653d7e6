// Where aggregations read a field's values: the matches of a Search's query, and for each field
// an aggregation names, the values of every match as order-preserving 64-bit keys, loaded once
// per request from the index's value slots (search/terms.h). This is the one place values come
// from (FieldSource::Column): a GeoPoint or Nested source is another way to fill a Column.
//
// Keys: Long and Date LongKey(v), Double DoubleKey(v), Boolean 0 or 1, Keyword the value's rank
// in the column's sorted dictionary; so a key's order is its value's order and equal keys are
// equal values. A single-valued field has one key per document that has it; an array field
// every element's (slot kSlotArrayBase + i, written since issue 32). Documents written
// before that slot existed hold only an array's first element: for them the elements are read
// from the table's row (RowValues), the "stored data" of the brief.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <string>
#include <vector>

#include <xapian.h>

#include "common/result.h"
#include "model/cell.h"
#include "model/search_index.h"

namespace ttlstore::search {

// Every match of the query, in docid order, with Xapian's weight (top_rows' score sorts).
struct MatchSet {
  std::vector<Xapian::docid> docids;
  std::vector<double> weights;  // empty unless scores were asked
};

// Documents of a MatchSet, as ascending indexes into it.
using DocList = std::vector<uint32_t>;

class Column {
 public:
  model::SearchFieldType type = model::SearchFieldType::kLong;

  // The keys of document `doc` (an index into the MatchSet); empty when it has no value.
  std::span<const uint64_t> Values(uint32_t doc) const {
    return {keys_.data() + offsets_[doc], keys_.data() + offsets_[doc + 1]};
  }
  bool numeric() const;
  // Long, Date and Double keys as numbers; Boolean 0/1.
  double Number(uint64_t key) const;
  int64_t Integer(uint64_t key) const;  // Long and Date
  // The key of `v` (already of the field's form, search/agg_validate.h AggValueOf); a Keyword
  // not in the dictionary gets a key no value has (kForeignKey), equal only to itself.
  uint64_t KeyOf(const model::CellValue& v) const;
  // The value of a key, as the service's group keys spell it: Long and Date in decimal, Double
  // as Java's Double.toString, Boolean "true"/"false", Keyword the word.
  std::string KeyString(uint64_t key) const;
  // The value of a key as a typed cell (Long and Date integers, Double doubles, ...).
  model::CellValue KeyCell(uint64_t key) const;

  static constexpr uint64_t kForeignKey = ~uint64_t{0};

  // Filling (FieldSource). Keys of document d go between offsets_[d] and offsets_[d + 1].
  std::vector<uint32_t> offsets_;
  std::vector<uint64_t> keys_;
  std::vector<std::string> dict_;       // Keyword: sorted distinct values
};

// Reads the elements of an array field from the table's row stored under `row_key` (documents
// without the array slot); empty when the row is gone.
using RowValues = std::function<std::vector<model::CellValue>(const std::string& row_key,
                                                              const model::SearchField& field)>;

class FieldSource {
 public:
  FieldSource(const model::SearchIndexMeta& index, const Xapian::Database& db,
              const MatchSet& matches, RowValues row_values);

  // The column of `field` (a field of the index), loaded on first use. Xapian errors propagate
  // as exceptions (SearchEngine's reader loop handles them).
  const Column& ColumnOf(const model::SearchField& field);

  const MatchSet& matches() const { return matches_; }

 private:
  void Load(const model::SearchField& f, size_t field_index, Column* c);

  const model::SearchIndexMeta& index_;
  const Xapian::Database& db_;
  const MatchSet& matches_;
  RowValues row_values_;
  std::map<std::string, std::unique_ptr<Column>> columns_;
};

// Java's Double.toString (Elasticsearch's key of a double group): "1.0", "3.1", "1.0E10",
// "1.0E-5", "NaN", "Infinity".
std::string JavaDoubleString(double d);

}  // namespace ttlstore::search
