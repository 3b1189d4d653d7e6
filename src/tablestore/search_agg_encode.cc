// The engine's aggregation and group-by results (search/agg_types.h) as the protocol's
// AggregationsResult and GroupBysResult (search.proto), in the shapes the SDKs' decoders read:
// the Node SDK's lib/protocol/decoder.js, the Go SDK's search/*_result.go, the Java SDK's
// SearchAggregationResultBuilder and SearchGroupByResultBuilder, the Python SDK's decoder.py.
// Declared in tablestore/search_agg_decode.h.
#include <cstring>

#include "tablestore/search.pb.h"
#include "tablestore/search_agg_decode.h"

namespace ttlstore::tablestore {
namespace {

namespace pb = ::ttlstore::otssearchpb;
using search::AggKind;
using search::GroupByKind;

void PutLittleEndian(std::string* out, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) out->push_back(char((v >> (8 * i)) & 0xff));
}

Status FillAggs(const std::vector<search::AggResult>& aggs, const TopRowBytes& rows,
                pb::AggregationsResult* out);
Status FillGroupBys(const std::vector<search::GroupByResult>& groups, const TopRowBytes& rows,
                    pb::GroupBysResult* out);

// An item's sub-results, set only when the group-by had sub-aggregations or sub-group-bys.
template <typename Item>
Status FillSubs(const search::GroupItem& item, const TopRowBytes& rows, Item* pi) {
  if (!item.sub_aggs.empty()) {
    RETURN_IF_ERROR(FillAggs(item.sub_aggs, rows, pi->mutable_sub_aggs_result()));
  }
  if (!item.sub_group_bys.empty()) {
    RETURN_IF_ERROR(FillGroupBys(item.sub_group_bys, rows, pi->mutable_sub_group_bys_result()));
  }
  return Status::Ok();
}

Result<std::string> AggBody(const search::AggResult& a, const TopRowBytes& rows) {
  switch (a.kind) {
    case AggKind::kAvg: {
      pb::AvgAggregationResult r;
      r.set_value(a.value);
      return r.SerializeAsString();
    }
    case AggKind::kMax: {
      pb::MaxAggregationResult r;
      r.set_value(a.value);
      return r.SerializeAsString();
    }
    case AggKind::kMin: {
      pb::MinAggregationResult r;
      r.set_value(a.value);
      return r.SerializeAsString();
    }
    case AggKind::kSum: {
      pb::SumAggregationResult r;
      r.set_value(a.value);
      return r.SerializeAsString();
    }
    case AggKind::kCount: {
      pb::CountAggregationResult r;
      r.set_value(a.count);
      return r.SerializeAsString();
    }
    case AggKind::kDistinctCount: {
      pb::DistinctCountAggregationResult r;
      r.set_value(a.count);
      return r.SerializeAsString();
    }
    case AggKind::kTopRows: {
      pb::TopRowsAggregationResult r;
      for (const auto& key : a.row_keys) {
        ASSIGN_OR_RETURN(row, rows(key));
        if (row) r.add_rows(std::move(*row));
      }
      return r.SerializeAsString();
    }
    case AggKind::kPercentiles: {
      pb::PercentilesAggregationResult r;
      for (const auto& [p, v] : a.percentiles) {
        auto* item = r.add_percentiles_aggregation_items();
        item->set_key(p);
        item->set_value(EncodeSearchValue(v));
      }
      return r.SerializeAsString();
    }
  }
  return std::string();
}

Status FillAggs(const std::vector<search::AggResult>& aggs, const TopRowBytes& rows,
                pb::AggregationsResult* out) {
  for (const auto& a : aggs) {
    auto* r = out->add_agg_results();
    r->set_name(a.name);
    r->set_type(pb::AggregationType(int(a.kind)));
    ASSIGN_OR_RETURN(body, AggBody(a, rows));
    r->set_agg_result(std::move(body));
  }
  return Status::Ok();
}

Result<std::string> GroupBody(const search::GroupByResult& g, const TopRowBytes& rows) {
  switch (g.kind) {
    case GroupByKind::kField: {
      pb::GroupByFieldResult r;
      for (const auto& item : g.items) {
        auto* pi = r.add_group_by_field_result_items();
        pi->set_key(item.key);
        pi->set_row_count(item.row_count);
        RETURN_IF_ERROR(FillSubs(item, rows, pi));
      }
      return r.SerializeAsString();
    }
    case GroupByKind::kRange: {
      pb::GroupByRangeResult r;
      for (const auto& item : g.items) {
        auto* pi = r.add_group_by_range_result_items();
        pi->set_from(item.from);
        pi->set_to(item.to);
        pi->set_row_count(item.row_count);
        RETURN_IF_ERROR(FillSubs(item, rows, pi));
      }
      return r.SerializeAsString();
    }
    case GroupByKind::kFilter: {
      pb::GroupByFilterResult r;
      for (const auto& item : g.items) {
        auto* pi = r.add_group_by_filter_result_items();
        pi->set_row_count(item.row_count);
        RETURN_IF_ERROR(FillSubs(item, rows, pi));
      }
      return r.SerializeAsString();
    }
    case GroupByKind::kHistogram: {
      pb::GroupByHistogramResult r;
      for (const auto& item : g.items) {
        auto* pi = r.add_group_by_histogra_items();
        pi->set_key(EncodeSearchValue(item.histogram_key));
        pi->set_value(item.row_count);
        RETURN_IF_ERROR(FillSubs(item, rows, pi));
      }
      return r.SerializeAsString();
    }
    case GroupByKind::kDateHistogram: {
      pb::GroupByDateHistogramResult r;
      for (const auto& item : g.items) {
        auto* pi = r.add_group_by_date_histogram_items();
        pi->set_timestamp(item.timestamp_ms);
        pi->set_row_count(item.row_count);
        RETURN_IF_ERROR(FillSubs(item, rows, pi));
      }
      return r.SerializeAsString();
    }
    case GroupByKind::kComposite: {
      pb::GroupByCompositeResult r;
      for (const auto& item : g.items) {
        auto* pi = r.add_group_by_composite_result_items();
        for (const auto& k : item.keys) {
          pi->add_keys(k ? *k : std::string());
          pi->add_is_null_keys(!k);
        }
        pi->set_row_count(item.row_count);
        RETURN_IF_ERROR(FillSubs(item, rows, pi));
      }
      for (const auto& n : g.source_names) r.add_source_group_by_names(n);
      if (!g.next_token.empty()) r.set_next_token(g.next_token);
      return r.SerializeAsString();
    }
    case GroupByKind::kGeoDistance: {
      pb::GroupByGeoDistanceResult r;
      for (const auto& item : g.items) {
        auto* pi = r.add_group_by_geo_distance_result_items();
        pi->set_from(item.from);
        pi->set_to(item.to);
        pi->set_row_count(item.row_count);
        RETURN_IF_ERROR(FillSubs(item, rows, pi));
      }
      return r.SerializeAsString();
    }
    case GroupByKind::kGeoGrid: {
      pb::GroupByGeoGridResult r;
      for (const auto& item : g.items) {
        auto* pi = r.add_group_by_geo_grid_result_items();
        pi->set_key(item.key);
        auto* grid = pi->mutable_geo_grid();
        grid->mutable_top_left()->set_lat(item.top_lat);
        grid->mutable_top_left()->set_lon(item.left_lon);
        grid->mutable_bottom_right()->set_lat(item.bottom_lat);
        grid->mutable_bottom_right()->set_lon(item.right_lon);
        pi->set_row_count(item.row_count);
        RETURN_IF_ERROR(FillSubs(item, rows, pi));
      }
      return r.SerializeAsString();
    }
  }
  return Error::Internal("group-by result of a refused type");
}

Status FillGroupBys(const std::vector<search::GroupByResult>& groups, const TopRowBytes& rows,
                    pb::GroupBysResult* out) {
  for (const auto& g : groups) {
    auto* r = out->add_group_by_results();
    r->set_name(g.name);
    r->set_type(pb::GroupByType(int(g.kind)));
    ASSIGN_OR_RETURN(body, GroupBody(g, rows));
    r->set_group_by_result(std::move(body));
  }
  return Status::Ok();
}

}  // namespace

