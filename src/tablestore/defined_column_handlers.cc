// AddDefinedColumn and DeleteDefinedColumn: a table's predefined columns after creation, the
// columns secondary indexes may use (help: "AddDefinedColumn", "DeleteDefinedColumn"). Messages
// no source gives are Chosen (docs/compatibility.md, "Predefined columns").
#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "tablestore/handlers.h"
#include "tablestore/ots_error.h"
#include "tablestore/tablestore.pb.h"
#include "tablestore/wire_check.h"

namespace ttlstore::tablestore {
namespace {

namespace pb = ::ttlstore::otspb;

bool ValidDefinedType(int type) {
  return type == pb::DCT_INTEGER || type == pb::DCT_DOUBLE || type == pb::DCT_BOOLEAN ||
         type == pb::DCT_STRING || type == pb::DCT_BLOB;
}

// The index of `ts` that uses column `name` (as an index key or an attribute), or nullptr.
const model::TsIndex* IndexUsing(const model::TablestoreSchema& ts, const std::string& name) {
  for (const auto& ix : ts.indexes) {
    if (std::find(ix.primary_key.begin(), ix.primary_key.end(), name) != ix.primary_key.end() ||
        std::find(ix.defined_columns.begin(), ix.defined_columns.end(), name) !=
            ix.defined_columns.end()) {
      return &ix;
    }
  }
  return nullptr;
}

// What both calls share: the table's authorization, a non-empty list, and one catalog update
// in which `change` edits a copy of the table's predefined columns; the copy is stored only if
// `change` accepts the whole request.
using ColumnsChange =
    std::function<Status(const model::TablestoreSchema&, std::vector<model::DefinedColumn>&)>;
Status UpdateDefinedColumns(const Services& s, const std::string& table_name, int count,
                            const ColumnsChange& change) {
  RETURN_IF_ERROR(AuthorizeTable(s, table_name));
  if (count == 0) return Error::Validation("No defined column is specified.");
  auto updated = s.catalog.Update(
      table_name,
      [&](model::TableDescriptor& t) -> Status {
        auto& ts = *t.tablestore;
        if (!ts.index_of.empty()) return IndexWriteRefused(t.name);
        auto next = ts.defined_columns;
        RETURN_IF_ERROR(change(ts, next));
        ts.defined_columns = std::move(next);
        return Status::Ok();
      },
      ops::Front::kTablestore);
  if (!updated) return updated.error();
  return Status::Ok();
}

}  // namespace

Result<std::string> AddDefinedColumn(const Services& s, std::string_view body) {
  pb::AddDefinedColumnRequest req;
  RETURN_IF_ERROR(ParseMessage(body, &req));
  RETURN_IF_ERROR(UpdateDefinedColumns(
      s, req.table_name(), req.columns_size(),
      [&](const model::TablestoreSchema& ts, std::vector<model::DefinedColumn>& next) -> Status {
        for (const auto& c : req.columns()) {
          if (!ValidName(c.name())) {
            return Error::Validation("Invalid column name: '" + EchoForError(c.name()) + "'.");
          }
          // A type the enum lacks is parsed as an unknown field: has_type() is then false.
          if (!c.has_type() || !ValidDefinedType(c.type())) {
            return Error::Validation("Invalid defined column type of '" + EchoForError(c.name()) +
                                     "'.");
          }
          bool is_pk = std::any_of(ts.primary_key.begin(), ts.primary_key.end(),
                                   [&](const auto& pk) { return pk.name == c.name(); });
          bool taken = std::any_of(next.begin(), next.end(),
                                   [&](const auto& dc) { return dc.name == c.name(); });
          if (is_pk || taken) {
            return Error::Validation("Duplicated column name: '" + EchoForError(c.name()) + "'.");
          }
          next.push_back({c.name(), static_cast<uint8_t>(c.type())});
        }
        // The service's limit (help: "AddDefinedColumn": at most 32 predefined columns).
        if (next.size() > kMaxDefinedColumns) {
          return Error::Validation("The number of defined columns must be in range: [0, 32].");
        }
        return Status::Ok();
      }));
  return Serialize(pb::AddDefinedColumnResponse());
}

Result<std::string> DeleteDefinedColumn(const Services& s, std::string_view body) {
  pb::DeleteDefinedColumnRequest req;
  RETURN_IF_ERROR(ParseMessage(body, &req));
  RETURN_IF_ERROR(UpdateDefinedColumns(
      s, req.table_name(), req.columns_size(),
      [&](const model::TablestoreSchema& ts, std::vector<model::DefinedColumn>& next) -> Status {
        for (const auto& name : req.columns()) {
          auto it = std::find_if(next.begin(), next.end(),
                                 [&](const auto& dc) { return dc.name == name; });
          if (it == next.end()) {
            return Error::Validation("Defined column '" + EchoForError(name) +
                                     "' does not exist.");
          }
          if (const model::TsIndex* ix = IndexUsing(ts, name)) {
            return Error::Validation("Defined column '" + EchoForError(name) +
                                     "' is used by index '" + EchoForError(ix->name) + "'.");
          }
          next.erase(it);
        }
        return Status::Ok();
      }));
  return Serialize(pb::DeleteDefinedColumnResponse());
}

}  // namespace ttlstore::tablestore
