#include "search/inner_hits.h"

#include <algorithm>
#include <map>
#include <memory>

#include "search/document.h"
#include "search/field_ref.h"
#include "search/highlight.h"
#include "search/nested_eval.h"
#include "search/terms.h"

namespace ttlstore::search {
namespace {

using Match = std::pair<const NestedDoc*, double>;

// A sub-document's sort value for an InnerHits FieldSort: its first value's sort form (empty:
// none).
std::string SortForm(const FieldRef& ref, const NestedDoc& d) {
  size_t j = ref.steps.back();
  if (j >= d.fields.size() || d.fields[j].values.empty()) return std::string();
  return SortValue(*ref.field, d.fields[j].values[0]);
}

void Order(const model::SearchIndexMeta& index, const InnerHits& h, std::vector<Match>* matches) {
  struct Key {
    InnerSortKey::Kind kind;
    bool descending;
    std::optional<FieldRef> ref;
  };
  std::vector<Key> keys;
  for (const auto& k : h.sort) {
    Key key{k.kind, k.descending, std::nullopt};
    if (k.kind == InnerSortKey::Kind::kField) key.ref = ResolveField(index, k.field);
    keys.push_back(std::move(key));
  }
  std::stable_sort(matches->begin(), matches->end(), [&](const Match& a, const Match& b) {
    for (const auto& k : keys) {
      switch (k.kind) {
        case InnerSortKey::Kind::kDoc:
          if (a.first->offset != b.first->offset) {
            return k.descending ? a.first->offset > b.first->offset
                                : a.first->offset < b.first->offset;
          }
          break;
        case InnerSortKey::Kind::kScore:
          if (a.second != b.second) return k.descending ? a.second > b.second : a.second < b.second;
          break;
        case InnerSortKey::Kind::kField: {
          std::string x = SortForm(*k.ref, *a.first), y = SortForm(*k.ref, *b.first);
          if (x == y) break;
          if (x.empty() || y.empty()) return y.empty();  // a missing value comes last
          return k.descending ? x > y : x < y;
        }
      }
    }
    return a.first->offset < b.first->offset;
  });
}

class Collector {
 public:
  Collector(const model::SearchIndexMeta& index, const Xapian::Document& doc)
      : index_(index), doc_(doc) {}

  void Walk(const Query& q, const FieldRef* scope, const NestedDoc* here,
            std::vector<InnerHitGroup>* out) {
    switch (q.kind) {
      case Query::Kind::kBool:
        for (const auto* list : {&q.must, &q.filter, &q.should}) {
          for (const auto& sub : *list) Walk(sub, scope, here, out);
        }
        return;
      case Query::Kind::kNested: break;
      default: return;
    }
    if (!q.inner_hits) return;  // nothing inside may have them (query_builder's check)
    NestedQueryTester tester(index_, scope, q);
    std::vector<Match> matches;
    tester.Matches(scope ? nullptr : Top(tester.path().top), here, &matches);
    Order(index_, *q.inner_hits, &matches);
    InnerHitGroup group;
    group.path = q.field;
    size_t from = std::min<size_t>(matches.size(), size_t(q.inner_hits->offset));
    size_t to = std::min<size_t>(matches.size(), from + size_t(q.inner_hits->limit));
    const Highlighter* highlighter = HighlighterOf(q);
    for (size_t k = from; k < to; ++k) {
      InnerHit hit;
      hit.offset = matches[k].first->offset;
      hit.score = matches[k].second;
      if (highlighter) Highlight(*q.inner_hits->highlight, *highlighter, *matches[k].first, &hit);
      Walk(q.sub[0], &tester.path(), matches[k].first, &hit.inner);
      group.hits.push_back(std::move(hit));
    }
    out->push_back(std::move(group));
  }

 private:
  // The highlighter of a NestedQuery whose InnerHits highlight (its own query marks the words).
  const Highlighter* HighlighterOf(const Query& q) {
    if (!q.inner_hits->highlight) return nullptr;
    auto it = highlighters_.find(&q);
    if (it == highlighters_.end()) {
      it = highlighters_
               .emplace(&q, std::make_unique<Highlighter>(index_, q.sub[0], *q.inner_hits->highlight))
               .first;
    }
    return it->second.get();
  }

  // The fragments of each highlighted sub-field (a direct sub-field of the query's path:
  // ValidateHighlight) of sub-document `d`.
  void Highlight(const HighlightSpec& spec, const Highlighter& h, const NestedDoc& d,
                 InnerHit* hit) {
    for (size_t i = 0; i < spec.fields.size(); ++i) {
      auto ref = ResolveField(index_, spec.fields[i].name);
      if (!ref) continue;
      size_t j = ref->steps.back();
      if (j >= d.fields.size()) continue;
      std::vector<std::string> values;
      for (const auto& v : d.fields[j].values) {
        if (v.type == model::CellType::kString) values.push_back(v.bytes);
      }
      std::vector<std::string> fragments = h.Fragments(i, values);
      if (!fragments.empty()) hit->highlights.push_back({spec.fields[i].name, std::move(fragments)});
    }
  }

  const std::vector<NestedDoc>* Top(size_t field) {
    auto it = top_.find(field);
    if (it == top_.end()) {
      std::vector<NestedDoc> docs;
      DecodeNestedSlot(index_.fields[field], doc_.get_value(kSlotFieldBase + Xapian::valueno(field)),
                       &docs);
      it = top_.emplace(field, std::move(docs)).first;
    }
    return &it->second;
  }

  const model::SearchIndexMeta& index_;
  const Xapian::Document& doc_;
  std::map<size_t, std::vector<NestedDoc>> top_;
  std::map<const Query*, std::unique_ptr<Highlighter>> highlighters_;
};

}  // namespace

bool WantsInnerHits(const Query& q) {
  if (q.kind == Query::Kind::kNested) return q.inner_hits.has_value();
  if (q.kind != Query::Kind::kBool) return false;
  for (const auto* list : {&q.must, &q.filter, &q.should}) {
    for (const auto& sub : *list) {
      if (WantsInnerHits(sub)) return true;
    }
  }
  return false;
}

std::vector<InnerHitGroup> CollectInnerHits(const model::SearchIndexMeta& index, const Query& q,
                                            const Xapian::Document& doc) {
  std::vector<InnerHitGroup> out;
  Collector c(index, doc);
  c.Walk(q, nullptr, nullptr, &out);
  return out;
}

}  // namespace ttlstore::search
