// The search-index control plane: CreateSearchIndex, DescribeSearchIndex, ListSearchIndex,
// DeleteSearchIndex, UpdateSearchIndex, and the rules T11/T12 that tie a search index's TTL to
// its table's options (docs/tablestore.md, "Search indexes"). The catalog holds the index's
// definition (model/search_index.h); every change is made with catalog.Update and then the
// engine is woken (search/search_engine.h), which builds, keeps and drops the documents.
#include <algorithm>
#include <set>

#include "search/search_engine.h"
#include "tablestore/handlers.h"
#include "tablestore/ots_error.h"
#include "tablestore/error_map.h"
#include "tablestore/search_query_decode.h"
#include "tablestore/search_shapes.h"

namespace ttlstore::tablestore {
namespace {

namespace pb = ::ttlstore::otssearchpb;

// The service's limit on the fields of one search index (help: "Search index limits").
constexpr int kMaxSearchFields = 1000;
// ... and on its Vector fields ("Search index limits": "Vector field | 5").
constexpr int kMaxVectorFields = 5;
constexpr std::string_view kAnalyzers[] = {"single_word", "split", "min_word", "max_word",
                                           "fuzzy"};

std::string SearchIndexName(const std::string& name) {
  return std::string(kSearchIndexMessagePrefix) + "'" + EchoForError(name) + "'";
}
Error SearchIndexNotFound(const std::string& name) {
  return Error::ResourceNotFound(SearchIndexName(name) + " does not exist.");
}

bool IsColumnOf(const model::TablestoreSchema& t, const std::string& name) {
  return std::any_of(t.primary_key.begin(), t.primary_key.end(),
                     [&](const auto& c) { return c.name == name; }) ||
         std::any_of(t.defined_columns.begin(), t.defined_columns.end(),
                     [&](const auto& c) { return c.name == name; }) ||
         ValidName(name);  // any attribute column may be indexed, predefined or not
}

// A Vector field's VectorOptions (docs/tablestore.md, "Search: vector fields and KNN"): float32
// (the only data type; absent means it), a dimension in [1, 4096], a metric. A Vector field is
// indexed, single-valued, without sort-and-agg. Texts Chosen.
Status VectorOptionsOf(const pb::FieldSchema& f, model::SearchField* out) {
  std::string name = "'" + EchoForError(f.field_name()) + "'";
  if (!f.has_vector_options()) {
    return Error::Validation("Vector field " + name + " must have vector_options.");
  }
  const pb::VectorOptions& o = f.vector_options();
  if (o.has_data_type() && o.data_type() != pb::VD_FLOAT_32) {
    return Error::Validation("The data_type of vector field " + name + " must be VD_FLOAT_32.");
  }
  if (!o.has_dimension() || o.dimension() < 1 ||
      uint32_t(o.dimension()) > model::kMaxVectorDimensions) {
    return Error::Validation("The dimension of vector field " + name + " must be in [1, " +
                             std::to_string(model::kMaxVectorDimensions) + "], but was " +
                             (o.has_dimension() ? std::to_string(o.dimension()) : "unset") +
                             ".");
  }
  if (!o.has_metric_type()) {
    return Error::Validation("The metric_type of vector field " + name + " must be set.");
  }
  out->vector_dimension = uint32_t(o.dimension());
  switch (o.metric_type()) {
    case pb::VM_EUCLIDEAN: out->vector_metric = model::VectorMetric::kEuclidean; break;
    case pb::VM_COSINE: out->vector_metric = model::VectorMetric::kCosine; break;
    case pb::VM_DOT_PRODUCT: out->vector_metric = model::VectorMetric::kDotProduct; break;
  }
  if (f.has_index() && !f.index()) {
    return Error::Validation("Vector field " + name + " must be indexed.");
  }
  if (f.has_is_array() && f.is_array()) {
    return Error::Validation("Vector field " + name + " can't be an array.");
  }
  if (f.has_doc_values() && f.doc_values()) {
    return Error::Validation("Vector field " + name + " can't enable sort and agg.");
  }
  return Status::Ok();
}

Status NestedSubFields(const model::TablestoreSchema& table, const pb::FieldSchema& f, int depth,
                       model::SearchField* out);

// `depth`: the Nested fields above (0 for a column of the table; a sub-field's name is a key of
// the sub-documents' JSON objects, named as a column).
Result<model::SearchField> FieldOf(const model::TablestoreSchema& table, const pb::FieldSchema& f,
                                   int depth = 0) {
  if (f.field_name().empty()) return Error::Validation("The field name must be set.");
  if (depth == 0 ? !IsColumnOf(table, f.field_name()) : !ValidName(f.field_name())) {
    return Error::Validation("Invalid field name: '" + EchoForError(f.field_name()) + "'.");
  }
  if (!f.has_field_type()) {
    return Error::Validation("The field type of '" + EchoForError(f.field_name()) +
                             "' must be set.");
  }
  model::SearchField out;
  out.name = f.field_name();
  switch (f.field_type()) {
    case pb::LONG: out.type = model::SearchFieldType::kLong; break;
    case pb::DOUBLE: out.type = model::SearchFieldType::kDouble; break;
    case pb::BOOLEAN: out.type = model::SearchFieldType::kBoolean; break;
    case pb::KEYWORD: out.type = model::SearchFieldType::kKeyword; break;
    case pb::TEXT: out.type = model::SearchFieldType::kText; break;
    case pb::DATE: out.type = model::SearchFieldType::kDate; break;
    case pb::GEO_POINT: out.type = model::SearchFieldType::kGeoPoint; break;
    case pb::NESTED: out.type = model::SearchFieldType::kNested; break;
    case pb::VECTOR:
      // Chosen: a Vector field is a column of the table, never a sub-field of a Nested field
      // (KnnVectorQuery ranks rows, not sub-documents).
      if (depth > 0) {
        return Error::Validation("Vector field '" + EchoForError(f.field_name()) +
                                 "' can't be a sub-field of a Nested field.");
      }
      out.type = model::SearchFieldType::kVector;
      break;
    default:
      return Error::Validation("Field type " + pb::FieldType_Name(f.field_type()) + " of '" +
                               EchoForError(f.field_name()) + "' is not supported by ttlstore.");
  }
  if (out.type == model::SearchFieldType::kNested) {
    RETURN_IF_ERROR(NestedSubFields(table, f, depth, &out));
  } else if (f.field_schemas_size() > 0) {
    return Error::Validation("Only Nested fields have sub-fields.");
  }
  if (f.is_virtual_field() || f.source_field_names_size() > 0) {
    return Error::Validation("Virtual fields are not supported by ttlstore.");
  }
  if (f.has_json_type()) {
    return Error::Validation("json_type is only for JSON fields, which ttlstore does not support.");
  }
  // Absent index and store are the service's default true. Absent doc_values (the Node SDK
  // sends it only when true; the others when the user set it) enables sorting and aggregation
  // on every type but Text (and Nested and Vector, which have none): the Python SDK's agg_test
  // and group_by_test, run against the service, aggregate and group Long, Double, Boolean,
  // Keyword-array, GeoPoint and nested fields created without it; its search_index_test reads
  // such a field back from DescribeSearchIndex without doc_values (docs/tablestore.md).
  out.index = !f.has_index() || f.index();
  out.store = !f.has_store() || f.store();
  out.sort_and_agg_defaulted = !f.has_doc_values();
  out.sort_and_agg = f.has_doc_values() ? f.doc_values()
                                        : out.type != model::SearchFieldType::kText &&
                                              out.type != model::SearchFieldType::kNested &&
                                              out.type != model::SearchFieldType::kVector;
  out.is_array = f.has_is_array() && f.is_array();
  if (out.type == model::SearchFieldType::kText) {
    if (out.sort_and_agg) {
      return Error::Validation("Text field '" + EchoForError(f.field_name()) +
                               "' can't enable sort and agg.");
    }
    out.analyzer = f.has_analyzer() && !f.analyzer().empty() ? f.analyzer() : "single_word";
    if (std::find(std::begin(kAnalyzers), std::end(kAnalyzers), out.analyzer) ==
        std::end(kAnalyzers)) {
      return Error::Validation("Invalid analyzer: '" + EchoForError(out.analyzer) + "'.");
    }
    out.analyzer_parameter = f.analyzer_parameter();
    // Highlighting (issue 32): Text fields only, as the service's "Highlight" page says.
    out.enable_highlighting = f.enable_highlighting();
  } else if (f.has_analyzer() && !f.analyzer().empty()) {
    return Error::Validation("Only Text fields have an analyzer.");
  } else if (f.enable_highlighting()) {
    return Error::Validation("Highlighting can only be enabled on Text fields, but field '" +
                             EchoForError(f.field_name()) + "' is not one.");
  }
  if (out.type == model::SearchFieldType::kVector) {
    RETURN_IF_ERROR(VectorOptionsOf(f, &out));
  } else if (f.has_vector_options()) {
    return Error::Validation("Only Vector fields have vector_options.");
  }
  if (out.type == model::SearchFieldType::kDate) {
    for (const auto& d : f.date_formats()) out.date_formats.push_back(d);
  } else if (f.date_formats_size() > 0) {
    return Error::Validation("Only Date fields have date formats.");
  }
  return out;
}

// The sub-fields of Nested field `f` (Chosen texts; the bounds are the service's, help: "Search
// index limits": five levels of nesting, 100 sub-fields).
Status NestedSubFields(const model::TablestoreSchema& table, const pb::FieldSchema& f, int depth,
                       model::SearchField* out) {
  std::string name = EchoForError(f.field_name());
  if (depth + 1 > model::kMaxNestedDepth) {
    return Error::Validation("The Nested field '" + name + "' nests too deeply: at most " +
                             std::to_string(model::kMaxNestedDepth) + " levels of Nested fields.");
  }
  if (f.field_schemas_size() == 0) {
    return Error::Validation("The Nested field '" + name + "' must have sub-fields.");
  }
  if (f.field_schemas_size() > int(model::kMaxNestedSubFields)) {
    return Error::Validation("The Nested field '" + name + "' has more than " +
                             std::to_string(model::kMaxNestedSubFields) + " sub-fields.");
  }
  if (f.is_array()) {
    return Error::Validation("The Nested field '" + name + "' can't be an array: its value is "
                             "already an array of sub-documents.");
  }
  std::set<std::string> seen;
  for (const auto& sub : f.field_schemas()) {
    ASSIGN_OR_RETURN(field, FieldOf(table, sub, depth + 1));
    if (!seen.insert(field.name).second) {
      return Error::Validation("Duplicated field name: '" + name + "." + EchoForError(field.name) +
                               "'.");
    }
    out->sub_fields.push_back(std::move(field));
  }
  return Status::Ok();
}

// The index's TTL against its table's options (T11, T12). `ttl` is -1 or seconds.
Status CheckSearchIndexTtl(const Services& s, const model::VersionOptions& table, int32_t ttl,
                           const std::string& name) {
  if (ttl == 0 || ttl < -1) {
    return Error::Validation("TimeToLive cannot be 0 or less than -1.");
  }
  if (ttl != -1 && ttl < s.min_time_to_live) {
    return Error::Validation("TimeToLive must be -1 or at least " +
                             std::to_string(s.min_time_to_live) + " seconds.");
  }
  // With update_full_row an UpdateRow restamps the whole row, so the row ages out as one, as a
  // search index's TTL assumes (the service's TableOptions page: to use that TTL with updates,
  // set update_full_row and keep allow_update true).
  if (ttl != -1 && table.allow_update && !table.update_full_row) {
    return Error::Validation(
        "The time to live of a search index can be set only when the table's allow_update is "
        "false or its update_full_row is true.");
  }
  if (table.time_to_live != -1 && (ttl == -1 || ttl > table.time_to_live)) {
    return Error::Validation("[table ttl] must be bigger than or equal search index ttl, but "
                             "table ttl is " + std::to_string(table.time_to_live) +
                             " and search index ttl is [" + name + ":" + std::to_string(ttl) +
                             "]");
  }
  return Status::Ok();
}

void FillSort(const std::vector<model::SearchSortKey>& keys, pb::Sort* out) {
  for (const auto& k : keys) {
    auto* sorter = out->add_sorter();
    auto order = k.descending ? pb::SORT_ORDER_DESC : pb::SORT_ORDER_ASC;
    if (k.kind == model::SearchSortKey::Kind::kField) {
      sorter->mutable_field_sort()->set_field_name(k.field);
      sorter->mutable_field_sort()->set_order(order);
    } else if (k.kind == model::SearchSortKey::Kind::kPrimaryKey) {
      sorter->mutable_pk_sort()->set_order(order);
    } else {
      sorter->mutable_score_sort()->set_order(order);
    }
  }
}

void FillField(const model::SearchField& f, pb::FieldSchema* fs) {
  fs->set_field_name(f.name);
  fs->set_field_type(static_cast<pb::FieldType>(f.type));
  fs->set_index(f.index);
  if (!f.sort_and_agg_defaulted) fs->set_doc_values(f.sort_and_agg);
  fs->set_store(f.store);
  fs->set_is_array(f.is_array);
  if (f.type == model::SearchFieldType::kText) {
    fs->set_analyzer(f.analyzer);
    // The SDK decodes the parameter of these analyzers: always present, maybe empty.
    fs->set_analyzer_parameter(f.analyzer_parameter);
    fs->set_enable_highlighting(f.enable_highlighting);
  }
  for (const auto& d : f.date_formats) fs->add_date_formats(d);
  if (f.type == model::SearchFieldType::kVector) {
    auto* vo = fs->mutable_vector_options();
    vo->set_data_type(pb::VD_FLOAT_32);
    vo->set_dimension(int32_t(f.vector_dimension));
    vo->set_metric_type(static_cast<pb::VectorMetricType>(f.vector_metric));
  }
  for (const auto& sub : f.sub_fields) FillField(sub, fs->add_field_schemas());
}

bool HasNested(const model::SearchIndexMeta& ix) {
  return std::any_of(ix.fields.begin(), ix.fields.end(), [](const auto& f) {
    return f.type == model::SearchFieldType::kNested;
  });
}

void FillSchema(const model::SearchIndexMeta& ix, pb::IndexSchema* out) {
  for (const auto& f : ix.fields) FillField(f, out->add_field_schemas());
  auto* setting = out->mutable_index_setting();
  setting->set_number_of_shards(1);
  for (const auto& r : ix.routing_fields) setting->add_routing_fields(r);
  // An index created without a presort is sorted by primary key ascending, and the service
  // shows that sort (the Python SDK's search_index_test expects one PrimaryKeySort), except an
  // index with a Nested field, which has no presort (the same test expects no sorter; the
  // service's "Sorting": "含有Nested类型的索引不支持IndexSort,没有预排序").
  if (HasNested(ix)) {
    out->mutable_index_sort();
  } else if (ix.index_sort.empty()) {
    FillSort({{model::SearchSortKey::Kind::kPrimaryKey, "", false}}, out->mutable_index_sort());
  } else {
    FillSort(ix.index_sort, out->mutable_index_sort());
  }
}

// IndexSetting.routing_fields: primary-key columns of the table, each once (the service's
// "How do I use routing fields": "Only primary key columns can be specified as routing
// fields"). Texts Chosen.
Result<std::vector<std::string>> RoutingFieldsOf(const model::TablestoreSchema& table,
                                                 const pb::IndexSetting& setting) {
  if (setting.enable_custom_column_version()) {
    return Error::Validation("enable_custom_column_version is not supported by ttlstore.");
  }
  if (setting.has_routing_partition_size() && setting.routing_partition_size() != 1) {
    return Error::Validation("routing_partition_size must be 1 (ttlstore keeps one partition), "
                             "but was " + std::to_string(setting.routing_partition_size()) + ".");
  }
  std::vector<std::string> out;
  for (const auto& r : setting.routing_fields()) {
    bool pk = std::any_of(table.primary_key.begin(), table.primary_key.end(),
                          [&](const auto& c) { return c.name == r; });
    if (!pk) {
      return Error::Validation("Routing field '" + EchoForError(r) +
                               "' is not a primary key column of the table.");
    }
    if (std::find(out.begin(), out.end(), r) != out.end()) {
      return Error::Validation("Duplicated routing field: '" + EchoForError(r) + "'.");
    }
    out.push_back(r);
  }
  return out;
}

Result<ops::TablePtr> FindBaseTable(const Services& s, const std::string& name) {
  ASSIGN_OR_RETURN(table, FindTable(s, name));
  if (!table->tablestore->index_of.empty()) {
    return Error::Validation("Table " + EchoForError(name) +
                             " is a secondary index: search indexes are made on tables.");
  }
  return table;
}

}  // namespace

Status CheckIndexedOptionsChange(const model::TablestoreSchema& table,
                                 const model::VersionOptions& before,
                                 const model::VersionOptions& after) {
  // Max versions stays 1 (CheckIndexedOptions): any change of it is refused with that text.
  if (after.time_to_live != before.time_to_live && after.allow_update) {
    // T12: the table's TTL changes only once updates are disallowed.
    return Error::Validation("Don't support allow update operation on table with index and ttl");
  }
  RETURN_IF_ERROR(CheckIndexedOptions(after));
  if (after.time_to_live != -1) {
    for (const auto& ix : table.search_indexes) {
      if (ix.time_to_live == -1 || ix.time_to_live > after.time_to_live) {
        return Error::Validation("[table ttl] must be bigger than or equal search index ttl, "
                                 "but table ttl is " + std::to_string(after.time_to_live) +
                                 " and search index ttl is [" + ix.name + ":" +
                                 std::to_string(ix.time_to_live) + "]");
      }
    }
  }
  return Status::Ok();
}

Result<std::string> CreateSearchIndex(const Services& s, std::string_view body) {
  pb::CreateSearchIndexRequest req;
  RETURN_IF_ERROR(ParseMessage(body, &req));
  if (req.table_name().empty()) return Error::Validation("The table name must be set.");
  RETURN_IF_ERROR(AuthorizeTable(s, req.table_name()));
  if (!ValidName(req.index_name())) {
    return Error::Validation("Invalid index name: '" + EchoForError(req.index_name()) + "'.");
  }
  if (req.has_source_index_name()) {
    return Error::Validation("source_index_name (index copies) is not supported by ttlstore.");
  }
  if (!req.has_schema() || req.schema().field_schemas_size() == 0) {
    return Error::Validation("The schema of the search index must have at least one field.");
  }
  const auto& schema = req.schema();
  if (schema.field_schemas_size() > kMaxSearchFields) {
    return Error::Validation("The number of fields of a search index cannot exceed " +
                             std::to_string(kMaxSearchFields) + ".");
  }
  int vector_fields = 0;
  for (const auto& f : schema.field_schemas()) vector_fields += f.field_type() == pb::VECTOR;
  if (vector_fields > kMaxVectorFields) {
    return Error::Validation("The number of vector fields of a search index cannot exceed " +
                             std::to_string(kMaxVectorFields) + ".");
  }
  std::vector<model::SearchSortKey> index_sort;
  if (schema.has_index_sort()) {
    if (schema.index_sort().disable_default_pk_sorter()) {
      return Error::Validation("The index sort can't disable the default primary key sorter.");
    }
    ASSIGN_OR_RETURN(sort, DecodeSort(schema.index_sort()));
    for (auto& k : sort) {
      if (k.key.kind == model::SearchSortKey::Kind::kScore) {
        return Error::Validation("The index sort can't sort by score.");
      }
      if (k.missing_value || !k.missing_field.empty() ||
          k.missing != search::SortKey::Missing::kLast) {
        return Error::Validation("The index sort can't set missing_value or missing_field.");
      }
      if (k.geo || !k.nested_path.empty()) {
        return Error::Validation("The index sort can't be a GeoDistanceSort or sort by a Nested "
                                 "field.");
      }
      index_sort.push_back(std::move(k.key));
    }
  }
  int32_t ttl = req.has_time_to_live() ? req.time_to_live() : -1;
  ASSIGN_OR_RETURN(id, s.catalog.AllocateId());
  auto updated = s.catalog.Update(
      req.table_name(),
      [&](model::TableDescriptor& t) -> Status {
        auto& ts = *t.tablestore;
        if (!ts.index_of.empty()) {
          return Error::Validation("Search indexes are made on tables, not on indexes.");
        }
        if (ts.FindSearchIndex(req.index_name())) {
          return Error::ResourceInUse(SearchIndexName(req.index_name()) + " already exists.");
        }
        model::SearchIndexMeta ix;
        ix.name = req.index_name();
        std::set<std::string> seen;
        for (const auto& f : schema.field_schemas()) {
          ASSIGN_OR_RETURN(field, FieldOf(ts, f));
          if (!seen.insert(field.name).second) {
            return Error::Validation("Duplicated field name: '" + EchoForError(field.name) +
                                     "'.");
          }
          ix.fields.push_back(std::move(field));
        }
        if (!index_sort.empty() && HasNested(ix)) {
          // The service's "Sorting": an index with Nested fields has no IndexSort.
          return Error::Validation("A search index with a Nested field can't have an index "
                                   "sort.");
        }
        for (const auto& k : index_sort) {
          if (k.kind != model::SearchSortKey::Kind::kField) continue;
          const model::SearchField* f = ix.FindField(k.field);
          if (!f || !f->sort_and_agg || f->type == model::SearchFieldType::kGeoPoint) {
            return Error::Validation("The index sort field '" + EchoForError(k.field) +
                                     "' must be a field of the index with sort and agg "
                                     "enabled.");
          }
        }
        ix.index_sort = index_sort;
        if (schema.has_index_setting()) {
          ASSIGN_OR_RETURN(routing, RoutingFieldsOf(ts, schema.index_setting()));
          ix.routing_fields = std::move(routing);
        }
        ix.analysis = model::kAnalysisCurrent;
        RETURN_IF_ERROR(CheckIndexedOptions(ts.options));
        RETURN_IF_ERROR(CheckSearchIndexTtl(s, ts.options, ttl, ix.name));
        ix.time_to_live = ttl;
        ix.id = id;
        ix.create_time_us = s.clock.NowMs() * 1000;
        ix.building = true;
        ts.search_indexes.push_back(std::move(ix));
        return Status::Ok();
      },
      ops::Front::kTablestore);
  if (!updated) return updated.error();
  if (s.search) s.search->Wake();
  return Serialize(pb::CreateSearchIndexResponse());
}

Result<std::string> UpdateSearchIndex(const Services& s, std::string_view body) {
  pb::UpdateSearchIndexRequest req;
  RETURN_IF_ERROR(ParseMessage(body, &req));
  RETURN_IF_ERROR(AuthorizeTable(s, req.table_name()));
  // Schema changes (the service's reindex with source_index_name, then switch_index_name and
  // query flow weights; added_field_schemas) are not served: refused, never ignored.
  if (req.has_switch_index_name() || req.query_flow_weight_size() > 0 ||
      req.added_field_schemas_size() > 0) {
    return Error::Validation("Changing the schema of a search index (switch_index_name, "
                             "query_flow_weight, added_field_schemas) is not supported by "
                             "ttlstore: create a new index.");
  }
  if (!req.has_time_to_live()) {
    return Error::Validation("No parameter is specified in the search index options.");
  }
  ASSIGN_OR_RETURN(table, FindBaseTable(s, req.table_name()));
  (void)table;
  auto updated = s.catalog.Update(
      req.table_name(),
      [&](model::TableDescriptor& t) -> Status {
        auto& ts = *t.tablestore;
        auto it = std::find_if(ts.search_indexes.begin(), ts.search_indexes.end(),
                               [&](const auto& ix) { return ix.name == req.index_name(); });
        if (it == ts.search_indexes.end()) return SearchIndexNotFound(req.index_name());
        RETURN_IF_ERROR(CheckSearchIndexTtl(s, ts.options, req.time_to_live(), it->name));
        it->time_to_live = req.time_to_live();
        return Status::Ok();
      },
      ops::Front::kTablestore);
  if (!updated) return updated.error();
  if (s.search) s.search->Wake();
  return Serialize(pb::UpdateSearchIndexResponse());
}

Result<std::string> DeleteSearchIndex(const Services& s, std::string_view body) {
  pb::DeleteSearchIndexRequest req;
  RETURN_IF_ERROR(ParseMessage(body, &req));
  RETURN_IF_ERROR(AuthorizeTable(s, req.table_name()));
  ASSIGN_OR_RETURN(table, FindBaseTable(s, req.table_name()));
  (void)table;
  auto updated = s.catalog.Update(
      req.table_name(),
      [&](model::TableDescriptor& t) -> Status {
        auto& v = t.tablestore->search_indexes;
        auto it = std::find_if(v.begin(), v.end(),
                               [&](const auto& ix) { return ix.name == req.index_name(); });
        if (it == v.end()) return SearchIndexNotFound(req.index_name());
        v.erase(it);
        return Status::Ok();
      },
      ops::Front::kTablestore);
  if (!updated) return updated.error();
  // The engine removes the documents of indexes no table names any more.
  if (s.search) s.search->Wake();
  return Serialize(pb::DeleteSearchIndexResponse());
}

Result<std::string> DescribeSearchIndex(const Services& s, std::string_view body) {
  pb::DescribeSearchIndexRequest req;
  RETURN_IF_ERROR(ParseMessage(body, &req));
  ASSIGN_OR_RETURN(table, FindBaseTable(s, req.table_name()));
  const model::SearchIndexMeta* ix = table->tablestore->FindSearchIndex(req.index_name());
  if (!ix) return SearchIndexNotFound(req.index_name());
  pb::DescribeSearchIndexResponse resp;
  FillSchema(*ix, resp.mutable_schema());
  search::IndexStats stats;
  stats.full_sync = ix->building;
  if (s.search) stats = s.search->Stats(*ix);
  // include_sync_stat false leaves the sync stat out (the service's default is true).
  if (!req.has_include_sync_stat() || req.include_sync_stat()) {
    auto* sync = resp.mutable_sync_stat();
    sync->set_sync_phase(stats.full_sync ? pb::FULL : pb::INCR);
    // Nanoseconds (the service's SyncStat page; the Python SDK's tests divide by 10^9).
    sync->set_current_sync_timestamp(stats.current_sync_timestamp_ms * 1'000'000);
  }
  auto* meter = resp.mutable_metering_info();
  meter->set_storage_size(stats.storage_size);
  meter->set_row_count(stats.row_count);
  meter->set_reserved_read_cu(0);
  meter->set_timestamp(s.clock.NowMs() / 1000);
  // Milliseconds (the service's DescribeSearchIndex reference: "a 64-bit timestamp in
  // milliseconds").
  resp.set_create_time(ix->create_time_us / 1000);
  resp.set_time_to_live(ix->time_to_live);
  resp.mutable_index_status()->set_status(pb::RUNNING);
  resp.mutable_index_status()->set_status_description("");
  return Serialize(resp);
}

Result<std::string> ListSearchIndex(const Services& s, std::string_view body) {
  pb::ListSearchIndexRequest req;
  RETURN_IF_ERROR(ParseMessage(body, &req));
  pb::ListSearchIndexResponse resp;
  auto add = [&](const model::TableDescriptor& t) {
    for (const auto& ix : t.tablestore->search_indexes) {
      auto* info = resp.add_indices();
      info->set_table_name(t.name);
      info->set_index_name(ix.name);
    }
  };
  if (req.has_table_name() && !req.table_name().empty()) {
    ASSIGN_OR_RETURN(table, FindBaseTable(s, req.table_name()));
    add(*table);
  } else {
    RETURN_IF_ERROR(AuthorizeTable(s, "*"));
    auto list = s.catalog.List(std::nullopt, SIZE_MAX, ops::Front::kTablestore);
    for (const auto& name : list.names) {
      ops::TablePtr t = s.catalog.Find(name, ops::Front::kTablestore);
      if (t && t->tablestore) add(*t);
    }
  }
  return Serialize(resp);
}

}  // namespace ttlstore::tablestore
