// Highlighting: what the query matches in each highlighted field, and the fragments cut and
// marked around it (see highlight.h for the rules).
#include "search/highlight.h"

#include <algorithm>
#include <cctype>
#include <unordered_set>

#include "search/analyzer.h"
#include "search/document.h"
#include "search/field_ref.h"
#include "search/query_builder.h"
#include "search/terms.h"
#include "versions/row_key.h"
#include "versions/visibility.h"

namespace ttlstore::search {
namespace {

// What marks a word of a field.
struct Matcher {
  enum class Kind : uint8_t { kPrefix, kWildcard, kPhrase };
  Kind kind = Kind::kPrefix;
  std::string text;          // kPrefix, kWildcard
  std::vector<Word> phrase;  // kPhrase: two or more words with their positions
};

struct FieldMatchers {
  std::unordered_set<std::string> words;  // words marked as they are (Match, Term)
  std::vector<Matcher> others;
  bool Empty() const { return words.empty() && others.empty(); }
};

// A marked run of a value, in code points [start, end).
struct Span {
  uint32_t start = 0, end = 0;
};

std::string Cut(std::string_view w) { return std::string(w.substr(0, kMaxTermValueBytes)); }

// `*` any run, `?` one byte (as WildcardQuery matches a Keyword or a word).
bool WildMatch(std::string_view p, std::string_view s) {
  size_t pi = 0, si = 0, star = std::string_view::npos, mark = 0;
  while (si < s.size()) {
    if (pi < p.size() && (p[pi] == '?' || p[pi] == s[si])) {
      ++pi, ++si;
    } else if (pi < p.size() && p[pi] == '*') {
      star = pi++;
      mark = si;
    } else if (star != std::string_view::npos) {
      pi = star + 1;
      si = ++mark;
    } else {
      return false;
    }
  }
  while (pi < p.size() && p[pi] == '*') ++pi;
  return pi == p.size();
}

// A top-level field, or a sub-field of a Nested field by full path ("n.nt").
const model::SearchField* FieldByPath(const model::SearchIndexMeta& index, const std::string& name) {
  if (const model::SearchField* f = index.FindField(name)) return f;
  auto ref = ResolveField(index, name);
  return ref ? ref->field : nullptr;
}

// The query's positive clauses on the highlighted fields.
void Collect(const model::SearchIndexMeta& index, const Query& q,
             const std::vector<std::string>& names, std::vector<FieldMatchers>* out) {
  switch (q.kind) {
    case Query::Kind::kBool:
      for (const auto* list : {&q.must, &q.filter, &q.should}) {
        for (const auto& sub : *list) Collect(index, sub, names, out);
      }
      return;
    case Query::Kind::kFunctionScore:
      for (const auto& sub : q.must) Collect(index, sub, names, out);
      return;
    default: break;
  }
  auto at = std::find(names.begin(), names.end(), q.field);
  if (at == names.end()) return;
  const model::SearchField* f = FieldByPath(index, q.field);
  if (!f || f->type != model::SearchFieldType::kText) return;
  FieldMatchers& m = (*out)[size_t(at - names.begin())];
  switch (q.kind) {
    case Query::Kind::kTerm:
    case Query::Kind::kTerms:
      for (const auto& t : q.terms) {
        if (t.type == model::CellType::kString) m.words.insert(Cut(t.bytes));
      }
      return;
    case Query::Kind::kPrefix:
      m.others.push_back(Matcher{Matcher::Kind::kPrefix, Cut(q.text), {}});
      return;
    case Query::Kind::kWildcard:
      m.others.push_back(Matcher{Matcher::Kind::kWildcard, q.text, {}});
      return;
    case Query::Kind::kMatch:
    case Query::Kind::kMatchPhrase: {
      if (IsFuzzy(*f)) {  // the query's n-grams, all required: each marked
        for (auto& w : FuzzyQueryWords(*f, q.text, index.analysis)) m.words.insert(Cut(w));
        return;
      }
      std::vector<Word> words = AnalyzeText(*f, q.text, index.analysis, AnalyzeFor::kQuery);
      if (words.size() > kMaxTermsPerQuery) words.resize(kMaxTermsPerQuery);
      if (q.kind == Query::Kind::kMatch || words.size() == 1) {
        for (const auto& w : words) m.words.insert(Cut(w.text));
      } else if (!words.empty()) {
        for (auto& w : words) w.text = Cut(w.text);
        m.others.push_back(Matcher{Matcher::Kind::kPhrase, {}, std::move(words)});
      }
      return;
    }
    default: return;
  }
}

bool IsCjkChar(uint32_t c) {
  return (c >= 0x1100 && c <= 0x11FF) || (c >= 0x2E80 && c <= 0x2FDF) ||
         (c >= 0x3040 && c <= 0x30FF) || (c >= 0x3400 && c <= 0x4DBF) ||
         (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0xAC00 && c <= 0xD7FF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x20000 && c <= 0x3FFFF);
}

// A value read as code points: where each starts, and its class for boundaries.
struct Text {
  std::string_view bytes;
  std::vector<uint32_t> at;   // byte offset of code point i; at.back() == bytes.size()
  std::vector<uint8_t> kind;  // 0 word character, 1 space, 2 CJK or punctuation
  std::vector<bool> sentence_end;  // a sentence ends after code point i