std::string EncodeSearchValue(const model::CellValue& v) {
  std::string out;
  switch (v.type) {
    case model::CellType::kInteger:
      out.push_back(0);
      PutLittleEndian(&out, uint64_t(v.integer), 8);
      break;
    case model::CellType::kDouble: {
      out.push_back(1);
      uint64_t bits;
      std::memcpy(&bits, &v.dbl, sizeof bits);
      PutLittleEndian(&out, bits, 8);
      break;
    }
    case model::CellType::kBoolean:
      out.push_back(2);
      out.push_back(v.boolean ? 1 : 0);
      break;
    default:
      out.push_back(3);
      PutLittleEndian(&out, v.bytes.size(), 4);
      out += v.bytes;
  }
  return out;
}

Result<std::string> EncodeAggResults(const std::vector<search::AggResult>& aggs,
                                     const TopRowBytes& rows) {
  pb::AggregationsResult r;
  RETURN_IF_ERROR(FillAggs(aggs, rows, &r));
  return r.SerializeAsString();
}

Result<std::string> EncodeGroupByResults(const std::vector<search::GroupByResult>& group_bys,
                                         const TopRowBytes& rows) {
  pb::GroupBysResult r;
  RETURN_IF_ERROR(FillGroupBys(group_bys, rows, &r));
  return r.SerializeAsString();
}

}  // namespace ttlstore::tablestore
