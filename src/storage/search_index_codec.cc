#include "storage/search_index_codec.h"

#include "common/coding.h"
#include "storage/tagged_fields.h"

namespace ttlstore::storage {
namespace {

// Fields of a search index payload; persisted.
enum SearchIndexTag : uint64_t {
  kSiName = 1,
  kSiField = 2,         // nested SearchFieldTag fields, repeated in schema order
  kSiIndexSort = 3,     // nested SortKeyTag fields, repeated in sort order
  kSiTimeToLive = 4,    // varint (int64 two's complement)
  kSiId = 5,            // varint
  kSiCreateTime = 6,    // varint (microseconds)
  kSiBuilt = 7,         // varint 1, present once the build finished (absent: building)
  kSiRoutingField = 8,  // repeated, IndexSetting order
  kSiAnalysis = 9,      // varint: the analysis rules (model::kAnalysis*); absent: 1
};

enum SearchFieldTag : uint64_t {
  kSfName = 1,
  kSfType = 2,          // varint SearchFieldType
  kSfFlags = 3,         // varint: 1 index, 2 sort_and_agg, 4 store, 8 is_array,
                        // 16 enable_highlighting, 32 sort_and_agg_defaulted
  kSfAnalyzer = 4,
  kSfAnalyzerParameter = 5,
  kSfDateFormat = 6,    // repeated
  kSfSubField = 7,      // Nested only: nested SearchFieldTag fields, repeated in schema order
  // Vector fields (issue 32), numbered apart from the tags other field types may add.
  kSfVectorDimension = 32,  // varint
  kSfVectorMetric = 33,     // varint model::VectorMetric
};

// Sub-fields nest at most model::kMaxNestedDepth levels (the handler's bound); a deeper payload
// is malformed.
constexpr int kMaxFieldDepth = model::kMaxNestedDepth + 1;

enum SortKeyTag : uint64_t {
  kSkKind = 1,          // varint SearchSortKey::Kind
  kSkField = 2,
  kSkDescending = 3,    // varint 0/1
};

bool DecodeField(std::string_view in, model::SearchField* f, int depth = 0) {
  if (depth > kMaxFieldDepth) return false;
  while (!in.empty()) {
    uint64_t tag, v = 0;
    std::string_view p;
    if (!GetVarint64(&in, &tag) || !GetLengthPrefixed(&in, &p)) return false;
    switch (tag) {
      case kSfName: f->name.assign(p); break;
      case kSfType:
        if (!GetVarintPayload(p, &v)) return false;
        f->type = static_cast<model::SearchFieldType>(v);
        break;
      case kSfFlags:
        if (!GetVarintPayload(p, &v)) return false;
        f->index = v & 1;
        f->sort_and_agg = v & 2;
        f->store = v & 4;
        f->is_array = v & 8;
        f->enable_highlighting = v & 16;
        f->sort_and_agg_defaulted = v & 32;
        break;
      case kSfAnalyzer: f->analyzer.assign(p); break;
      case kSfAnalyzerParameter: f->analyzer_parameter.assign(p); break;
      case kSfDateFormat: f->date_formats.emplace_back(p); break;
      case kSfSubField:
        if (!DecodeField(p, &f->sub_fields.emplace_back(), depth + 1)) return false;
        break;
      case kSfVectorDimension:
        if (!GetVarintPayload(p, &v) || v > model::kMaxVectorDimensions) return false;
        f->vector_dimension = uint32_t(v);
        break;
      case kSfVectorMetric:
        if (!GetVarintPayload(p, &v) || v > 2) return false;
        f->vector_metric = static_cast<model::VectorMetric>(v);
        break;
      default: break;
    }
  }
  return !f->name.empty();
}

bool DecodeSortKey(std::string_view in, model::SearchSortKey* k) {
  while (!in.empty()) {
    uint64_t tag, v = 0;
    std::string_view p;
    if (!GetVarint64(&in, &tag) || !GetLengthPrefixed(&in, &p)) return false;
    switch (tag) {
      case kSkKind:
        if (!GetVarintPayload(p, &v)) return false;
        k->kind = static_cast<model::SearchSortKey::Kind>(v);
        break;
      case kSkField: k->field.assign(p); break;
      case kSkDescending:
        if (!GetVarintPayload(p, &v)) return false;
        k->descending = v != 0;
        break;
      default: break;
    }
  }
  return true;
}

std::string EncodeField(const model::SearchField& f) {
  std::string p;
  PutField(&p, kSfName, f.name);
  PutVarintField(&p, kSfType, static_cast<uint64_t>(f.type));
  PutVarintField(&p, kSfFlags, (f.index ? 1 : 0) | (f.sort_and_agg ? 2 : 0) |
                                   (f.store ? 4 : 0) | (f.is_array ? 8 : 0) |
                                   (f.enable_highlighting ? 16 : 0) |
                                   (f.sort_and_agg_defaulted ? 32 : 0));
  if (!f.analyzer.empty()) PutField(&p, kSfAnalyzer, f.analyzer);
  if (!f.analyzer_parameter.empty()) PutField(&p, kSfAnalyzerParameter, f.analyzer_parameter);
  for (const auto& d : f.date_formats) PutField(&p, kSfDateFormat, d);
  for (const auto& sub : f.sub_fields) PutField(&p, kSfSubField, EncodeField(sub));
  if (f.type == model::SearchFieldType::kVector) {
    PutVarintField(&p, kSfVectorDimension, f.vector_dimension);
    PutVarintField(&p, kSfVectorMetric, static_cast<uint64_t>(f.vector_metric));
  }
  return p;
}

}  // namespace

std::string EncodeSearchIndex(const model::SearchIndexMeta& index) {
  std::string out;
  PutField(&out, kSiName, index.name);
  for (const auto& f : index.fields) PutField(&out, kSiField, EncodeField(f));
  for (const auto& k : index.index_sort) {
    std::string p;
    PutVarintField(&p, kSkKind, static_cast<uint64_t>(k.kind));
    if (!k.field.empty()) PutField(&p, kSkField, k.field);
    PutVarintField(&p, kSkDescending, k.descending ? 1 : 0);
    PutField(&out, kSiIndexSort, p);
  }
  PutVarintField(&out, kSiTimeToLive, static_cast<uint64_t>(int64_t{index.time_to_live}));
  PutVarintField(&out, kSiId, index.id);
  PutVarintField(&out, kSiCreateTime, static_cast<uint64_t>(index.create_time_us));
  if (!index.building) PutVarintField(&out, kSiBuilt, 1);
  for (const auto& r : index.routing_fields) PutField(&out, kSiRoutingField, r);
  PutVarintField(&out, kSiAnalysis, index.analysis);
  return out;
}

bool DecodeSearchIndex(std::string_view in, model::SearchIndexMeta* index) {
  index->building = true;
  index->analysis = model::kAnalysisV1;  // written before the tag existed
  while (!in.empty()) {
    uint64_t tag, v = 0;
    std::string_view p;
    if (!GetVarint64(&in, &tag) || !GetLengthPrefixed(&in, &p)) return false;
    bool ok = true;
    switch (tag) {
      case kSiName: index->name.assign(p); break;
      case kSiField: ok = DecodeField(p, &index->fields.emplace_back()); break;
      case kSiIndexSort: ok = DecodeSortKey(p, &index->index_sort.emplace_back()); break;
      case kSiTimeToLive:
        ok = GetVarintPayload(p, &v);
        index->time_to_live = static_cast<int32_t>(static_cast<int64_t>(v));
        break;
      case kSiId: ok = GetVarintPayload(p, &v); index->id = uint32_t(v); break;
      case kSiCreateTime:
        ok = GetVarintPayload(p, &v);
        index->create_time_us = static_cast<int64_t>(v);
        break;
      case kSiBuilt: index->building = false; break;
      case kSiRoutingField: index->routing_fields.emplace_back(p); break;
      case kSiAnalysis:
        ok = GetVarintPayload(p, &v) && v >= model::kAnalysisV1 && v <= model::kAnalysisCurrent;
        index->analysis = uint32_t(v);
        break;
      default: break;
    }
    if (!ok) return false;
  }
  return !index->name.empty() && index->id != 0;
}

}  // namespace ttlstore::storage
