// CreateTable, UpdateTable, DescribeTable, ListTable, DeleteTable (T1, T7, T9, T10, T13).
#include <algorithm>
#include <cctype>
#include <set>

#include "tablestore/handlers.h"
#include "tablestore/ots_error.h"
#include "tablestore/stream_ids.h"
#include "tablestore/tablestore.pb.h"

namespace ttlstore::tablestore {
namespace {

namespace pb = ::ttlstore::otspb;

constexpr int64_t kMaxDeviation = INT64_MAX / 1000000;

// Applies the options present in `in` to `out`, with the service's checks (T1, T7, T9).
Status ApplyOptions(const Services& s, const pb::TableOptions& in, model::VersionOptions& out) {
  if (in.has_time_to_live()) {
    int32_t ttl = in.time_to_live();
    if (ttl == 0 || ttl < -1) return Error::Validation("TimeToLive cannot be 0 or less than -1.");
    if (ttl != -1 && ttl < s.min_time_to_live) {
      return Error::Validation("TimeToLive must be -1 or at least " +
                               std::to_string(s.min_time_to_live) + " seconds.");
    }
    out.time_to_live = ttl;
  }
  if (in.has_max_versions()) {
    if (in.max_versions() <= 0) {
      return Error::Validation("The maximum versions cannot be less than or equal to 0.");
    }
    out.max_versions = in.max_versions();
  }
  if (in.has_deviation_cell_version_in_sec()) {
    int64_t d = in.deviation_cell_version_in_sec();
    if (d < 0 || d > kMaxDeviation) {
      return Error::Validation("The maximum deviation must be in range [0, INT64_MAX/1000000].");
    }
    out.max_time_deviation = d;
  }
  if (in.has_allow_update()) out.allow_update = in.allow_update();
  // update_full_row is CreateTable's only (UpdateTable refuses it before this).
  if (in.has_update_full_row()) out.update_full_row = in.update_full_row();
  return Status::Ok();
}

void FillOptions(const model::VersionOptions& o, pb::TableOptions* out) {
  out->set_time_to_live(o.time_to_live);
  out->set_max_versions(o.max_versions);
  out->set_deviation_cell_version_in_sec(o.max_time_deviation);
  out->set_allow_update(o.allow_update);
  out->set_update_full_row(o.update_full_row);
}

void FillThroughput(const model::TableDescriptor& t, pb::ReservedThroughputDetails* out) {
  out->mutable_capacity_unit()->set_read(static_cast<int32_t>(t.read_capacity));
  out->mutable_capacity_unit()->set_write(static_cast<int32_t>(t.write_capacity));
  out->set_last_increase_time(t.creation_time_ms / 1000);
}

// StreamSpecification's expiration_time, in hours: the service's range (its SDK pages for
// UpdateTable, Go and .NET: "最大值为168(7天)", at most 168, 7 days; the SDKs' tests set 168).
constexpr int32_t kMaxStreamExpirationHours = 168;

// StreamSpecification's columns_to_get (the origin columns): attribute column names, each once
// (their count is bounded by the wire check). Chosen texts (docs/tablestore.md, "Streams").
Status CheckOriginColumns(const pb::StreamSpecification& spec,
                          const std::vector<model::PrimaryKeyColumn>& primary_key) {
  if (!spec.enable_stream()) {
    return Error::Validation(
        "columns_to_get of the stream can be set only when enable_stream is true.");
  }
  std::set<std::string> seen;
  for (const auto& name : spec.columns_to_get()) {
    if (!ValidName(name)) {
      return Error::Validation("Invalid column name: '" + EchoForError(name) + "'.");
    }
    for (const auto& pk : primary_key) {
      if (pk.name == name) {
        return Error::Validation("The primary key column '" + EchoForError(name) +
                                 "' cannot be in columns_to_get of the stream.");
      }
    }
    if (!seen.insert(name).second) {
      return Error::Validation("Duplicated column name: '" + EchoForError(name) + "'.");
    }
  }
  return Status::Ok();
}

// Applies a StreamSpecification to `t` at `now_ms` (docs/tablestore.md, "Streams"). Enabling adds
// a new stream (a new id: records of an earlier one are not readable through it); enabling a
// table whose stream is enabled is refused, since the expiration time is changed by disabling
// and enabling again, as on the service. Disabling a table without an enabled stream is a no-op.
Status ApplyStreamSpec(const pb::StreamSpecification& spec, int64_t now_ms,
                       model::TableDescriptor& t) {
  if (spec.columns_to_get_size() > 0) {
    RETURN_IF_ERROR(CheckOriginColumns(spec, t.tablestore->primary_key));
  }
  // Streams disabled more than a day ago are forgotten (their records are trimmed by then).
  std::erase_if(t.streams, [&](const model::StreamInfo& st) {
    return st.disabled_ms != 0 && st.disabled_ms + 24LL * 3'600'000 < now_ms;
  });
  if (!spec.enable_stream()) {
    if (!t.streams.empty() && t.streams.back().disabled_ms == 0) {
      t.streams.back().disabled_ms = now_ms;
    }
    return Status::Ok();
  }
  if (!spec.has_expiration_time()) {
    return Error::Validation("expiration_time is required when enable_stream is true.");
  }
  int32_t hours = spec.expiration_time();
  if (hours < 1 || hours > kMaxStreamExpirationHours) {
    return Error::Validation("Invalid expiration_time: " + std::to_string(hours) +
                             ", it must be in range [1, " +
                             std::to_string(kMaxStreamExpirationHours) + "].");
  }
  if (t.enabled_stream()) return Error::Validation("The stream of the table is already enabled.");
  model::StreamInfo st;
  st.created_ms = now_ms;
  // Stream ids are unique per table: a stream enabled in the same millisecond as the last one
  // is dated 1 ms after it.
  if (!t.streams.empty() && t.streams.back().created_ms >= st.created_ms) {
    st.created_ms = t.streams.back().created_ms + 1;
  }
  st.expiration_hours = hours;
  st.origin_columns.assign(spec.columns_to_get().begin(), spec.columns_to_get().end());
  t.streams.push_back(st);
  return Status::Ok();
}

void FillStreamDetails(const model::TableDescriptor& t, pb::StreamDetails* out) {
  const model::StreamInfo* st = t.enabled_stream();
  out->set_enable_stream(st != nullptr);
  if (!st) return;
  out->set_stream_id(StreamIdText(t.name, st->created_ms));
  out->set_expiration_time(st->expiration_hours);
  out->set_last_enable_time(st->created_ms * 1000);  // microseconds, as creation_time
  for (const auto& c : st->origin_columns) out->add_columns_to_get(c);
}

}  // namespace

// Table and column names: a letter or underscore, then letters, digits, underscores; 1-255.
bool ValidName(const std::string& name) {
  if (name.empty() || name.size() > 255) return false;
  if (!std::isalpha(static_cast<unsigned char>(name[0])) && name[0] != '_') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

Status AuthorizeTable(const Services& s, const std::string& name) {
  std::string key(s.access_key_id);
  if (!s.policies || !s.policies->Restricts(key)) return Status::Ok();
  std::string resource = name == "*" ? "*"
                                     : "acs:ots:*:*:instance/" + std::string(s.instance) +
                                           "/table/" + name;
  std::string action = "ots:" + std::string(s.action);
  auth::Decision d = s.policies->Evaluate(key, {action, {resource}, std::set<std::string>{}});
  if (d.verdict == auth::Verdict::kAllow) return Status::Ok();
  return Error(ErrorCode::kAccessDenied, "You have no permission to perform " + action +
                                             " on resource " + resource + ".");
}

Result<ops::TablePtr> FindTable(const Services& s, const std::string& name) {
  // A name no table can have is refused as the service refuses it (the Java SDK's LocalTxnTest
  // asserts this text for StartLocalTransaction with an empty name).
  if (!ValidName(name)) {
    return Error::Validation("Invalid table name: '" + EchoForError(name) + "'.");
  }
  RETURN_IF_ERROR(AuthorizeTable(s, name));
  ops::TablePtr t = s.catalog.Find(name, ops::Front::kTablestore);
  if (!t) t = FindIndexTable(s, name);  // an index is read by its name, as a table
  if (!t) return Error::ResourceNotFound("Requested table does not exist.");
  return t;
}

Result<std::string> CreateTable(const Services& s, std::string_view body) {
  pb::CreateTableRequest req;
  RETURN_IF_ERROR(ParseMessage(body, &req));
  if (!req.has_table_meta()) return Error::Validation("Missing table meta.");
  const auto& meta = req.table_meta();
  RETURN_IF_ERROR(AuthorizeTable(s, meta.table_name()));
  if (!ValidName(meta.table_name())) {
    return Error::Validation("Invalid table name: '" + EchoForError(meta.table_name()) + "'.");
  }
  if (meta.primary_key_size() < 1 || size_t(meta.primary_key_size()) > kMaxPrimaryKeyColumns) {
    return Error::Validation("The number of primary key columns must be in range: [1, 4].");
  }

  model::TableDescriptor spec;
  spec.name = meta.table_name();
  auto& ts = spec.tablestore.emplace();
  size_t auto_increment = 0;
  for (const auto& pk : meta.primary_key()) {
    if (!ValidName(pk.name())) {
      return Error::Validation("Invalid column name: '" + EchoForError(pk.name()) + "'.");
    }
    for (const auto& seen : ts.primary_key) {
      if (seen.name == pk.name()) {
        return Error::Validation("Duplicated primary key name: '" + EchoForError(pk.name()) + "'.");
      }
    }
    model::PrimaryKeyColumn column{pk.name(), static_cast<model::PkType>(pk.type())};
    if (pk.has_option() && pk.option() == pb::AUTO_INCREMENT) {
      // The service's messages (docs/tablestore.md, "Auto-increment primary keys").
      if (ts.primary_key.empty()) {
        return Error::Validation("First primary key can't be auto increment, table: " +
                                 EchoForError(meta.table_name()) + ".");
      }
      if (column.type != model::PkType::kInteger) {
        return Error::Validation("AUTO_INCREMENT primary key must be integer.");
      }
      if (++auto_increment > 1) {
        return Error::Validation("AUTO_INCREMENT primary key count must <= 1.");
      }
      column.auto_increment = true;
    }
    ts.primary_key.push_back(std::move(column));
  }
  for (const auto& dc : meta.defined_column()) {
    if (!ValidName(dc.name())) {
      return Error::Validation("Invalid column name: '" + EchoForError(dc.name()) + "'.");
    }
    ts.defined_columns.push_back({dc.name(), static_cast<uint8_t>(dc.type())});
  }
  if (req.has_table_options()) RETURN_IF_ERROR(ApplyOptions(s, req.table_options(), ts.options));
  // After the key: the stream's origin columns may not name a primary-key column.
  if (req.has_stream_spec()) {
    RETURN_IF_ERROR(ApplyStreamSpec(req.stream_spec(), s.clock.NowMs(), spec));
  }
  // Local transactions unless the request says false (docs/tablestore.md, "Local transactions"),
  // never with an AUTO_INCREMENT column ("Auto-increment primary keys").
  if (req.has_enable_local_txn()) ts.local_transactions = req.enable_local_txn();
  if (auto_increment > 0) {
    if (req.has_enable_local_txn() && req.enable_local_txn()) {
      return Error::Validation("Local transactions cannot be enabled on a table with an "
                               "AUTO_INCREMENT primary key column.");
    }
    ts.local_transactions = false;
  }
  // Secondary indexes (index_handlers.cc): both places the protocol has for them.
  std::vector<const pb::IndexMeta*> metas;
  for (const auto& m : req.index_metas()) metas.push_back(&m);
  for (const auto& m : meta.index_meta()) metas.push_back(&m);
  for (const auto* m : metas) {
    if (m->name() == spec.name || s.catalog.Find(m->name(), ops::Front::kTablestore) ||
        s.catalog.Find(m->name()) || s.catalog.FindIndexOwner(m->name())) {
      return Error::ResourceInUse("Requested table already exists.");
    }
    ASSIGN_OR_RETURN(ix, NewIndex(s, ts, *m));
    ix.include_base_data = true;  // the table is empty: nothing to backfill
    ts.indexes.push_back(std::move(ix));
  }
  // The DynamoDB-side fields of the descriptor: the first key column stands for the hash key
  // (only background tasks that walk every table look at it).
  model::ValueType first = ts.primary_key[0].type == model::PkType::kInteger ? model::ValueType::kN
                           : ts.primary_key[0].type == model::PkType::kString ? model::ValueType::kS
                                                                             : model::ValueType::kB;
  spec.key.hash = {ts.primary_key[0].name, first};
  if (req.has_reserved_throughput()) {
    spec.read_capacity = req.reserved_throughput().capacity_unit().read();
    spec.write_capacity = req.reserved_throughput().capacity_unit().write();
  }
  // Indexes and tables share one namespace (docs/tablestore.md, "Secondary indexes").
  if (s.catalog.FindIndexOwner(spec.name)) return Error::ResourceInUse("index of that name");
  auto created = s.catalog.Create(std::move(spec));
  if (!created) return created.error();
  return Serialize(pb::CreateTableResponse());
}

Result<std::string> UpdateTable(const Services& s, std::string_view body) {
  pb::UpdateTableRequest req;
  RETURN_IF_ERROR(ParseMessage(body, &req));
  RETURN_IF_ERROR(AuthorizeTable(s, req.table_name()));
  if (!req.has_table_options() && !req.has_reserved_throughput() && !req.has_stream_spec()) {
    return Error::Validation("No parameter is specified in table options.");
  }
  // The service refuses update_full_row in UpdateTable, true or false (the Go SDK's
  // TestUpdateAndDescribeTable expects an error containing "contain updateFullRow"; the rest of
  // the text is Chosen).
  if (req.has_table_options() && req.table_options().has_update_full_row()) {
    return Error::Validation(
        "UpdateTable can not contain updateFullRow: it is set at CreateTable only.");
  }
  if (req.has_table_options()) {
    const auto& o = req.table_options();
    if (!o.has_time_to_live() && !o.has_max_versions() &&
        !o.has_deviation_cell_version_in_sec() && !o.has_allow_update() &&
        !req.has_reserved_throughput() && !req.has_stream_spec()) {
      return Error::Validation("No parameter is specified in table options.");
    }
  }
  auto updated = s.catalog.Update(
      req.table_name(),
      [&](model::TableDescriptor& t) -> Status {
        if (req.has_table_options()) {
          model::VersionOptions before = t.tablestore->options;
          RETURN_IF_ERROR(ApplyOptions(s, req.table_options(), t.tablestore->options));
          // T12: an indexed table keeps max versions 1, and its TTL other than -1 only with
          // allow_update false (so its TTL changes once updates are disallowed).
          if ((!t.tablestore->indexes.empty() || !t.tablestore->search_indexes.empty()) &&
              t.tablestore->options != before) {
            RETURN_IF_ERROR(
                CheckIndexedOptionsChange(*t.tablestore, before, t.tablestore->options));
          }
        }
        if (req.has_reserved_throughput()) {
          const auto& cu = req.reserved_throughput().capacity_unit();
          if (cu.has_read()) t.read_capacity = cu.read();
          if (cu.has_write()) t.write_capacity = cu.write();
        }
        if (req.has_stream_spec()) {
          RETURN_IF_ERROR(ApplyStreamSpec(req.stream_spec(), s.clock.NowMs(), t));
        }
        return Status::Ok();
      },
      ops::Front::kTablestore);
  if (!updated) return updated.error();
  pb::UpdateTableResponse resp;
  FillThroughput(**updated, resp.mutable_reserved_throughput_details());
  FillOptions((*updated)->tablestore->options, resp.mutable_table_options());
  FillStreamDetails(**updated, resp.mutable_stream_details());
  return Serialize(resp);
}

Result<std::string> DescribeTable(const Services& s, std::string_view body) {
  pb::DescribeTableRequest req;
  RETURN_IF_ERROR(ParseMessage(body, &req));
  ASSIGN_OR_RETURN(table, FindTable(s, req.table_name()));
  pb::DescribeTableResponse resp;
  auto* meta = resp.mutable_table_meta();
  meta->set_table_name(table->name);
  for (const auto& pk : table->tablestore->primary_key) {
    auto* col = meta->add_primary_key();
    col->set_name(pk.name);
    col->set_type(static_cast<pb::PrimaryKeyType>(pk.type));
    if (pk.auto_increment) col->set_option(pb::AUTO_INCREMENT);
  }
  for (const auto& dc : table->tablestore->defined_columns) {
    auto* col = meta->add_defined_column();
    col->set_name(dc.name);
    col->set_type(static_cast<pb::DefinedColumnType>(dc.type));
  }
  for (const auto& ix : table->tablestore->indexes) FillIndexMeta(ix, resp.add_index_metas());
  FillThroughput(*table, resp.mutable_reserved_throughput_details());
  FillOptions(table->tablestore->options, resp.mutable_table_options());
  resp.set_table_status(pb::ACTIVE);
  FillStreamDetails(*table, resp.mutable_stream_details());
  resp.set_creation_time(table->creation_time_ms * 1000);  // microseconds, as the service
  return Serialize(resp);
}

Result<std::string> ListTable(const Services& s, std::string_view body) {
  pb::ListTableRequest req;
  RETURN_IF_ERROR(ParseMessage(body, &req));
  RETURN_IF_ERROR(AuthorizeTable(s, "*"));
  pb::ListTableResponse resp;
  auto list = s.catalog.List(std::nullopt, SIZE_MAX, ops::Front::kTablestore);
  for (auto& name : list.names) resp.add_table_names(std::move(name));
  return Serialize(resp);
}

Result<std::string> DeleteTable(const Services& s, std::string_view body) {
  pb::DeleteTableRequest req;
  RETURN_IF_ERROR(ParseMessage(body, &req));
  RETURN_IF_ERROR(AuthorizeTable(s, req.table_name()));
  if (FindIndexTable(s, req.table_name())) {
    return Error::Validation("Table " + EchoForError(req.table_name()) +
                             " is an index: drop it with DropIndex.");
  }
  auto gone = s.catalog.Delete(req.table_name(), ops::Front::kTablestore);
  if (!gone) return gone.error();
  return Serialize(pb::DeleteTableResponse());
}

}  // namespace ttlstore::tablestore
