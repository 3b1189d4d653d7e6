// GroupByComposite (agg_eval.h): groups of every combination of its sources' keys (a
// GroupByField's values, a GroupByHistogram's or GroupByDateHistogram's groups; a row without a
// source's field has a null key there, ordered first), in ascending key order (a source's
// GroupKeySort may reverse its part), `size` at a time. The next page starts after the
// next_token's key, so a page costs one pass over the matches and keeps only the `size` + 1
// smallest keys after it: exact counts in O(matches x log size).
//
// next_token: base64 of 'C' . version 1 . one part per source (0: null; 1: then the key: a
// Keyword's value length-prefixed, else the 8-byte order-preserving key).
#include <algorithm>
#include <map>

#include "common/base64.h"
#include "common/coding.h"
#include "search/agg_eval.h"
#include "search/agg_validate.h"
#include "search/terms.h"

namespace ttlstore::search {
namespace {

using T = model::SearchFieldType;

// Rows with more key combinations than this (arrays in several sources) are refused (Chosen).
constexpr size_t kMaxCombinationsPerRow = 65536;

// One source's part of a key: null, or a value. A Keyword's value is 2 * rank + 2, so that a
// next_token's word absent from this request's dictionary sorts between two ranks (odd).
struct Part {
  bool present = false;
  uint64_t key = 0;
  friend bool operator==(const Part&, const Part&) = default;
};
using Key = std::vector<Part>;

struct Source {
  const GroupBy* spec = nullptr;
  const Column* col = nullptr;
  std::unique_ptr<GroupKeyer> keyer;
  bool keyword = false;
  bool descending = false;
};

struct KeyLess {
  const std::vector<Source>* sources;
  bool operator()(const Key& a, const Key& b) const {
    for (size_t i = 0; i < a.size(); ++i) {
      if (a[i] == b[i]) continue;
      bool less = a[i].present != b[i].present ? !a[i].present : a[i].key < b[i].key;
      return (*sources)[i].descending ? !less : less;
    }
    return false;
  }
};

std::string EncodeToken(const Key& key, const std::vector<Source>& sources) {
  std::string bytes = "C";
  bytes.push_back(1);
  for (size_t i = 0; i < key.size(); ++i) {
    if (!key[i].present) {
      bytes.push_back(0);
      continue;
    }
    bytes.push_back(1);
    if (sources[i].keyword) {
      PutLengthPrefixed(&bytes, sources[i].col->KeyString((key[i].key - 2) / 2));
    } else {
      PutFixed64BE(&bytes, key[i].key);
    }
  }
  return Base64Encode(bytes);
}

std::optional<Key> DecodeToken(const std::string& token, const std::vector<Source>& sources) {
  auto raw = Base64Decode(token);
  if (!raw) return std::nullopt;
  std::string_view in = *raw;
  if (in.size() < 2 || in[0] != 'C' || in[1] != 1) return std::nullopt;
  in.remove_prefix(2);
  Key key(sources.size());
  for (size_t i = 0; i < sources.size(); ++i) {
    if (in.empty()) return std::nullopt;
    char flag = in[0];
    in.remove_prefix(1);
    if (flag == 0) continue;
    if (flag != 1) return std::nullopt;
    key[i].present = true;
    if (sources[i].keyword) {
      std::string_view word;
      if (!GetLengthPrefixed(&in, &word)) return std::nullopt;
      const auto& dict = sources[i].col->dict_;
      auto at = std::lower_bound(dict.begin(), dict.end(), word);
      uint64_t rank = uint64_t(at - dict.begin());
      key[i].key = (at != dict.end() && *at == word) ? 2 * rank + 2 : 2 * rank + 1;
    } else if (!GetFixed64BE(&in, &key[i].key)) {
      return std::nullopt;
    }
  }
  if (!in.empty()) return std::nullopt;
  return key;
}

}  // namespace

Result<GroupByResult> Evaluator::ByComposite(const GroupBy& g, const DocList& docs) {
  std::vector<Source> sources;
  for (const auto& s : g.sources) {
    ASSIGN_OR_RETURN(field, AggField(index_, "groupby_composite", s.field));
    Source src;
    src.spec = &s;
    src.col = &source_.ColumnOf(*field);
    src.keyer = std::make_unique<GroupKeyer>(s, *src.col);
    src.keyword = s.kind == GroupByKind::kField && src.col->type == T::kKeyword;
    for (const auto& sorter : s.sort) {
      if (sorter.kind == GroupSorter::Kind::kKey) src.descending = sorter.descending;
    }
    sources.push_back(std::move(src));
  }
  std::optional<Key> after;
  if (!g.next_token.empty()) {
    after = DecodeToken(g.next_token, sources);
    if (!after) return Error::Validation("[groupby_composite] invalid next_token");
  }
  KeyLess less{&sources};
  struct Group {
    int64_t count = 0;
    DocList docs;
  };
  // The size + 1 smallest keys after `after`: the page, and whether another follows.
  std::map<Key, Group, KeyLess> page(less);
  const size_t keep_groups = size_t(g.size) + 1;
  const bool keep_docs = NeedsDocs(g);
  std::vector<std::vector<Part>> parts(sources.size());
  std::vector<Key> combos;
  for (uint32_t d : docs) {
    size_t total = 1;
    for (size_t i = 0; i < sources.size(); ++i) {
      auto& p = parts[i];
      p.clear();
      auto v = sources[i].col->Values(d);
      for (uint64_t k : v) {
        if (auto key = sources[i].keyer->Key(k)) {
          p.push_back(Part{true, sources[i].keyword ? 2 * *key + 2 : *key});
        }
      }
      if (v.empty()) {
        if (auto m = sources[i].keyer->MissingKey()) p.push_back(Part{true, *m});
      }
      if (p.size() > 1) {
        std::sort(p.begin(), p.end(), [](const Part& a, const Part& b) { return a.key < b.key; });
        p.erase(std::unique(p.begin(), p.end()), p.end());
      }
      if (p.empty()) p.push_back(Part{});  // the null group of this source
      total *= p.size();
      if (total > kMaxCombinationsPerRow) {
        return Error::Validation("[groupby_composite] a row has more than " +
                                 std::to_string(kMaxCombinationsPerRow) +
                                 " combinations of the sources' values");
      }
    }
    combos.assign(1, Key());
    for (const auto& p : parts) {
      std::vector<Key> next;
      next.reserve(combos.size() * p.size());
      for (const auto& c : combos) {
        for (const auto& part : p) {
          next.push_back(c);
          next.back().push_back(part);
        }
      }
      combos.swap(next);
    }
    for (auto& key : combos) {
      if (after && !less(*after, key)) continue;
      auto it = page.find(key);
      if (it == page.end()) {
        if (page.size() >= keep_groups) {
          auto last = std::prev(page.end());
          if (!less(key, last->first)) continue;
          page.erase(last);
        }
        it = page.emplace(std::move(key), Group()).first;
      }
      ++it->second.count;
      if (keep_docs) it->second.docs.push_back(d);
    }
  }
  GroupByResult out;
  out.name = g.name;
  out.kind = g.kind;
  for (const auto& s : g.sources) out.source_names.push_back(s.name);
  size_t n = 0;
  for (auto& [key, group] : page) {
    if (n++ == size_t(g.size)) break;
    GroupItem item;
    for (size_t i = 0; i < key.size(); ++i) {
      if (!key[i].present) {
        item.keys.push_back(std::nullopt);
      } else {
        uint64_t k = sources[i].keyword ? (key[i].key - 2) / 2 : key[i].key;
        item.keys.push_back(sources[i].keyer->Text(k));
      }
    }
    item.row_count = group.count;
    RETURN_IF_ERROR(FillItem(g, group.docs, &item));
    out.items.push_back(std::move(item));
  }
  if (page.size() > size_t(g.size)) {
    auto last = std::next(page.begin(), g.size - 1);
    out.next_token = EncodeToken(last->first, sources);
  }
  return out;
}

}  // namespace ttlstore::search
