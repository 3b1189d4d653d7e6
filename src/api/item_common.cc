#include "api/item_common.h"

#include <algorithm>

#include "api/legacy.h"
#include "index/index_key.h"

namespace ttlstore::api {

std::string RepeatedTransactionResponse(const std::vector<ops::TransactAction>& actions,
                                        const std::vector<size_t>& sizes,
                                        const std::optional<std::string>& capacity,
                                        bool statements) {
  std::map<std::string, double> units;
  for (size_t i = 0; i < actions.size(); ++i) {
    units[actions[i].table->name] +=
        ops::ReadCapacityUnits(i < sizes.size() ? sizes[i] : 0, /*consistent_read=*/true);
  }
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  if (statements) {  // as the first answer of a transaction of writes: no response per statement
    w.Key("Responses");
    w.StartArray();
    w.EndArray();
  }
  WriteCapacityList(w, capacity, units);
  w.EndObject();
  return Finish(buf);
}

std::string Finish(const rapidjson::StringBuffer& buf) { return {buf.GetString(), buf.GetSize()}; }

Result<ItemRequest> ParseHead(const rapidjson::Value& req, const char* item_field,
                              const char* item_path, Constraints& c) {
  ItemRequest r;
  ASSIGN_OR_RETURN(name, OptString(req, "TableName"));
  ASSIGN_OR_RETURN(capacity, OptString(req, "ReturnConsumedCapacity"));
  if (item_field) {
    ASSIGN_OR_RETURN(item, OptObject(req, item_field));
    c.NotNull(item_path, item != nullptr);
  }
  c.NotNull("tableName", name.has_value());
  c.TableName("tableName", name, 1);
  c.Enum("returnConsumedCapacity", capacity, {"INDEXES", "TOTAL", "NONE"});
  if (!c.ok()) return c.ToError();
  r.table_name = std::move(*name);
  r.return_capacity = capacity;
  return r;
}

Status Resolve(const Services& s, ItemRequest& r) {
  ASSIGN_OR_RETURN(table, s.catalog.Get(r.table_name));
  r.table = std::move(table);
  return Status::Ok();
}

Status CheckNoMixing(const rapidjson::Value& req, std::initializer_list<const char*> legacy,
                     std::initializer_list<const char*> modern) {
  std::string old_names, new_names;
  for (const char* f : legacy) {
    if (Field(req, f)) old_names += (old_names.empty() ? "" : ", ") + std::string(f);
  }
  for (const char* f : modern) {
    if (Field(req, f)) new_names += (new_names.empty() ? "" : ", ") + std::string(f);
  }
  if (old_names.empty() || new_names.empty()) return Status::Ok();
  return Error::Validation(
      "Can not use both expression and non-expression parameters in the same request: "
      "Non-expression parameters: {" +
      old_names + "} Expression parameters: {" + new_names + "}");
}

Result<std::optional<expr::Condition>> ParseCondition(const rapidjson::Value& req,
                                                      const char* field, expr::Placeholders& ph) {
  ASSIGN_OR_RETURN(text, OptString(req, field));
  if (!text) return std::optional<expr::Condition>();
  ASSIGN_OR_RETURN(condition, expr::Condition::Parse(*text, field, ph));
  return std::optional<expr::Condition>(std::move(condition));
}

Result<std::optional<expr::Projection>> ParseProjection(const rapidjson::Value& req,
                                                        expr::Placeholders& ph) {
  ASSIGN_OR_RETURN(text, OptString(req, "ProjectionExpression"));
  if (text) {
    ASSIGN_OR_RETURN(p, expr::Projection::Parse(*text, ph.names, &ph.used_names));
    return std::optional<expr::Projection>(std::move(p));
  }
  ASSIGN_OR_RETURN(legacy, LegacyProjection(req));
  return legacy;
}

void WriteProjected(JsonWriter& w, const model::Item& item,
                    const std::optional<expr::Projection>& projection) {
  // Not `projection ? projection->Apply(item) : item`: that conditional is a prvalue, so it
  // copied every item written without a projection (7% of a 10-item Query's instructions).
  if (projection) {
    WriteItem(w, projection->Apply(item));
  } else {
    WriteItem(w, item);
  }
}

namespace {

// One "ConsumedCapacity" object: the table's units plus every index's in CapacityUnits, and
// under INDEXES the breakdown (Table, GlobalSecondaryIndexes / LocalSecondaryIndexes by name,
// and VectorIndexes by name with VectorWriteRequestBytes: the developer guide's "Monitoring
// vector index capacity" reports these for writes under INDEXES only, outside CapacityUnits).
void WriteCapacityEntry(JsonWriter& w, const std::string& mode, const std::string& table_name,
                        double table_units, const std::vector<ops::IndexCapacity>& indexes) {
  double total = table_units;
  for (const auto& ix : indexes) total += ix.units;
  w.StartObject();
  w.Key("TableName");
  WriteString(w, table_name);
  w.Key("CapacityUnits");
  w.Double(total);
  if (mode == "INDEXES") {
    w.Key("Table");
    w.StartObject();
    w.Key("CapacityUnits");
    w.Double(table_units);
    w.EndObject();
    // One member per kind of index, {name: {field: value}} for each index of that kind.
    auto group = [&](const char* member, const char* field, auto in_group, auto value) {
      bool any = false;
      for (const auto& ix : indexes) {
        if (!in_group(ix)) continue;
        if (!any) {
          w.Key(member);
          w.StartObject();
          any = true;
        }
        w.Key(ix.name.c_str(), static_cast<rapidjson::SizeType>(ix.name.size()));
        w.StartObject();
        w.Key(field);
        w.Double(value(ix));
        w.EndObject();
      }
      if (any) w.EndObject();
    };
    auto units = [](const ops::IndexCapacity& ix) { return ix.units; };
    group(
        "LocalSecondaryIndexes", "CapacityUnits",
        [](const ops::IndexCapacity& ix) { return !ix.vector && !ix.global; }, units);
    group(
        "GlobalSecondaryIndexes", "CapacityUnits",
        [](const ops::IndexCapacity& ix) { return !ix.vector && ix.global; }, units);
    group(
        "VectorIndexes", "VectorWriteRequestBytes",
        [](const ops::IndexCapacity& ix) { return ix.vector; },
        [](const ops::IndexCapacity& ix) { return ix.vector_bytes; });
  }
  w.EndObject();
}

}  // namespace

void WriteCapacity(JsonWriter& w, const ItemRequest& r, double table_units,
                   const std::vector<ops::IndexCapacity>& indexes) {
  if (!r.return_capacity || *r.return_capacity == "NONE") return;
  w.Key("ConsumedCapacity");
  WriteCapacityEntry(w, *r.return_capacity, r.table->name, table_units, indexes);
}

void WriteIndexReadCapacity(JsonWriter& w, const ItemRequest& r, const model::SecondaryIndex& ix,
                            size_t bytes_read, size_t base_bytes_read, bool consistent) {
  if (!r.return_capacity || *r.return_capacity == "NONE") return;
  double index_units = ops::ReadCapacityUnits(bytes_read - base_bytes_read, consistent);
  double table_units = base_bytes_read ? ops::ReadCapacityUnits(base_bytes_read, consistent) : 0.0;
  WriteCapacity(w, r, table_units, {{ix.name, ix.global, index_units}});
}

bool ValidIndexPosition(const model::TableDescriptor& table, const model::SecondaryIndex& ix,
                        const model::Item& key) {
  model::Item table_key;
  for (const auto& [name, value] : key) {
    if (name == table.key.hash.name || (table.key.range && name == table.key.range->name)) {
      table_key.emplace(name, value);
    }
  }
  return ops::ValidateKey(table, table_key).ok() && index::IndexKeyOf(ix, key) &&
         index::EntryKeyAttributes(table, ix, key).size() == key.size();
}

void WriteItemWriteCapacity(JsonWriter& w, const ItemRequest& r, double table_units,
                            const model::Item* old_item, const model::Item* new_item) {
  if (!r.return_capacity || *r.return_capacity == "NONE") return;
  WriteCapacity(w, r, table_units, ops::IndexWriteCapacity(*r.table, old_item, new_item));
}

void WriteCapacityList(JsonWriter& w, const std::optional<std::string>& mode,
                       const std::map<std::string, double>& units) {
  std::map<std::string, TableCapacity> tables;
  for (const auto& [table, u] : units) tables[table].table = u;
  WriteCapacityList(w, mode, tables);
}

void TableCapacity::AddIndexes(const std::vector<ops::IndexCapacity>& more) {
  for (const auto& ix : more) {
    auto it = std::find_if(indexes.begin(), indexes.end(),
                           [&](const ops::IndexCapacity& c) { return c.name == ix.name; });
    if (it == indexes.end()) {
      indexes.push_back(ix);
    } else {
      it->units += ix.units;
      it->vector_bytes += ix.vector_bytes;
    }
  }
}

void WriteCapacityList(JsonWriter& w, const std::optional<std::string>& mode,
                       const std::map<std::string, TableCapacity>& units) {
  if (!mode || *mode == "NONE" || units.empty()) return;
  w.Key("ConsumedCapacity");
  w.StartArray();
  for (const auto& [table, u] : units) WriteCapacityEntry(w, *mode, table, u.table, u.indexes);
  w.EndArray();
}

model::Item AtPaths(const model::Item& item, const std::vector<expr::Path>& paths) {
  std::map<std::string, std::string> names;
  std::string text;
  for (const auto& path : paths) {
    std::string p;
    for (const auto& e : path) {
      if (e.is_index()) {
        p += "[" + std::to_string(e.index) + "]";
      } else {
        std::string token = "#p" + std::to_string(names.size());
        names.emplace(token, e.name);
        p += (p.empty() ? "" : ".") + token;
      }
    }
    text += (text.empty() ? "" : ", ") + p;
  }
  std::set<std::string> used;
  auto projection = expr::Projection::Parse(text, names, &used);
  return projection ? projection->Apply(item) : model::Item();
}

Error ConditionFailed(const std::optional<model::Item>& old_item, bool return_old) {
  Error e(ErrorCode::kConditionalCheckFailed, "The conditional request failed");
  if (!return_old || !old_item) return e;
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  WriteItem(w, *old_item);
  return std::move(e).WithExtraJson("\"Item\":" + Finish(buf));
}

Error TransactionCancelled(const std::vector<ops::CancellationReason>& reasons) {
  std::string codes;
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartArray();
  for (const auto& r : reasons) {
    codes += (codes.empty() ? "" : ", ") + r.code;
    w.StartObject();
    if (r.item) {
      w.Key("Item");
      WriteItem(w, *r.item);
    }
    w.Key("Code");
    WriteString(w, r.code);
    if (!r.message.empty()) {
      w.Key("Message");
      WriteString(w, r.message);
    }
    w.EndObject();
  }
  w.EndArray();
  return Error(ErrorCode::kTransactionCanceled,
               "Transaction cancelled, please refer cancellation reasons for specific reasons [" +
                   codes + "]")
      .WithExtraJson("\"CancellationReasons\":" + Finish(buf));
}

}  // namespace ttlstore::api
