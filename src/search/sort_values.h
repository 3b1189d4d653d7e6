// Sorts whose key a document does not hold ready in a slot but that are computed from its slot
// values at query time (issue 32): GeoDistanceSort (the distance from the sort's points to the
// row's points) and FieldSort or GeoDistanceSort on a sub-field of a Nested field (the values of
// the sub-documents that match the sort's nested_filter). Several values combine by the sort's
// mode: the smallest ascending and the largest descending by default, or min, max, avg as given.
// A row without a value is missing (missing_value applies to a nested FieldSort; a row without
// points sorts last in either order).
//
// Rows are ordered by these values only: the service returns no sort values (no SDK's
// SearchHit has a field for them).
#pragma once

#include <functional>
#include <string>

#include <xapian.h>

#include "common/result.h"
#include "model/search_index.h"
#include "search/query.h"

namespace ttlstore::search {

// Whether `k` (a field sort) is computed here: a GeoDistanceSort, or a sort on a GeoPoint or
// Nested field or on a sub-field.
bool IsSlotSort(const model::SearchIndexMeta& index, const SortKey& k);

// Ok, or kValidation with the text, for such a sort.
Status ValidateSlotSort(const model::SearchIndexMeta& index, const SortKey& k);

// The sort value of `k` for a document: 0x01 . an order-preserving form, or "" when missing.
// REQUIRES: ValidateSlotSort(index, k).
using SortValueFn = std::function<std::string(const Xapian::Document&)>;
SortValueFn MakeSlotSortValue(const model::SearchIndexMeta& index, const SortKey& k);
// The form of k.missing_value as MakeSlotSortValue would give it; "" when there is none.
std::string SlotSortMissingValue(const model::SearchIndexMeta& index, const SortKey& k);

}  // namespace ttlstore::search
