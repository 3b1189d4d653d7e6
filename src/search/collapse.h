// Field collapsing (issue 32): Search's Collapse, one hit per distinct value of a field, as the
// service documents it (docs/tablestore.md, "Collapse"): the hit of a group is its first row in
// the search's sort, groups come in the order of those rows, the rows without the field form
// one group (as Elasticsearch's collapse, which the service's follows), and pages go by offset
// and limit only.
//
// Xapian collapses on a value slot but never groups documents whose slot is empty, so the rows
// with the field are collapsed by Xapian (the field's sort slot, search/terms.h) and the first
// row without it, found by a second match, is placed among them by the same order.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <xapian.h>

#include "common/result.h"
#include "model/search_index.h"
#include "search/query.h"

namespace ttlstore::search {

// Ok, or kValidation with the message, for collapsing `index`'s documents by `field`: a
// Keyword, Long or Double field with sort_and_agg, not an array.
Status ValidateCollapse(const model::SearchIndexMeta& index, const std::string& field);

// The order the search's Enquire sorts by (search_exec.cc sets it up with `configure`).
enum class MatchOrder : uint8_t {
  kRelevance,              // weight, highest first, then docid
  kRelevanceThenKey,       // weight, then the key maker's key ascending
  kKeyThenRelevance,       // key, then weight
  kKey,                    // key only (then docid)
};

struct CollapsedHit {
  Xapian::docid docid = 0;
  double weight = 0;
  Xapian::Document doc;
};

// The groups [first, first + limit) of `q`'s matches collapsed by field `field_index`.
// `configure` sets an Enquire's weighting and sort as the search's; `key` is the search's key
// maker (used when `order` involves a key).
std::vector<CollapsedHit> CollapsedPage(const Xapian::Database& db, const Xapian::Query& q,
                                        size_t field_index,
                                        const std::function<void(Xapian::Enquire&)>& configure,
                                        const Xapian::KeyMaker& key, MatchOrder order,
                                        Xapian::doccount first, Xapian::doccount limit);

}  // namespace ttlstore::search
