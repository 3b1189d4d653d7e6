#include "tablestore/filter_decode.h"

#include <optional>
#include <string>
#include <vector>

#include "tablestore/ots_error.h"
#include "tablestore/plainbuffer.h"
#include "tablestore/wire_check.h"

namespace ttlstore::tablestore {
namespace {

using versions::Filter;

// table_store_filter.proto's numbers.
constexpr uint64_t kFtSingleColumnValue = 1;
constexpr uint64_t kFtCompositeColumnValue = 2;
constexpr uint64_t kFtColumnPagination = 3;

constexpr size_t kMaxColumnNameBytes = 255;        // as for rows (docs/limits.md)
constexpr size_t kMaxColumnValueBytes = 2u << 20;  // as for rows: 2 MiB

Error ParseFailed() { return Error::Validation(std::string(kParseFailedMessage)); }

// One field of a protobuf message, read without allocating.
struct Field {
  uint32_t number = 0;
  uint32_t wire_type = 0;
  uint64_t varint = 0;     // wire type 0
  std::string_view bytes;  // wire type 2
};

// Reads protobuf fields one by one. Groups (wire types 3 and 4) are refused: no filter message
// has one, and the SDKs never send one.
class FieldReader {
 public:
  explicit FieldReader(std::string_view in) : in_(in) {}
  bool done() const { return in_.empty(); }

  // False on malformed bytes.
  bool Next(Field* f) {
    uint64_t tag;
    if (!Varint(&tag) || (tag >> 3) == 0 || (tag >> 3) > 0x1fffffff) return false;
    f->number = static_cast<uint32_t>(tag >> 3);
    f->wire_type = static_cast<uint32_t>(tag & 7);
    switch (f->wire_type) {
      case 0:
        return Varint(&f->varint);
      case 1:
        return Skip(8);
      case 2: {
        uint64_t len;
        if (!Varint(&len) || len > in_.size()) return false;
        f->bytes = in_.substr(0, len);
        in_.remove_prefix(len);
        return true;
      }
      case 5:
        return Skip(4);
      default:
        return false;
    }
  }

 private:
  bool Varint(uint64_t* v) {
    *v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
      if (in_.empty()) return false;
      uint8_t b = static_cast<uint8_t>(in_[0]);
      in_.remove_prefix(1);
      if (shift == 63 && b > 1) return false;
      *v |= uint64_t{b & 0x7fu} << shift;
      if (!(b & 0x80)) return true;
    }
    return false;
  }
  bool Skip(size_t n) {
    if (in_.size() < n) return false;
    in_.remove_prefix(n);
    return true;
  }

