// Search, ComputeSplits and ParallelScan: the protocol's queries decoded
// (search_query_decode.h), run by the search engine (search/search_engine.h), and each hit's
// row read from the table through RowOps by its row key and returned as a PlainBuffer row, as
// GetRange returns rows (docs/tablestore.md, "Search indexes").
#include "search/agg_types.h"
#include "search/highlight.h"
#include "search/search_engine.h"
#include "tablestore/error_map.h"
#include "tablestore/handlers.h"
#include "tablestore/ots_error.h"
#include "tablestore/plainbuffer.h"
#include "tablestore/row_convert.h"
#include "tablestore/search_agg_decode.h"
#include "tablestore/search_query_decode.h"
#include "versions/row_key.h"

namespace ttlstore::tablestore {
namespace {

namespace pb = ::ttlstore::otssearchpb;

// Which columns each returned row carries.
struct ColumnChoice {
  bool none = false;               // primary key only
  std::vector<std::string> names;  // empty and !none: every column
  // Every returned column is stored in the index (the service then allows 1000 rows a page).
  bool from_index = false;
};

Result<ColumnChoice> ColumnsOf(const model::SearchIndexMeta& ix, bool has, const pb::ColumnsToGet& c) {
  ColumnChoice out;
  // Absent: RETURN_NONE (the service answers primary keys only).
  pb::ColumnReturnType type = has && c.has_return_type() ? c.return_type() : pb::RETURN_NONE;
  switch (type) {
    case pb::RETURN_ALL:
      return out;
    case pb::RETURN_NONE:
      out.none = true;
      out.from_index = true;
      return out;
    case pb::RETURN_SPECIFIED:
      if (c.column_names_size() == 0) {
        return Error::Validation("column_names must be set when return_type is RETURN_SPECIFIED.");
      }
      out.from_index = true;
      for (const auto& n : c.column_names()) {
        out.names.push_back(n);
        const model::SearchField* f = ix.FindField(n);
        // As the service: arrays and dates are read from the table.
        if (!f || !f->store || f->is_array || f->type == model::SearchFieldType::kDate) {
          out.from_index = false;
        }
      }
      return out;
    case pb::RETURN_ALL_FROM_INDEX:
      for (const auto& f : ix.fields) {
        if (f.store) out.names.push_back(f.name);
      }
      if (out.names.empty()) out.none = true;
      out.from_index = true;
      return out;
  }
  return Error::Validation("Invalid return_type: " + std::to_string(int(type)) + ".");
}

struct Target {
  ops::TablePtr table;
  const model::SearchIndexMeta* index = nullptr;
};

Result<Target> FindSearchTarget(const Services& s, const std::string& table_name,
                                const std::string& index_name) {
  if (table_name.empty()) return Error::Validation("The table name must be set.");
  if (index_name.empty()) return Error::Validation("The index name must be set.");
  ASSIGN_OR_RETURN(table, FindTable(s, table_name));
  Target t;
  t.table = table;
  t.index = table->tablestore->FindSearchIndex(index_name);
  if (!t.index) {
    return Error::ResourceNotFound(std::string(kSearchIndexMessagePrefix) + "'" +
                                   EchoForError(index_name) + "' does not exist.");
  }
  return t;
}

// The row stored under `key` as a PlainBuffer row with the chosen columns; nullopt if the row
// is gone (deleted after the index saw it). With `highlighter`, the row's highlighted fields
// go to `highlighted`.
Result<std::optional<std::string>> RowBytes(
    const Services& s, const model::TableDescriptor& table, const std::string& key,
    const ColumnChoice& cols, const search::Highlighter* highlighter = nullptr,
    std::vector<search::HighlightedField>* highlighted = nullptr) {
  ASSIGN_OR_RETURN(stored, s.rows.Read(key));
  if (!stored) return std::optional<std::string>();
  if (highlighter) {
    *highlighted = highlighter->HighlightRow(*table.tablestore, key, *stored, s.clock.NowMs());
  }
  std::vector<versions::PkCell> pk;
  if (!versions::DecodeRowKey(key, table.tablestore->primary_key, &pk)) {
    return Error::Internal("search hit with a malformed row key");
  }
  if (cols.none) return std::optional<std::string>(EncodeRow(ToPbKey(pk)));
  versions::ReadSpec spec;
  spec.max_versions = 1;
  spec.columns = cols.names;
  std::optional<ops::RowView> view = s.rows.ViewRow(table, key, *stored, spec);
  // A row that shows none of the asked columns still answers with its primary key.
  if (!view) return std::optional<std::string>(EncodeRow(ToPbKey(pk)));
  return std::optional<std::string>(EncodeRow(ToPbRow(*view)));
}

// SearchRequest.routing_values: PlainBuffer primary keys (as the SDKs write them) holding
// exactly the index's routing fields, or the partition key when it has none, each with its
// primary-key type. One shard here, so they are checked, not used: every document is in it (the
// service: routing values narrow the partitions read, never the result). Texts Chosen.
Status CheckRoutingValues(const model::TablestoreSchema& table, const model::SearchIndexMeta& ix,
                          const google::protobuf::RepeatedPtrField<std::string>& values) {
  std::vector<std::string> fields = ix.routing_fields;
  if (fields.empty()) fields.push_back(table.primary_key[0].name);
  std::string names;
  for (const auto& f : fields) names += (names.empty() ? "" : ", ") + f;
  auto wrong = [&] {
    return Error::Validation("A routing value must hold the routing fields [" + names +
                             "] of the search index, each once with its primary-key type.");
  };
  for (const auto& v : values) {
    ASSIGN_OR_RETURN(row, DecodeRow(v));
    if (!row.attributes.empty() || row.primary_key.size() != fields.size()) return wrong();
    for (const auto& cell : row.primary_key) {
      auto at = std::find(fields.begin(), fields.end(), cell.name);
      if (at == fields.end() || !cell.value) return wrong();
      for (const auto& other : row.primary_key) {
        if (&other != &cell && other.name == cell.name) return wrong();
      }
      for (const auto& c : table.primary_key) {
        if (c.name != cell.name) continue;
        model::CellType want = c.type == model::PkType::kInteger ? model::CellType::kInteger
                               : c.type == model::PkType::kString ? model::CellType::kString
                                                                  : model::CellType::kBlob;
        if (cell.value->type != want) return wrong();
      }
    }
  }
  return Status::Ok();
}

// SearchHit.search_inner_hits as the SDKs decode them (Go buildSearchInnerHit, Java
// SearchInnerHitsParser, Python _decode_search_hits, Node _parseSearchInnerHit): per NestedQuery
// its path and per sub-document a SearchHit with its score and nested_doc_offset, nesting again
// for inner hits inside.
void FillInnerHits(const std::vector<search::InnerHitGroup>& groups, pb::SearchHit* out) {
  for (const auto& g : groups) {
    auto* inner = out->add_search_inner_hits();
    inner->set_path(g.path);
    for (const auto& h : g.hits) {
      auto* hit = inner->add_search_hits();
      hit->set_score(h.score);
      hit->set_nested_doc_offset(h.offset);
      if (!h.highlights.empty()) {
        auto* result = hit->mutable_highlight_result();
        for (const auto& f : h.highlights) {
          auto* field = result->add_highlight_fields();
          field->set_field_name(f.field);
          for (const auto& fragment : f.fragments) field->add_field_fragments(fragment);
        }
      }
      FillInnerHits(h.inner, hit);
    }
  }
}

Status NeedEngine(const Services& s) {
  if (!s.search) return Error::Validation("Search indexes are not available on this server.");
  return Status::Ok();
}

}  // namespace

Result<std::string> Search(const Services& s, std::string_view body) {
  pb::SearchRequest req;
  RETURN_IF_ERROR(ParseMessage(body, &req));
  ASSIGN_OR_RETURN(target, FindSearchTarget(s, req.table_name(), req.index_name()));
  ASSIGN_OR_RETURN(cols, ColumnsOf(*target.index, req.has_columns_to_get(), req.columns_to_get()));
  if (!req.has_search_query()) return Error::Validation("The search query must be set.");
  ASSIGN_OR_RETURN(sreq, DecodeSearchQuery(req.search_query()));
  RETURN_IF_ERROR(CheckRoutingValues(*target.table->tablestore, *target.index,
                                     req.routing_values()));
  if (!cols.from_index && sreq.limit > kMaxSearchLimitFromTable) {
    return Error::Validation("The limit must be in range [0, " +
                             std::to_string(kMaxSearchLimitFromTable) +
                             "] when columns are read from the table, but was " +
                             std::to_string(sreq.limit) + ".");
  }
  RETURN_IF_ERROR(search::SearchEngine::Validate(*target.index, sreq.query));
  std::unique_ptr<search::Highlighter> highlighter;
  if (sreq.highlight) {
    RETURN_IF_ERROR(search::ValidateHighlight(*target.index, *sreq.highlight));
    highlighter = std::make_unique<search::Highlighter>(*target.index, sreq.query,
                                                        *sreq.highlight);
  }
  RETURN_IF_ERROR(NeedEngine(s));
  sreq.now_ms = s.clock.NowMs();
  ASSIGN_OR_RETURN(result, s.search->Search(target.table->id, *target.table->tablestore,
                                            *target.index, sreq));
  pb::SearchResponse resp;
  resp.set_total_hits(sreq.total_count ? result.total_hits : -1);
  for (const auto& hit : result.hits) {
    std::vector<search::HighlightedField> highlighted;
    ASSIGN_OR_RETURN(row, RowBytes(s, *target.table, hit.row_key, cols, highlighter.get(),
                                   &highlighted));
    if (!row) continue;
    resp.add_rows(std::move(*row));
    // One hit per row, in the rows' order (the Java SDK pairs them by position): its score, the
    // inner hits of its NestedQuery with InnerHits, and with a highlight its fragments (a result,
    // maybe empty, on every hit, so that the SDKs' decoders find one).
    pb::SearchHit* sh = resp.add_search_hits();
    sh->set_score(hit.score);
    FillInnerHits(hit.inner_hits, sh);
    if (highlighter) {
      pb::HighlightResult* hr = sh->mutable_highlight_result();
      for (auto& h : highlighted) {
        pb::HighlightField* hf = hr->add_highlight_fields();
        hf->set_field_name(h.field);
        for (auto& fragment : h.fragments) hf->add_field_fragments(std::move(fragment));
      }
    }
  }
  resp.set_is_all_succeeded(true);
  if (!result.next_token.empty()) resp.set_next_token(result.next_token);
  if (result.aggs) {
    // top_rows rows are read as the hits are, with the request's columns.
    TopRowBytes top = [&](const std::string& key) { return RowBytes(s, *target.table, key, cols); };
    if (sreq.aggs && !sreq.aggs->aggs.empty()) {
      ASSIGN_OR_RETURN(bytes, EncodeAggResults(result.aggs->aggs, top));
      resp.set_aggs(std::move(bytes));
    }
    if (sreq.aggs && !sreq.aggs->group_bys.empty()) {
      ASSIGN_OR_RETURN(bytes, EncodeGroupByResults(result.aggs->group_bys, top));
      resp.set_group_bys(std::move(bytes));
    }
  }
  return Serialize(resp);
}

Result<std::string> ComputeSplits(const Services& s, std::string_view body) {
  pb::ComputeSplitsRequest req;
  RETURN_IF_ERROR(ParseMessage(body, &req));
  // The service's codes and texts (the Python SDK's parallel_scan_test and the Go SDK's
  // search_api_test, run against the service): 400 for a missing table or index.
  if (!req.has_search_index_splits_options()) {
    return Error::Validation("[search index splits options] must not be null");
  }
  if (req.table_name().empty()) return Error::Validation("The table name must be set.");
  RETURN_IF_ERROR(AuthorizeTable(s, req.table_name()));
  ops::TablePtr table = s.catalog.Find(req.table_name(), ops::Front::kTablestore);
  if (!table || !table->tablestore) {
    return Error::Validation("table [" + EchoForError(req.table_name()) + "] does not exist");
  }
  const std::string& index_name = req.search_index_splits_options().index_name();
  const model::SearchIndexMeta* index = table->tablestore->FindSearchIndex(index_name);
  if (!index) {
    return Error::Validation(std::string(kMetaNotMatchPrefix) + "search index [" +
                             EchoForError(index_name) + "] does not exist");
  }
  Target target{table, index};
  RETURN_IF_ERROR(NeedEngine(s));
  std::string session;
  ASSIGN_OR_RETURN(splits, s.search->ComputeSplits(*target.index, &session));
  pb::ComputeSplitsResponse resp;
  resp.set_session_id(session);
  resp.set_splits_size(splits);
  return Serialize(resp);
}

Result<std::string> ParallelScan(const Services& s, std::string_view body) {
  pb::ParallelScanRequest req;
  RETURN_IF_ERROR(ParseMessage(body, &req));
  ASSIGN_OR_RETURN(target, FindSearchTarget(s, req.table_name(), req.index_name()));
  ASSIGN_OR_RETURN(cols, ColumnsOf(*target.index, req.has_columns_to_get(), req.columns_to_get()));
  if (!req.has_scan_query() || !req.scan_query().has_query()) {
    return Error::Validation("The scan query must be set.");
  }
  const auto& q = req.scan_query();
  search::ScanRequest scan;
  ASSIGN_OR_RETURN(query, DecodeQuery(q.query()));
  scan.query = std::move(query);
  RETURN_IF_ERROR(search::SearchEngine::Validate(*target.index, scan.query));
  if (q.has_limit()) {
    if (q.limit() <= 0 || q.limit() > kMaxScanLimit) {
      return Error::Validation("The limit must be in range [1, " + std::to_string(kMaxScanLimit) +
                               "], but was " + std::to_string(q.limit()) + ".");
    }
    scan.limit = q.limit();
  }
  // The engine checks both against the session's splits, with the service's texts.
  scan.max_parallel = q.has_max_parallel() ? q.max_parallel() : 1;
  scan.parallel_id = q.current_parallel_id();
  if (q.has_alive_time()) scan.alive_time_s = q.alive_time();
  scan.session_id = req.session_id();
  scan.token = q.token();
  RETURN_IF_ERROR(NeedEngine(s));
  scan.now_ms = s.clock.NowMs();
  ASSIGN_OR_RETURN(result, s.search->ParallelScan(target.table->id, *target.table->tablestore,
                                                  *target.index, scan));
  pb::ParallelScanResponse resp;
  for (const auto& key : result.row_keys) {
    ASSIGN_OR_RETURN(row, RowBytes(s, *target.table, key, cols));
    if (row) resp.add_rows(std::move(*row));
  }
  if (!result.next_token.empty()) resp.set_next_token(result.next_token);
  return Serialize(resp);
}

}  // namespace ttlstore::tablestore