  explicit Text(std::string_view b) : bytes(b) {
    std::vector<uint32_t> cps;
    for (size_t i = 0; i < b.size();) {
      at.push_back(uint32_t(i));
      unsigned char c = static_cast<unsigned char>(b[i]);
      size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
      if (i + n > b.size()) n = 1;
      uint32_t cp = n == 1 ? c : n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
      for (size_t k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(b[i + k]) & 0x3F);
      cps.push_back(cp);
      i += n;
    }
    at.push_back(uint32_t(b.size()));
    kind.resize(cps.size());
    sentence_end.resize(cps.size());
    for (size_t i = 0; i < cps.size(); ++i) {
      uint32_t c = cps[i];
      bool space = c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == 0x3000;
      bool punct = c < 0x80 ? !std::isalnum(static_cast<unsigned char>(c))
                            : IsCjkChar(c) || (c >= 0x2000 && c <= 0x2BFF) ||
                                  (c >= 0x3000 && c <= 0x303F) || (c >= 0xFF00 && c <= 0xFF0F) ||
                                  (c >= 0xFF1A && c <= 0xFF20);
      kind[i] = space ? 1 : punct ? 2 : 0;
      bool next_space = i + 1 >= cps.size() || cps[i + 1] == ' ' || cps[i + 1] == '\t' ||
                        cps[i + 1] == '\n' || cps[i + 1] == '\r';
      sentence_end[i] = c == '\n' || c == 0x3002 || c == 0xFF01 || c == 0xFF1F ||
                        ((c == '.' || c == '!' || c == '?') && next_space);
    }
  }
  uint32_t size() const { return uint32_t(kind.size()); }
  uint32_t CodePointAt(uint32_t byte) const {
    return uint32_t(std::lower_bound(at.begin(), at.end(), byte) - at.begin());
  }
  // Whether a fragment may start or end before code point i without splitting a word.
  bool Boundary(uint32_t i) const {
    return i == 0 || i >= size() || kind[i - 1] != 0 || kind[i] != 0;
  }
};

// The marked runs of one value, sorted by start.
std::vector<Span> SpansOf(const Text& text, const std::vector<Word>& words,
                          const FieldMatchers& m) {
  std::vector<Span> out;
  auto add = [&](uint32_t b, uint32_t e) {
    if (e > b) out.push_back(Span{text.CodePointAt(b), text.CodePointAt(e)});
  };
  for (const auto& w : words) {
    std::string cut = Cut(w.text);
    bool hit = m.words.count(cut) > 0;
    for (size_t k = 0; !hit && k < m.others.size(); ++k) {
      const Matcher& x = m.others[k];
      if (x.kind == Matcher::Kind::kPrefix) hit = cut.compare(0, x.text.size(), x.text) == 0;
      if (x.kind == Matcher::Kind::kWildcard) hit = WildMatch(x.text, w.text);
    }
    if (hit) add(w.start, w.end);
  }
  // Phrases: the words at the query words' relative positions, marked as one run.
  for (const auto& x : m.others) {
    if (x.kind != Matcher::Kind::kPhrase) continue;
    const Word& q0 = x.phrase.front();
    for (const auto& w : words) {
      if (Cut(w.text) != q0.text) continue;
      uint32_t end = w.end;
      bool all = true;
      for (size_t k = 1; k < x.phrase.size() && all; ++k) {
        uint32_t want = w.position + (x.phrase[k].position - q0.position);
        auto lo = std::lower_bound(words.begin(), words.end(), want,
                                   [](const Word& a, uint32_t p) { return a.position < p; });
        all = false;
        for (auto it = lo; it != words.end() && it->position == want; ++it) {
          if (Cut(it->text) == x.phrase[k].text) {
            all = true;
            end = std::max(end, it->end);
            break;
          }
        }
      }
      if (all) add(w.start, end);
    }
  }
  std::sort(out.begin(), out.end(), [](const Span& a, const Span& b) {
    return a.start != b.start ? a.start < b.start : a.end > b.end;
  });
  return out;
}

void AppendEncoded(std::string_view s, bool html, std::string* out) {
  if (!html) {
    out->append(s);
    return;
  }
  // Lucene's SimpleHTMLEncoder: the service's page lists < > " ' / (and & is escaped first).
  for (char c : s) {
    switch (c) {
      case '&': out->append("&amp;"); break;
      case '<': out->append("&lt;"); break;
      case '>': out->append("&gt;"); break;
      case '"': out->append("&quot;"); break;
      case '\'': out->append("&#x27;"); break;
      case '/': out->append("&#x2F;"); break;
      default: out->push_back(c);
    }
  }
}

struct Passage {
  size_t value = 0;             // which value
  uint32_t start = 0, end = 0;  // code points
  size_t first = 0, last = 0;   // its spans [first, last)
  std::string text;
};

// The passages of one value (see highlight.h), each with the spans it holds.
std::vector<Passage> PassagesOf(const Text& t, std::vector<Span>& spans, uint32_t size,
                                size_t value, bool whole) {
  std::vector<Passage> out;
  if (spans.empty()) return out;
  if (whole) {
    out.push_back(Passage{value, 0, t.size(), 0, spans.size(), {}});
    return out;
  }
  uint32_t n = t.size();
  auto sentence_start = [&](uint32_t i) {
    while (i > 0 && !t.sentence_end[i - 1]) --i;
    return i;
  };
  auto sentence_end = [&](uint32_t i) {  // one past the sentence holding i
    while (i < n && !t.sentence_end[i]) ++i;
    return std::min(n, i + 1);
  };
  uint32_t prev_end = 0;
  size_t i = 0;
  while (i < spans.size()) {
    const Span sp = spans[i];
    uint32_t s = std::max(prev_end, sentence_start(sp.start));
    uint32_t e = sentence_end(sp.start);
    while (e < n && e - s <= size) {  // whole following sentences while they fit
      uint32_t next = sentence_end(e);
      if (next - s > size) break;
      e = next;
    }
    if (e - s > size) {  // a sentence too long: cut at word boundaries around the match
      uint32_t len = sp.end - sp.start;
      if (sp.end - s > size) {
        uint32_t back = len >= size ? 0 : (size - len) / 2;
        uint32_t target = sp.start > s + back ? sp.start - back : s;
        while (target > s && !t.Boundary(target)) --target;
        s = target;
      }
      uint32_t target = std::max(s + size, sp.end);
      while (target < e && !t.Boundary(target)) ++target;
      e = std::min(e, target);
    }
    Passage p{value, s, e, i, i, {}};
    while (i < spans.size() && spans[i].start < p.end) {
      p.end = std::max(p.end, spans[i].end);  // a match is never cut
      ++i;
    }
    p.last = i;
    prev_end = p.end;
    out.push_back(std::move(p));
  }
  return out;
}

std::string Format(const Text& t, const std::vector<Span>& spans, const Passage& p,
                   const HighlightSpec::Field& f, bool html) {
  // Trim the passage's spaces at both ends (never inside a span: spans hold no space).
  uint32_t s = p.start, e = p.end;
  while (s < e && t.kind[s] == 1) ++s;
  while (e > s && t.kind[e - 1] == 1) --e;
  auto bytes = [&](uint32_t a, uint32_t b) {
    return t.bytes.substr(t.at[a], t.at[b] - t.at[a]);
  };
  std::string out;
  uint32_t pos = s;
  for (size_t k = p.first; k < p.last; ++k) {
    uint32_t a = std::max(spans[k].start, pos), b = spans[k].end;
    while (k + 1 < p.last && spans[k + 1].start < b) b = std::max(b, spans[++k].end);  // overlap
    if (b <= pos) continue;
    AppendEncoded(bytes(pos, a), html, &out);
    out += f.pre_tag;
    AppendEncoded(bytes(a, b), html, &out);
    out += f.post_tag;
    pos = b;
  }
  if (e > pos) AppendEncoded(bytes(pos, e), html, &out);
  return out;
}

bool TagCharsOk(std::string_view tag) {
  for (unsigned char c : tag) {
    if (!std::isalnum(c) && c != '<' && c != '>' && c != '"' && c != '\'' && c != '/') {
      return false;
    }
  }
  return true;
}

}  // namespace

struct Highlighter::Impl {
  const model::SearchIndexMeta& index;
  HighlightSpec spec;
  std::vector<const model::SearchField*> fields;  // of spec.fields
  std::vector<FieldMatchers> matchers;            // of spec.fields
};

Status ValidateHighlight(const model::SearchIndexMeta& index, const HighlightSpec& spec,
                         std::string_view nested_path) {
  if (spec.fields.size() > kMaxHighlightFields) {
    return Error::Validation("A highlight names at most " + std::to_string(kMaxHighlightFields) +
                             " fields, but names " + std::to_string(spec.fields.size()));
  }
  for (size_t i = 0; i < spec.fields.size(); ++i) {
    const auto& f = spec.fields[i];
    if (f.name.empty()) return Error::Validation("[highlight] field_name must not be null");
    for (size_t j = 0; j < i; ++j) {
      if (spec.fields[j].name == f.name) {
        return Error::Validation("Duplicated highlight field: " + f.name);
      }
    }
    const model::SearchField* sf = nullptr;
    if (nested_path.empty()) {
      sf = index.FindField(f.name);
      if (!sf && f.name.find('.') != std::string::npos) {
        return Error::Validation("highlighting is not supported for field[" + f.name +
                                 "]: a field of Nested documents is highlighted through the "
                                 "InnerHits of a NestedQuery on its path");
      }
    } else {
      // A direct sub-field of the NestedQuery's path (Chosen: deeper ones through the InnerHits
      // of the NestedQuery on their own path).
      auto ref = ResolveField(index, f.name);
      if (ref && ref->scope != nested_path) {
        return Error::Validation("highlighting is not supported for field[" + f.name +
                                 "]: the InnerHits of the NestedQuery on path " +
                                 std::string(nested_path) + " highlight its own sub-fields");
      }
      sf = ref ? ref->field : nullptr;
    }
    // The service's text (the Python SDK's full_text_search_test, run against it).
    if (!sf || sf->type != model::SearchFieldType::kText || !sf->enable_highlighting) {
      return Error::Validation("highlighting is not supported for field[" + f.name + "]");
    }
    if (f.number_of_fragments < 0 || f.number_of_fragments > kMaxFragments) {
      return Error::Validation("number_of_fragments must be in [0, " +
                               std::to_string(kMaxFragments) + "], but was " +
                               std::to_string(f.number_of_fragments));
    }
    if (f.fragment_size < 1 || f.fragment_size > kMaxFragmentSize) {
      return Error::Validation("fragment_size must be in [1, " +
                               std::to_string(kMaxFragmentSize) + "], but was " +
                               std::to_string(f.fragment_size));
    }
    for (const std::string* tag : {&f.pre_tag, &f.post_tag}) {
      // The service's "HighlightParameter" page: tags of < > " ' / a-z A-Z 0-9.
      if (tag->size() > kMaxTagBytes || !TagCharsOk(*tag)) {
        return Error::Validation("A highlight tag may only hold the characters < > \" ' / a-z "
                                 "A-Z 0-9 (at most " + std::to_string(kMaxTagBytes) +
                                 "), but field " + f.name + " has one that does not");
      }
    }
  }
  return Status::Ok();
}

Highlighter::Highlighter(const model::SearchIndexMeta& index, const Query& query,
                         HighlightSpec spec)
    : impl_(std::make_unique<Impl>(Impl{index, std::move(spec), {}, {}})) {
  std::vector<std::string> names;
  for (const auto& f : impl_->spec.fields) {
    names.push_back(f.name);
    impl_->fields.push_back(FieldByPath(index, f.name));
  }
  impl_->matchers.resize(names.size());
  Collect(index, query, names, &impl_->matchers);
}

Highlighter::~Highlighter() = default;

std::vector<std::string> Highlighter::Fragments(size_t spec_index,
                                                const std::vector<std::string>& values) const {
  std::vector<std::string> out;
  const FieldMatchers& m = impl_->matchers[spec_index];
  const model::SearchField* field = impl_->fields[spec_index];
  if (m.Empty() || !field) return out;
  const HighlightSpec::Field& f = impl_->spec.fields[spec_index];
  std::vector<Text> texts;
  texts.reserve(values.size());
  std::vector<std::vector<Span>> spans;
  std::vector<Passage> passages;
  for (size_t v = 0; v < values.size(); ++v) {
    texts.emplace_back(values[v]);
    std::vector<Word> words =
        AnalyzeText(*field, values[v], impl_->index.analysis, AnalyzeFor::kDocument);
    spans.push_back(SpansOf(texts.back(), words, m));
    for (auto& p : PassagesOf(texts.back(), spans.back(), uint32_t(f.fragment_size), v,
                              f.number_of_fragments == 0)) {
      passages.push_back(std::move(p));
    }
  }
  // The best passages (most matches; the earlier first on a tie), then in the asked order.
  std::vector<size_t> order(passages.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  auto matches = [&](size_t i) { return passages[i].last - passages[i].first; };
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return matches(a) > matches(b); });
  if (f.number_of_fragments > 0 && order.size() > size_t(f.number_of_fragments)) {
    order.resize(size_t(f.number_of_fragments));
  }
  if (!f.order_by_score) std::sort(order.begin(), order.end());
  for (size_t i : order) {
    const Passage& p = passages[i];
    out.push_back(Format(texts[p.value], spans[p.value], p, f, impl_->spec.html));
  }
  return out;
}