  std::string_view in_;
};

// A Filter message: its type and its inner bytes (both required).
Status ReadFilterMessage(std::string_view bytes, uint64_t* type, std::string_view* inner) {
  FieldReader r(bytes);
  bool has_type = false, has_inner = false;
  Field f;
  while (!r.done()) {
    if (!r.Next(&f)) return ParseFailed();
    if (f.number == 1 && f.wire_type == 0) {
      *type = f.varint;
      has_type = true;
    } else if (f.number == 2 && f.wire_type == 2) {
      *inner = f.bytes;
      has_inner = true;
    }
  }
  if (!has_type || !has_inner) return ParseFailed();
  return Status::Ok();
}

Status DecodeSingle(std::string_view bytes, Filter* out) {
  FieldReader r(bytes);
  std::optional<uint64_t> comparator, filter_if_missing, latest_version_only;
  std::optional<std::string_view> name, value;
  bool transfer_rule = false;
  Field f;
  while (!r.done()) {
    if (!r.Next(&f)) return ParseFailed();
    if (f.wire_type == 0) {
      if (f.number == 1) comparator = f.varint;
      if (f.number == 4) filter_if_missing = f.varint;
      if (f.number == 5) latest_version_only = f.varint;
    } else if (f.wire_type == 2) {
      if (f.number == 2) name = f.bytes;
      if (f.number == 3) value = f.bytes;
      if (f.number == 6) transfer_rule = true;
    }
  }
  // An enum value proto2 does not know is kept as an unknown field: the required field is then
  // missing and the message does not parse.
  if (!comparator || *comparator < 1 || *comparator > 6 || !name || !value || !filter_if_missing ||
      !latest_version_only) {
    return ParseFailed();
  }
  if (transfer_rule) {
    return Error::Validation(
        "SingleColumnValueRegexFilter (value_transfer_rule) is not supported by ttlstore.");
  }
  if (name->empty() || name->size() > kMaxColumnNameBytes || name->front() == '#') {
    return Error::Validation("Invalid column name: '" + EchoForError(*name) + "'.");
  }
  out->kind = Filter::Kind::kSingle;
  out->comparator = static_cast<versions::Comparator>(*comparator);
  out->column.assign(*name);
  out->pass_if_missing = *filter_if_missing == 0;
  out->latest_version_only = *latest_version_only != 0;
  ASSIGN_OR_RETURN(decoded, DecodeValue(*value));
  using model::CellType;
  CellType t = decoded.type;
  if (t != CellType::kInteger && t != CellType::kDouble && t != CellType::kBoolean &&
      t != CellType::kString && t != CellType::kBlob) {
    return Error::Validation("Invalid type of column: " + EchoForError(out->column) + ".");
  }
  if (decoded.bytes.size() > kMaxColumnValueBytes) {
    return Error::Validation("The length of attribute column: '" + EchoForError(out->column) +
                             "' exceeds the MaxLength:2097152 with CurrentLength:" +
                             std::to_string(decoded.bytes.size()) + ".");
  }
  out->value = std::move(decoded);
  return Status::Ok();
}

Status DecodePagination(std::string_view bytes, Filter* out) {
  FieldReader r(bytes);
  std::optional<uint64_t> offset, limit;
  Field f;
  while (!r.done()) {
    if (!r.Next(&f)) return ParseFailed();
    if (f.wire_type == 0 && f.number == 1) offset = f.varint;
    if (f.wire_type == 0 && f.number == 2) limit = f.varint;
  }
  if (!offset || !limit) return ParseFailed();
  // int32 on the wire: negative values are sign-extended to 64 bits.
  out->kind = Filter::Kind::kPagination;
  out->offset = static_cast<int32_t>(static_cast<int64_t>(*offset));
  out->limit = static_cast<int32_t>(static_cast<int64_t>(*limit));
  if (out->offset < 0 || out->limit < 0) {
    return Error::Validation(
        "Invalid ColumnPaginationFilter: offset and limit must not be negative.");
  }
  return Status::Ok();
}

Error TooManyFilters() {
  return Error::Validation(
      "The count of filter exceeds the max: " + std::to_string(kMaxFilterNodes) + ".");
}

// Decodes one node and, for a composite, its children. `count` is the number of nodes decoded
// or announced so far in the whole filter; it is raised before anything below is decoded, so
// the recursion is at most kMaxFilterNodes deep.
Status DecodeNode(std::string_view bytes, FilterUse use, bool nested, size_t* count, Filter* out) {
  uint64_t type = 0;
  std::string_view inner;
  RETURN_IF_ERROR(ReadFilterMessage(bytes, &type, &inner));
  switch (type) {
    case kFtSingleColumnValue:
      return DecodeSingle(inner, out);
    case kFtColumnPagination:
      if (use == FilterUse::kCondition) {
        return Error::Validation("ColumnPaginationFilter cannot be used as a column condition.");
      }
      if (nested) {
        return Error::Validation(
            "ColumnPaginationFilter cannot be a sub-filter of a composite filter.");
      }
      return DecodePagination(inner, out);
    case kFtCompositeColumnValue:
      break;
    default:
      return Error::Validation("Invalid filter type: " + std::to_string(type) + ".");
  }
  // First pass: the combinator and how many sub-filters there are, without decoding them.
  FieldReader r(inner);
  std::optional<uint64_t> combinator;
  size_t subs = 0;
  Field f;
  while (!r.done()) {
    if (!r.Next(&f)) return ParseFailed();
    if (f.number == 1 && f.wire_type == 0) combinator = f.varint;
    if (f.number == 2 && f.wire_type == 2) ++subs;
  }
  if (!combinator || *combinator < 1 || *combinator > 3) return ParseFailed();
  if (subs > kMaxFilterNodes - *count) return TooManyFilters();
  *count += subs;
  out->kind = Filter::Kind::kComposite;
  out->op = static_cast<versions::LogicOp>(*combinator);
  out->children.reserve(subs);
  FieldReader again(inner);
  while (!again.done()) {
    again.Next(&f);  // well formed: read once above
    if (f.number != 2 || f.wire_type != 2) continue;
    out->children.emplace_back();
    RETURN_IF_ERROR(DecodeNode(f.bytes, use, true, count, &out->children.back()));
  }
  return Status::Ok();
}

// The service's arity rules, checked once the whole filter is decoded (so that a filter of too
// many nodes is refused for its count whatever its shape).
Status CheckArity(const Filter& f) {
  if (f.kind != Filter::Kind::kComposite) return Status::Ok();
  if (f.op == versions::LogicOp::kNot && f.children.size() != 1) {
    return Error::Validation("Invalid NOT operator: the number of sub-filters must be 1.");
  }
  if (f.op != versions::LogicOp::kNot && f.children.size() < 2) {
    return Error::Validation(
        "Invalid AND/OR operator: the number of sub-filters must be more than 1.");
  }
  for (const auto& c : f.children) RETURN_IF_ERROR(CheckArity(c));
  return Status::Ok();
}

}  // namespace

Result<std::shared_ptr<const Filter>> DecodeFilter(std::string_view bytes, FilterUse use) {
  auto filter = std::make_shared<Filter>();
  size_t count = 1;
  RETURN_IF_ERROR(DecodeNode(bytes, use, false, &count, filter.get()));
  RETURN_IF_ERROR(CheckArity(*filter));
  return std::shared_ptr<const Filter>(std::move(filter));
}

}  // namespace ttlstore::tablestore
