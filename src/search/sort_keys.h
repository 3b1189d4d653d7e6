// A Search's sort as the engine runs it: the sort keys a document is ordered by (a Xapian
// KeyMaker over the value slots of search/terms.h), and the sort carried inside a next_token so
// that the next page needs no sort of its own (the Java SDK clears the sort when a token is set:
// "The Sort condition is encoded in the Token").
//
// A document's key is the concatenation of one component per sort key, each order-preserving
// and self-delimiting, so that byte order of whole keys is the sort's order:
//   ascending   the value with 0x00 written 0x00 0xFF, then 0x00 0x00
//   descending  each byte b written 255 - b (0xFF as 0xFF 0x00), then 0xFF 0xFF
// A field's value is its slot's; for a row without it, the `missing_field`'s slot, then the
// missing value's form, then "" (first ascending, last descending) or "\x02" (above every
// value) as the missing position asks.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <xapian.h>

#include "model/search_index.h"
#include "search/query.h"

namespace ttlstore::search {

struct EffectiveSort {
  std::vector<SortKey> keys;  // the request's sort, else the index's presort
  bool pk_tiebreak = true;    // false under disable_default_pk_sorter
};

// The request's sort (or the index's presort when it has none), with its tie-break rule.
EffectiveSort SortOf(const model::SearchIndexMeta& index, const SearchRequest& req);

class SortKeyMaker : public Xapian::KeyMaker {
 public:
  struct Part {
    Xapian::valueno slot = 0;
    std::optional<Xapian::valueno> fallback;  // missing_field's slot
    bool reverse = false;
    std::string missing;  // used when the slot (and the fallback) is empty
    // When set, the value comes from this instead of the slot (sort_values.h).
    std::function<std::string(const Xapian::Document&)> compute;
  };
  void Add(Part p) { parts_.push_back(std::move(p)); }
  bool empty() const { return parts_.empty(); }
  std::string operator()(const Xapian::Document& doc) const override;

 private:
  std::vector<Part> parts_;
};

// Fills the empty key maker `km` (Xapian's KeyMaker is not copyable) for `sort` on `index`: one
// part per field and primary-key key (scores are ordered by Xapian itself), then the primary key
// ascending when pk_tiebreak and no key sorts by it. REQUIRES: ValidateSort(index, sort.keys).
void MakeSortKeys(const model::SearchIndexMeta& index, const EffectiveSort& sort,
                  SortKeyMaker* km);

// A 64-bit fingerprint of the sort (tokens are checked against it).
uint64_t SortFingerprint(const EffectiveSort& sort);

// The sort's bytes inside a next_token, and back (nullopt when malformed; at most 64 keys and
// the bytes given: nothing is read past them).
std::string EncodeSort(const EffectiveSort& sort);
std::optional<EffectiveSort> DecodeSort(std::string_view bytes);

}  // namespace ttlstore::search
