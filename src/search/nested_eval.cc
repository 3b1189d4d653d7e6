#include "search/nested_eval.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "search/analyzer.h"
#include "search/document.h"
#include "search/geo_query.h"
#include "search/query_builder.h"
#include "search/terms.h"

namespace ttlstore::search {

using model::CellType;
using model::CellValue;
using model::SearchFieldType;
using Kind = Query::Kind;

struct NestedMatcher::Node {
  Kind kind = Kind::kMatchAll;
  double weight = 1;
  size_t field = 0;  // sub-field position in the scope
  const model::SearchField* f = nullptr;
  // Term / Terms: the indexed forms that match.
  std::set<uint64_t> keys;          // numbers
  std::set<std::string> strings;    // Keyword, Text words (cut), Boolean "t"/"f"
  // Range
  uint64_t lo = 0, hi = 0;          // numbers, inclusive
  std::optional<std::string> from, to;  // Keyword (cut)
  bool include_lower = true, include_upper = true;
  bool empty_range = false;
  // Prefix / Wildcard
  std::string text;
  // Match / MatchPhrase
  std::vector<std::string> words;
  size_t min_match = 1;
  bool all = false;
  bool phrase = false;
  uint32_t window = 0;
  // Geo
  std::shared_ptr<const GeoRegion> region;
  // Bool
  std::vector<Node> must, must_not, filter, should;
  size_t should_needed = 0;
  // Nested
  std::vector<size_t> steps;
  Query::ScoreMode mode = Query::ScoreMode::kAvg;
  std::vector<Node> inner;  // one
};

namespace {

using Node = NestedMatcher::Node;

std::string Cut(std::string_view s) { return std::string(s.substr(0, kMaxTermValueBytes)); }

bool IsNumeric(SearchFieldType t) {
  return t == SearchFieldType::kLong || t == SearchFieldType::kDouble ||
         t == SearchFieldType::kDate;
}

// The indexed form of a query value as a term of field f (query_builder's term_of).
void AddTermForm(const model::SearchField& f, const CellValue& given, Node* n) {
  CellValue v = *QueryValueOf(f.type, given);
  if (IsNumeric(f.type)) {
    n->keys.insert(NumericKey(f.type, v));
  } else if (f.type == SearchFieldType::kBoolean) {
    n->strings.insert(v.boolean ? "t" : "f");
  } else {
    n->strings.insert(Cut(v.bytes));
  }
}

Node CompileNode(const model::SearchIndexMeta& index, const FieldRef& scope, const Query& q) {
  Node n;
  n.kind = q.kind;
  if (q.weight > 0 && std::isfinite(q.weight)) n.weight = q.weight;
  auto all = [&](const std::vector<Query>& in, std::vector<Node>* out) {
    for (const auto& sub : in) out->push_back(CompileNode(index, scope, sub));
  };
  switch (q.kind) {
    case Kind::kMatchAll: return n;
    case Kind::kBool: {
      all(q.must, &n.must);
      all(q.must_not, &n.must_not);
      all(q.filter, &n.filter);
      all(q.should, &n.should);
      size_t m = q.minimum_should_match ? size_t(*q.minimum_should_match)
                                        : (q.must.empty() && q.filter.empty() ? 1 : 0);
      if (q.should.empty()) m = 0;
      n.should_needed = m;
      return n;
    }
    case Kind::kNested: {
      FieldRef path = *ResolveField(index, q.field);
      n.steps.assign(path.steps.begin() + std::ptrdiff_t(scope.steps.size()), path.steps.end());
      n.mode = q.score_mode;
      n.inner.push_back(CompileNode(index, path, q.sub[0]));
      return n;
    }
    default: break;
  }
  FieldRef ref = *ResolveField(index, q.field);
  n.field = ref.steps.back();
  n.f = ref.field;
  const model::SearchField& f = *ref.field;
  switch (q.kind) {
    case Kind::kTerm:
    case Kind::kTerms:
      for (const auto& v : q.terms) AddTermForm(f, v, &n);
      break;
    case Kind::kRange:
      if (IsNumeric(f.type)) {
        n.lo = 0;
        n.hi = UINT64_MAX;
        if (q.from) {
          n.lo = NumericKey(f.type, *QueryValueOf(f.type, *q.from));
          if (!q.include_lower) {
            if (n.lo == UINT64_MAX) n.empty_range = true;
            else ++n.lo;
          }
        }
        if (q.to) {
          n.hi = NumericKey(f.type, *QueryValueOf(f.type, *q.to));
          if (!q.include_upper) {
            if (n.hi == 0) n.empty_range = true;
            else --n.hi;
          }
        }
        if (n.lo > n.hi) n.empty_range = true;
      } else {
        if (q.from) n.from = Cut(q.from->bytes);
        if (q.to) n.to = Cut(q.to->bytes);
        n.include_lower = q.include_lower;
        n.include_upper = q.include_upper;
      }
      break;
    case Kind::kPrefix: n.text = Cut(q.text); break;
    case Kind::kWildcard: n.text = q.text; break;
    case Kind::kMatch:
    case Kind::kMatchPhrase: {
      bool fuzzy = IsFuzzy(f);
      std::vector<Word> words;
      if (fuzzy) {
        for (auto& w : FuzzyQueryWords(f, q.text, index.analysis)) {
          uint32_t at = uint32_t(words.size());
          words.push_back(Word{std::move(w), at});
        }
      } else {
        words = AnalyzeText(f, q.text, index.analysis, AnalyzeFor::kQuery);
      }
      if (words.size() > kMaxTermsPerQuery) words.resize(kMaxTermsPerQuery);
      for (const auto& w : words) n.words.push_back(Cut(w.text));
      n.all = fuzzy || (q.kind == Kind::kMatch && q.match_and);
      n.phrase = !fuzzy && q.kind == Kind::kMatchPhrase && words.size() > 1;
      if (n.phrase) {
        uint32_t span = words.back().position - words.front().position + 1;
        n.window = uint32_t(std::max<size_t>(span, words.size()));
      }
      // As query_builder: at least one word even when minimum_should_match is 0.
      n.min_match = std::max<size_t>(1, q.minimum_should_match ? size_t(*q.minimum_should_match) : 1);
      break;
    }
    case Kind::kGeoDistance:
    case Kind::kGeoBoundingBox:
    case Kind::kGeoPolygon: n.region = RegionOf(q); break;
    default: break;
  }
  return n;
}

// The words of a Text sub-field's values with their positions (values apart, as indexed).
std::multimap<std::string, uint32_t> WordsOf(const model::SearchField& f,
                                             const std::vector<CellValue>& values,
                                             uint32_t analysis) {
  std::multimap<std::string, uint32_t> out;
  uint32_t base = 0;
  for (const auto& v : values) {
    uint32_t used = 0;
    for (const auto& w : AnalyzeText(f, v.bytes, analysis, AnalyzeFor::kDocument)) {
      out.emplace(Cut(w.text), base + w.position);
      used = w.position + 1;
    }
    base += used + 100;
  }
  return out;
}

bool HasPhrase(const std::multimap<std::string, uint32_t>& words,
               const std::vector<std::string>& q, uint32_t window) {
  // Positions of each query word, then a search for increasing positions within the window.
  std::vector<std::vector<uint32_t>> pos(q.size());
  for (size_t i = 0; i < q.size(); ++i) {
    auto [a, b] = words.equal_range(q[i]);
    for (auto it = a; it != b; ++it) pos[i].push_back(it->second);
    if (pos[i].empty()) return false;
    std::sort(pos[i].begin(), pos[i].end());
  }
  for (uint32_t start : pos[0]) {
    uint32_t last = start;
    bool ok = true;
    for (size_t i = 1; i < q.size() && ok; ++i) {
      auto it = std::upper_bound(pos[i].begin(), pos[i].end(), last);
      if (it == pos[i].end() || *it - start + 1 > window) ok = false;
      else last = *it;
    }
    if (ok) return true;
  }
  return false;
}

bool MatchNode(const Node& n, const NestedDoc& d, uint32_t analysis, double* score);

bool MatchLeaf(const Node& n, const NestedDoc& d, uint32_t analysis) {
  if (n.field >= d.fields.size()) return false;
  const NestedDoc::Field& fld = d.fields[n.field];
  const model::SearchField& f = *n.f;
  if (n.kind == Kind::kExists) return !fld.empty();
  if (n.region) {
    for (const auto& c : fld.points) {
      if (n.region->Contains(c)) return true;
    }
    return false;
  }
  if (fld.values.empty()) return false;
  // Text is searched by its words, every other type by its values' indexed form.
  std::vector<std::string> forms;
  std::multimap<std::string, uint32_t> words;
  if (f.type == SearchFieldType::kText) {
    words = WordsOf(f, fld.values, analysis);
    for (const auto& [w, p] : words) forms.push_back(w);
  } else if (!IsNumeric(f.type)) {
    for (const auto& v : fld.values) {
      forms.push_back(f.type == SearchFieldType::kBoolean ? (v.boolean ? "t" : "f") : Cut(v.bytes));
    }
  }
  switch (n.kind) {
    case Kind::kTerm:
    case Kind::kTerms:
      if (IsNumeric(f.type)) {
        for (const auto& v : fld.values) {
          if (n.keys.count(NumericKey(f.type, v))) return true;
        }
        return false;
      }
      for (const auto& s : forms) {
        if (n.strings.count(s)) return true;
      }
      return false;
    case Kind::kRange:
      if (n.empty_range) return false;
      if (IsNumeric(f.type)) {
        for (const auto& v : fld.values) {
          uint64_t k = NumericKey(f.type, v);
          if (k >= n.lo && k <= n.hi) return true;
        }
        return false;
      }
      for (const auto& s : forms) {
        if (n.from && (s < *n.from || (s == *n.from && !n.include_lower))) continue;
        if (n.to && (s > *n.to || (s == *n.to && !n.include_upper))) continue;
        return true;
      }
      return false;
    case Kind::kPrefix:
      for (const auto& s : forms) {
        if (s.compare(0, n.text.size(), n.text) == 0) return true;
      }
      return false;
    case Kind::kWildcard:
      for (const auto& s : forms) {
        if (WildMatch(n.text, s)) return true;
      }
      return false;
    case Kind::kMatch:
    case Kind::kMatchPhrase: {
      if (n.words.empty()) return false;
      if (n.phrase) return HasPhrase(words, n.words, n.window);
      size_t present = 0;
      for (const auto& w : n.words) present += words.count(w) > 0;
      if (n.all || n.kind == Kind::kMatchPhrase) return present == n.words.size();
      return n.min_match <= n.words.size() && present >= n.min_match;
    }
    default: return false;
  }
}

double Combine(Query::ScoreMode mode, const std::vector<double>& s) {
  switch (mode) {
    case Query::ScoreMode::kNone: return 0;
    case Query::ScoreMode::kMax: return *std::max_element(s.begin(), s.end());
    case Query::ScoreMode::kMin: return *std::min_element(s.begin(), s.end());
    case Query::ScoreMode::kTotal: {
      double t = 0;
      for (double x : s) t += x;
      return t;
    }
    case Query::ScoreMode::kAvg:
    default: {
      double t = 0;
      for (double x : s) t += x;
      return t / double(s.size());
    }
  }
}

bool MatchNode(const Node& n, const NestedDoc& d, uint32_t analysis, double* score) {
  switch (n.kind) {
    case Kind::kMatchAll:
      *score = n.weight;
      return true;
    case Kind::kBool: {
      double total = 0, s = 0;
      for (const auto& c : n.must) {
        if (!MatchNode(c, d, analysis, &s)) return false;
        total += s;
      }
      for (const auto& c : n.filter) {
        if (!MatchNode(c, d, analysis, &s)) return false;
      }
      for (const auto& c : n.must_not) {
        if (MatchNode(c, d, analysis, &s)) return false;
      }
      size_t matched = 0;
      for (const auto& c : n.should) {
        if (MatchNode(c, d, analysis, &s)) {
          ++matched;
          total += s;
        }
      }
      if (matched < n.should_needed) return false;
      *score = total * n.weight;
      return true;
    }
    case Kind::kNested: {
      const NestedDoc* here = &d;
      std::vector<const NestedDoc*> docs;
      DescendNested(std::span<const NestedDoc* const>(&here, 1), n.steps, &docs);
      std::vector<double> scores;
      double s = 0;
      for (const NestedDoc* c : docs) {
        if (MatchNode(n.inner[0], *c, analysis, &s)) scores.push_back(s);
      }
      if (scores.empty()) return false;
      *score = Combine(n.mode, scores) * n.weight;
      return true;
    }
    default:
      if (!MatchLeaf(n, d, analysis)) return false;
      *score = n.weight;
      return true;
  }
}

double MaxOf(const Node& n) {
  switch (n.kind) {
    case Kind::kBool: {
      double t = 0;
      for (const auto& c : n.must) t += MaxOf(c);
      for (const auto& c : n.should) t += MaxOf(c);
      return t * n.weight;
    }
    case Kind::kNested: {
      double inner = MaxOf(n.inner[0]);
      if (n.mode == Query::ScoreMode::kTotal) {
        inner *= std::pow(double(model::kMaxNestedDocs), double(n.steps.size()));
      }
      return inner * n.weight;
    }
    default: return n.weight;
  }
}

}  // namespace

NestedMatcher::~NestedMatcher() = default;

std::shared_ptr<const NestedMatcher> NestedMatcher::Compile(const model::SearchIndexMeta& index,
                                                            const FieldRef& scope,
                                                            const Query& q) {
  std::shared_ptr<NestedMatcher> m(new NestedMatcher());
  m->root_ = std::make_unique<Node>(CompileNode(index, scope, q));
  m->analysis_ = index.analysis;
  return m;
}

bool NestedMatcher::Match(const NestedDoc& d, double* score) const {
  double s = 0;
  if (!MatchNode(*root_, d, analysis_, &s)) return false;
  *score = s;
  return true;
}

double NestedMatcher::MaxScore() const { return MaxOf(*root_); }

void DescendNested(std::span<const NestedDoc* const> docs, std::span<const size_t> steps,
                   std::vector<const NestedDoc*>* out) {
  if (steps.empty()) {
    out->insert(out->end(), docs.begin(), docs.end());
    return;
  }
  for (const NestedDoc* d : docs) {
    if (steps[0] >= d->fields.size()) continue;
    std::vector<const NestedDoc*> below;
    for (const auto& c : d->fields[steps[0]].docs) below.push_back(&c);
    DescendNested(below, steps.subspan(1), out);
  }
}

double CombineScores(Query::ScoreMode mode, const std::vector<double>& scores) {
  return Combine(mode, scores);
}

NestedQueryTester::NestedQueryTester(const model::SearchIndexMeta& index, const FieldRef* scope,
                                     const Query& q) {
  path_ = *ResolveField(index, q.field);
  top_ = &index.fields[path_.top];
  scoped_ = scope != nullptr;
  size_t skip = scope ? scope->steps.size() : 0;
  steps_.assign(path_.steps.begin() + std::ptrdiff_t(skip), path_.steps.end());
  matcher_ = NestedMatcher::Compile(index, path_, q.sub[0]);
  mode_ = q.score_mode;
}

void NestedQueryTester::Matches(const std::vector<NestedDoc>* top, const NestedDoc* here,
                                std::vector<std::pair<const NestedDoc*, double>>* out) const {
  std::vector<const NestedDoc*> start, docs;
  if (scoped_) {
    if (here) start.push_back(here);
  } else if (top) {
    for (const auto& d : *top) start.push_back(&d);
  }
  DescendNested(start, steps_, &docs);
  for (const NestedDoc* d : docs) {
    double s = 0;
    if (matcher_->Match(*d, &s)) out->emplace_back(d, s);
  }
}

double NestedQueryTester::Score(
    const std::vector<std::pair<const NestedDoc*, double>>& matches) const {
  std::vector<double> scores;
  for (const auto& [d, s] : matches) scores.push_back(s);
  return Combine(mode_, scores);  // the query's weight scales it in the Xapian query
}

bool NestedQueryTester::TestSlot(std::string_view slot, double* score) const {
  std::vector<NestedDoc> top;
  if (!DecodeNestedSlot(*top_, slot, &top)) return false;
  std::vector<std::pair<const NestedDoc*, double>> matches;
  Matches(&top, nullptr, &matches);
  if (matches.empty()) return false;
  *score = Score(matches);
  return true;
}

double NestedQueryTester::MaxScore() const {
  double inner = matcher_->MaxScore();
  if (mode_ == Query::ScoreMode::kTotal) {
    inner *= std::pow(double(model::kMaxNestedDocs), double(steps_.size() + (scoped_ ? 0 : 1)));
  }
  return inner;
}

}  // namespace ttlstore::search