std::vector<HighlightedField> Highlighter::HighlightRow(const model::TablestoreSchema& table,
                                                        std::string_view row_key,
                                                        const versions::StoredRow& row,
                                                        int64_t now_ms) const {
  std::vector<HighlightedField> out;
  std::vector<versions::PkCell> pk;
  bool pk_decoded = false;
  for (size_t i = 0; i < impl_->spec.fields.size(); ++i) {
    const model::SearchField* f = impl_->fields[i];
    if (!f || impl_->matchers[i].Empty()) continue;
    const model::CellValue* cell = nullptr;
    if (!pk_decoded) {
      versions::DecodeRowKey(row_key, table.primary_key, &pk);
      pk_decoded = true;
    }
    for (const auto& p : pk) {
      if (p.name == f->name) cell = &p.value;
    }
    if (!cell) {
      const versions::Column* col = row.Find(f->name);
      const versions::Version* v = col ? versions::LatestVisible(*col, table.options, now_ms)
                                       : nullptr;
      if (!v) continue;
      cell = &v->value;
    }
    std::vector<std::string> values;
    for (auto& v : FieldValues(*f, *cell)) values.push_back(std::move(v.bytes));
    std::vector<std::string> fragments = Fragments(i, values);
    if (!fragments.empty()) out.push_back(HighlightedField{f->name, std::move(fragments)});
  }
  return out;
}

}  // namespace ttlstore::search
