// CreateIndex, DropIndex and what the other handlers need of secondary indexes: the checks of an
// IndexMeta, T12's option rules, the read-only view of an index by name, the refusal of writes
// to it (docs/tablestore.md, "Secondary indexes").
#include <algorithm>

#include "tablestore/handlers.h"
#include "tablestore/ots_error.h"
#include "tablestore/tablestore.pb.h"
#include "versions/index_rows.h"

namespace ttlstore::tablestore {
namespace {

namespace pb = ::ttlstore::otspb;

// The service's limits on secondary indexes (help doc-detail 189566, "Limits on index tables").
constexpr size_t kMaxIndexesPerTable = 5;
constexpr size_t kMaxIndexColumns = 4;
constexpr size_t kMaxIndexAttributeColumns = 32;

bool IsPk(const model::TablestoreSchema& t, const std::string& name) {
  return std::any_of(t.primary_key.begin(), t.primary_key.end(),
                     [&](const auto& c) { return c.name == name; });
}

const model::DefinedColumn* Defined(const model::TablestoreSchema& t, const std::string& name) {
  for (const auto& c : t.defined_columns) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

}  // namespace

Status CheckIndexedOptions(const model::VersionOptions& options) {
  if (options.max_versions != 1) {
    return Error::Validation("The max versions of a table with indexes must be 1.");
  }
  // The service's text (help: "Don't support allow update operation on table with index and
  // ttl" error when creating a secondary index).
  if (options.time_to_live != -1 && options.allow_update) {
    return Error::Validation("Don't support allow update operation on table with index and ttl");
  }
  return Status::Ok();
}

Error IndexWriteRefused(const std::string& index_name) {
  return Error::Validation("Index table " + EchoForError(index_name) +
                           " is read-only: write to its main table instead.");
}

Result<model::TsIndex> NewIndex(const Services& s, const model::TablestoreSchema& schema,
                                const pb::IndexMeta& meta) {
  if (!ValidName(meta.name())) {
    return Error::Validation("Invalid index name: '" + EchoForError(meta.name()) + "'.");
  }
  if (schema.indexes.size() >= kMaxIndexesPerTable) {
    return Error::Validation("Number of index per table exceeds the quota:5.");
  }
  for (const auto& ix : schema.indexes) {
    if (ix.name == meta.name()) return Error::ResourceInUse("index exists");
  }
  if (meta.primary_key_size() < 1 || size_t(meta.primary_key_size()) > kMaxIndexColumns) {
    return Error::Validation("The number of primary key columns must be in range: [1, 4] in index.");
  }
  if (size_t(meta.defined_column_size()) > kMaxIndexAttributeColumns) {
    return Error::Validation("The number of attribute columns must be in range: [0, 32] in index.");
  }
  if (meta.has_index_type() && meta.index_type() != 0 && meta.index_type() != 1) {
    return Error::Validation("Invalid index type: " + std::to_string(meta.index_type()) + ".");
  }
  if (meta.has_index_update_mode() && meta.index_update_mode() != 0 &&
      meta.index_update_mode() != 1) {
    return Error::Validation("Invalid index update mode: " +
                             std::to_string(meta.index_update_mode()) + ".");
  }
  model::TsIndex ix;
  ix.name = meta.name();
  ix.local = meta.index_type() == 1;
  for (const auto& col : meta.primary_key()) {
    if (std::find(ix.primary_key.begin(), ix.primary_key.end(), col) != ix.primary_key.end()) {
      return Error::Validation("Duplicated index column: '" + EchoForError(col) + "'.");
    }
    if (!IsPk(schema, col)) {
      const model::DefinedColumn* dc = Defined(schema, col);
      if (!dc) {
        return Error::Validation("Index column '" + EchoForError(col) +
                                 "' is neither a primary key column nor a predefined column.");
      }
      if (!versions::IndexKeyType(dc->type)) {
        return Error::Validation("Index column '" + EchoForError(col) +
                                 "' must be of type STRING, INTEGER or BINARY.");
      }
    }
    ix.primary_key.push_back(col);
  }
  if (ix.local && ix.primary_key.front() != schema.primary_key.front().name) {
    return Error::Validation(
        "The first primary key column of a local index must be the first primary key column "
        "of the table.");
  }
  for (const auto& col : meta.defined_column()) {
    if (!Defined(schema, col)) {
      return Error::Validation("Index attribute column '" + EchoForError(col) +
                               "' is not a predefined column.");
    }
    if (std::find(ix.defined_columns.begin(), ix.defined_columns.end(), col) !=
            ix.defined_columns.end() ||
        std::find(ix.primary_key.begin(), ix.primary_key.end(), col) != ix.primary_key.end()) {
      return Error::Validation("Duplicated index column: '" + EchoForError(col) + "'.");
    }
    ix.defined_columns.push_back(col);
  }
  RETURN_IF_ERROR(CheckIndexedOptions(schema.options));
  ASSIGN_OR_RETURN(id, s.catalog.AllocateId());
  ix.rows_id = id;
  return ix;
}

void FillIndexMeta(const model::TsIndex& ix, pb::IndexMeta* out) {
  out->set_name(ix.name);
  for (const auto& c : ix.primary_key) out->add_primary_key(c);
  for (const auto& c : ix.defined_columns) out->add_defined_column(c);
  // Global indexes are asynchronous on the service; here every index is kept in the write's
  // own batch, but the mode reported is the service's for the type (docs/tablestore.md).
  out->set_index_update_mode(ix.local ? 1 : 0);
  out->set_index_type(ix.local ? 1 : 0);
  out->set_index_sync_phase(ix.building ? 1 : 2);
}

ops::TablePtr FindIndexTable(const Services& s, const std::string& name) {
  ops::TablePtr owner = s.catalog.FindIndexOwner(name);
  if (!owner) return nullptr;
  const model::TsIndex* ix = owner->tablestore->FindIndex(name);
  auto view = std::make_shared<model::TableDescriptor>();
  view->id = ix->rows_id;
  view->name = ix->name;
  view->uuid = owner->uuid;
  view->key = owner->key;
  view->creation_time_ms = owner->creation_time_ms;
  view->tablestore = versions::IndexSchema(*owner->tablestore, *ix);
  view->tablestore->index_of = owner->name;
  return view;
}

Result<std::string> CreateIndex(const Services& s, std::string_view body) {
  pb::CreateIndexRequest req;
  RETURN_IF_ERROR(ParseMessage(body, &req));
  RETURN_IF_ERROR(AuthorizeTable(s, req.main_table_name()));
  if (!req.has_index_meta()) return Error::Validation("Missing index meta.");
  const std::string& name = req.index_meta().name();
  // Index names share the instance's table namespace (doc-detail 91947: "index names must be
  // unique within an instance").
  if (s.catalog.Find(name, ops::Front::kTablestore) || s.catalog.Find(name) ||
      s.catalog.FindIndexOwner(name)) {
    return Error::ResourceInUse("Requested table already exists.");
  }
  auto updated = s.catalog.Update(
      req.main_table_name(),
      [&](model::TableDescriptor& t) -> Status {
        auto& ts = *t.tablestore;
        if (!ts.index_of.empty()) return Error::Validation("Cannot create an index on an index.");
        ASSIGN_OR_RETURN(ix, NewIndex(s, ts, req.index_meta()));
        ix.include_base_data = req.include_base_data();
        ix.building = req.include_base_data();
        ts.indexes.push_back(std::move(ix));
        return Status::Ok();
      },
      ops::Front::kTablestore);
  if (!updated) return updated.error();
  if (s.index_backfill) s.index_backfill->Wake();
  return Serialize(pb::CreateIndexResponse());
}

Result<std::string> DropIndex(const Services& s, std::string_view body) {
  pb::DropIndexRequest req;
  RETURN_IF_ERROR(ParseMessage(body, &req));
  RETURN_IF_ERROR(AuthorizeTable(s, req.main_table_name()));
  auto updated = s.catalog.Update(
      req.main_table_name(),
      [&](model::TableDescriptor& t) -> Status {
        auto& ts = *t.tablestore;
        auto it = std::find_if(ts.indexes.begin(), ts.indexes.end(),
                               [&](const auto& ix) { return ix.name == req.index_name(); });
        if (it == ts.indexes.end()) {
          return Error::ResourceNotFound("Requested table does not exist.");
        }
        ts.dropped_index_rows.push_back(it->rows_id);
        ts.indexes.erase(it);
        return Status::Ok();
      },
      ops::Front::kTablestore);
  if (!updated) return updated.error();
  if (s.index_backfill) s.index_backfill->Wake();
  return Serialize(pb::DropIndexResponse());
}

}  // namespace ttlstore::tablestore
