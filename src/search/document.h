// The Xapian document of one table row in one search index (layout in search/terms.h): built
// from the row's current state as the applier, the build and `ttlstore check` read it, so that
// replaying a change is idempotent. Only what a reader of the table sees counts: a row hidden
// by the table's options has no document, and each column contributes its newest visible
// version (versions/visibility.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <xapian.h>

#include "model/cell.h"
#include "model/search_index.h"
#include "model/versioned_table.h"
#include "versions/row.h"

namespace ttlstore::search {

// Bounds on an is_array column's JSON text (elements beyond are not indexed; deeper nesting
// makes the value unusable for the row).
inline constexpr size_t kMaxArrayElements = 1024;
inline constexpr size_t kMaxArrayTextBytes = 1 << 20;

// Seconds a document stays searchable after its row's newest version: the smaller of the
// index's and the table's TTL; -1 forever.
int64_t EffectiveTtlSeconds(const model::SearchIndexMeta& index,
                            const model::TablestoreSchema& table);

// The values of field `f` in the row's cell `cell` (one, or an array's elements), converted to
// the field's type; empty when the cell does not fit the type (the field is then absent).
std::vector<model::CellValue> FieldValues(const model::SearchField& f, const model::CellValue& cell);

// The row's newest visible version timestamp, or nullopt for a row without versions.
std::optional<int64_t> NewestTimestamp(const versions::StoredRow& row,
                                       const model::VersionOptions& options, int64_t now_ms);

// The document of the row stored under `row_key`, or nullopt when the index should hold none
// (the row is gone for readers, or past the effective TTL at now_ms).
std::optional<Xapian::Document> BuildDocument(const model::SearchIndexMeta& index,
                                              const model::TablestoreSchema& table,
                                              std::string_view row_key,
                                              const versions::StoredRow& row, int64_t now_ms);

// Adds the terms of one value `v` of field `f` (already of its type, as FieldValues gives it;
// GeoPoint and Nested fields have builders of their own) under term key `key` (terms.h): the trie
// terms of a number, the term of a Keyword or Boolean, or the words of a Text value at positions
// from *pos on (*pos is advanced past them with a gap, so that two values are never adjacent for
// MatchPhrase).
void AddValueTerms(Xapian::Document* doc, const model::SearchField& f, std::string_view key,
                   const model::CellValue& v, uint32_t analysis, Xapian::termpos* pos);

// The sort-slot form of one field value (terms.h: 0x01 . form).
std::string SortValue(const model::SearchField& f, const model::CellValue& v);
// The 8-byte order-preserving key of a numeric value of field type `t` (Long, Date: integer;
// Double: double).
uint64_t NumericKey(model::SearchFieldType t, const model::CellValue& v);

}  // namespace ttlstore::search
