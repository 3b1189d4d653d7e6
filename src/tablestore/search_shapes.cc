#include "tablestore/search_shapes.h"

namespace ttlstore::tablestore {
namespace {

// Field numbers as in search.proto. Every submessage field is listed so that the check sees
// its nesting and malformed bytes as the parser would; repeated strings and bytes are listed so
// that they count toward kMaxRepeatedEntries.
constexpr WireShape kLeaf{};

constexpr WireShape kQueryShape{};  // type and bytes only

constexpr WireField kNestedFilter[] = {{2, false, &kQueryShape, CountRule::kNone}};
constexpr WireShape kNestedFilterShape{kNestedFilter};
constexpr WireField kFieldSort[] = {{4, false, &kNestedFilterShape, CountRule::kNone}};
constexpr WireShape kFieldSortShape{kFieldSort};
constexpr WireField kGeoDistanceSort[] = {
    {2, true, nullptr, CountRule::kNone},
    {6, false, &kNestedFilterShape, CountRule::kNone},
};
constexpr WireShape kGeoDistanceSortShape{kGeoDistanceSort};
constexpr WireField kSorter[] = {
    {1, false, &kFieldSortShape, CountRule::kNone},
    {2, false, &kGeoDistanceSortShape, CountRule::kNone},
    {3, false, &kLeaf, CountRule::kNone},
    {4, false, &kLeaf, CountRule::kNone},
    {5, false, &kLeaf, CountRule::kNone},
};
constexpr WireShape kSorterShape{kSorter};
constexpr WireField kSort[] = {{1, true, &kSorterShape, CountRule::kNone}};
constexpr WireShape kSortShape{kSort};

// FieldSchema nests itself (Nested's sub-fields, five levels at most by the handler): the shape names
// itself, so the check walks sub-fields as the parser does (depth bounded by kMaxWireDepth).
extern const WireShape kFieldSchemaShape;
constexpr WireField kFieldSchema[] = {
    {8, true, &kFieldSchemaShape, CountRule::kNone},
    {12, true, nullptr, CountRule::kNone},
    {13, true, nullptr, CountRule::kNone},
    {15, false, &kLeaf, CountRule::kNone},
};
constexpr WireShape kFieldSchemaShape{kFieldSchema};
constexpr WireField kIndexSetting[] = {{2, true, nullptr, CountRule::kNone}};
constexpr WireShape kIndexSettingShape{kIndexSetting};
constexpr WireField kIndexSchema[] = {
    {1, true, &kFieldSchemaShape, CountRule::kNone},
    {2, false, &kIndexSettingShape, CountRule::kNone},
    {3, false, &kSortShape, CountRule::kNone},
};
constexpr WireShape kIndexSchemaShape{kIndexSchema};
constexpr WireField kCreate[] = {{3, false, &kIndexSchemaShape, CountRule::kNone}};
constexpr WireShape kCreateShape{kCreate};
constexpr WireField kUpdate[] = {
    {4, true, nullptr, CountRule::kNone},
    {6, true, nullptr, CountRule::kNone},
};
constexpr WireShape kUpdateShape{kUpdate};

constexpr WireField kColumnsToGet[] = {{2, true, nullptr, CountRule::kColumns}};
constexpr WireShape kColumnsToGetShape{kColumnsToGet};
constexpr WireField kSearchRequest[] = {
    {3, false, &kColumnsToGetShape, CountRule::kNone},
    {5, true, nullptr, CountRule::kNone},
};
constexpr WireShape kSearchRequestShape{kSearchRequest};
constexpr WireField kSearchFilter[] = {{1, false, &kQueryShape, CountRule::kNone}};
constexpr WireShape kSearchFilterShape{kSearchFilter};
constexpr WireField kHighlight[] = {{1, true, &kLeaf, CountRule::kNone}};
constexpr WireShape kHighlightShape{kHighlight};
constexpr WireField kSearchQuery[] = {
    {4, false, &kQueryShape, CountRule::kNone},
    {5, false, &kLeaf, CountRule::kNone},  // Collapse
    {6, false, &kSortShape, CountRule::kNone},
    {12, false, &kHighlightShape, CountRule::kNone},
    {14, false, &kSearchFilterShape, CountRule::kNone},
};
constexpr WireShape kSearchQueryShape{kSearchQuery};

constexpr WireField kComputeSplits[] = {{2, false, &kLeaf, CountRule::kNone}};
constexpr WireShape kComputeSplitsShape{kComputeSplits};
constexpr WireField kScanQuery[] = {{1, false, &kQueryShape, CountRule::kNone}};
constexpr WireShape kScanQueryShape{kScanQuery};
constexpr WireField kParallelScan[] = {
    {3, false, &kColumnsToGetShape, CountRule::kNone},
    {5, false, &kScanQueryShape, CountRule::kNone},
};
constexpr WireShape kParallelScanShape{kParallelScan};

constexpr WireField kTerms[] = {{2, true, nullptr, CountRule::kNone}};
constexpr WireShape kTermsShape{kTerms};
constexpr WireField kBool[] = {
    {1, true, &kQueryShape, CountRule::kNone},
    {2, true, &kQueryShape, CountRule::kNone},
    {3, true, &kQueryShape, CountRule::kNone},
    {4, true, &kQueryShape, CountRule::kNone},
};
constexpr WireShape kBoolShape{kBool};
constexpr WireField kConstScore[] = {{1, false, &kQueryShape, CountRule::kNone}};
constexpr WireShape kConstScoreShape{kConstScore};
constexpr WireField kGeoPolygon[] = {{2, true, nullptr, CountRule::kNone}};
constexpr WireShape kGeoPolygonShape{kGeoPolygon};
constexpr WireField kInnerHits[] = {
    {1, false, &kSortShape, CountRule::kNone},
    {4, false, &kHighlightShape, CountRule::kNone},
};
constexpr WireShape kInnerHitsShape{kInnerHits};
constexpr WireField kNested[] = {
    {2, false, &kQueryShape, CountRule::kNone},
    {5, false, &kInnerHitsShape, CountRule::kNone},
};
constexpr WireShape kNestedShape{kNested};
constexpr WireField kFunctionScore[] = {
    {1, false, &kQueryShape, CountRule::kNone},
    {2, false, &kLeaf, CountRule::kNone},
};
constexpr WireShape kFunctionScoreShape{kFunctionScore};
// Function: field_value_factor, random and decay are flat messages (decay's param is bytes,
// parsed with its own check), filter a Query.
constexpr WireField kFunction[] = {
    {1, false, &kLeaf, CountRule::kNone},
    {2, false, &kLeaf, CountRule::kNone},
    {3, false, &kLeaf, CountRule::kNone},
    {5, false, &kQueryShape, CountRule::kNone},
};
constexpr WireShape kFunctionShape{kFunction};
constexpr WireField kFunctionsScore[] = {
    {1, false, &kQueryShape, CountRule::kNone},
    {2, true, &kFunctionShape, CountRule::kNone},
};
constexpr WireShape kFunctionsScoreShape{kFunctionsScore};
constexpr WireField kDateParam[] = {
    {3, false, &kLeaf, CountRule::kNone},
    {4, false, &kLeaf, CountRule::kNone},
};
constexpr WireShape kDateParamShape{kDateParam};
constexpr WireField kKnnVector[] = {{5, false, &kQueryShape, CountRule::kNone}};
constexpr WireShape kKnnVectorShape{kKnnVector};

}  // namespace

const WireShape& WireShapeOf(const spb::CreateSearchIndexRequest&) { return kCreateShape; }
const WireShape& WireShapeOf(const spb::UpdateSearchIndexRequest&) { return kUpdateShape; }
const WireShape& WireShapeOf(const spb::ListSearchIndexRequest&) { return kLeaf; }
const WireShape& WireShapeOf(const spb::DeleteSearchIndexRequest&) { return kLeaf; }
const WireShape& WireShapeOf(const spb::DescribeSearchIndexRequest&) { return kLeaf; }
const WireShape& WireShapeOf(const spb::SearchRequest&) { return kSearchRequestShape; }
const WireShape& WireShapeOf(const spb::SearchQuery&) { return kSearchQueryShape; }
const WireShape& WireShapeOf(const spb::ComputeSplitsRequest&) { return kComputeSplitsShape; }
const WireShape& WireShapeOf(const spb::ParallelScanRequest&) { return kParallelScanShape; }
const WireShape& SortWireShape() { return kSortShape; }
const WireShape& WireShapeOf(const spb::MatchQuery&) { return kLeaf; }
const WireShape& WireShapeOf(const spb::MatchPhraseQuery&) { return kLeaf; }
const WireShape& WireShapeOf(const spb::MatchAllQuery&) { return kLeaf; }
const WireShape& WireShapeOf(const spb::TermQuery&) { return kLeaf; }
const WireShape& WireShapeOf(const spb::TermsQuery&) { return kTermsShape; }
const WireShape& WireShapeOf(const spb::RangeQuery&) { return kLeaf; }
const WireShape& WireShapeOf(const spb::PrefixQuery&) { return kLeaf; }
const WireShape& WireShapeOf(const spb::WildcardQuery&) { return kLeaf; }
const WireShape& WireShapeOf(const spb::BoolQuery&) { return kBoolShape; }
const WireShape& WireShapeOf(const spb::ConstScoreQuery&) { return kConstScoreShape; }
const WireShape& WireShapeOf(const spb::ExistsQuery&) { return kLeaf; }
const WireShape& WireShapeOf(const spb::GeoDistanceQuery&) { return kLeaf; }
const WireShape& WireShapeOf(const spb::GeoBoundingBoxQuery&) { return kLeaf; }
const WireShape& WireShapeOf(const spb::GeoPolygonQuery&) { return kGeoPolygonShape; }
const WireShape& WireShapeOf(const spb::NestedQuery&) { return kNestedShape; }
const WireShape& WireShapeOf(const spb::FunctionScoreQuery&) { return kFunctionScoreShape; }
const WireShape& WireShapeOf(const spb::FunctionsScoreQuery&) { return kFunctionsScoreShape; }
const WireShape& WireShapeOf(const spb::DecayFuncNumericParam&) { return kLeaf; }
const WireShape& WireShapeOf(const spb::DecayFuncDateParam&) { return kDateParamShape; }
const WireShape& WireShapeOf(const spb::DecayFuncGeoParam&) { return kLeaf; }
const WireShape& WireShapeOf(const spb::KnnVectorQuery&) { return kKnnVectorShape; }

}  // namespace ttlstore::tablestore
