// The wire shapes (tablestore/wire_check.h) of the search messages the front end parses
// (search.proto): which fields are submessages and which repeated fields are counted. A Query's
// `query` is bytes holding another message: the check does not descend into it; the query
// decoder (search_query_decode.h) parses each such message with its own check and bounds the
// nesting itself.
#pragma once

#include "tablestore/search.pb.h"
#include "tablestore/wire_check.h"

namespace ttlstore::tablestore {

namespace spb = ::ttlstore::otssearchpb;

const WireShape& WireShapeOf(const spb::CreateSearchIndexRequest&);
const WireShape& WireShapeOf(const spb::UpdateSearchIndexRequest&);
const WireShape& WireShapeOf(const spb::ListSearchIndexRequest&);
const WireShape& WireShapeOf(const spb::DeleteSearchIndexRequest&);
const WireShape& WireShapeOf(const spb::DescribeSearchIndexRequest&);
const WireShape& WireShapeOf(const spb::SearchRequest&);
const WireShape& WireShapeOf(const spb::SearchQuery&);
const WireShape& WireShapeOf(const spb::ComputeSplitsRequest&);
const WireShape& WireShapeOf(const spb::ParallelScanRequest&);
// A Sort message (a top_rows aggregation's sort: tablestore/search_agg_decode.h).
const WireShape& SortWireShape();
// The query messages a Query's bytes hold.
const WireShape& WireShapeOf(const spb::MatchQuery&);
const WireShape& WireShapeOf(const spb::MatchPhraseQuery&);
const WireShape& WireShapeOf(const spb::MatchAllQuery&);
const WireShape& WireShapeOf(const spb::TermQuery&);
const WireShape& WireShapeOf(const spb::TermsQuery&);
const WireShape& WireShapeOf(const spb::RangeQuery&);
const WireShape& WireShapeOf(const spb::PrefixQuery&);
const WireShape& WireShapeOf(const spb::WildcardQuery&);
const WireShape& WireShapeOf(const spb::BoolQuery&);
const WireShape& WireShapeOf(const spb::ConstScoreQuery&);
const WireShape& WireShapeOf(const spb::ExistsQuery&);
const WireShape& WireShapeOf(const spb::GeoDistanceQuery&);
const WireShape& WireShapeOf(const spb::GeoBoundingBoxQuery&);
const WireShape& WireShapeOf(const spb::GeoPolygonQuery&);
const WireShape& WireShapeOf(const spb::NestedQuery&);
const WireShape& WireShapeOf(const spb::FunctionScoreQuery&);
const WireShape& WireShapeOf(const spb::FunctionsScoreQuery&);
// A DecayFunction's `param` bytes hold one of these.
const WireShape& WireShapeOf(const spb::DecayFuncNumericParam&);
const WireShape& WireShapeOf(const spb::DecayFuncDateParam&);
const WireShape& WireShapeOf(const spb::DecayFuncGeoParam&);
const WireShape& WireShapeOf(const spb::KnnVectorQuery&);

}  // namespace ttlstore::tablestore
