#include "tablestore/wire_check.h"

#include <algorithm>
#include <array>
#include <string>

namespace ttlstore::tablestore {
namespace {

enum WireType : uint32_t {
  kVarint = 0,
  kFixed64 = 1,
  kLengthDelimited = 2,
  kStartGroup = 3,
  kEndGroup = 4,
  kFixed32 = 5,
};

// Walks protobuf wire bytes the way protobuf 3.21's generated lite parser reads them (its
// parse_context.h), so that "malformed" here means "the generated parser fails" there. The
// Tablestore front end's fuzzer checks that agreement on every input it runs.
class Walker {
 public:
  explicit Walker(WireCounts* counts) : counts_(counts) {}

  // The fields of one message of `shape` filling [p, end) exactly. `depth` is the nesting of
  // this message below the top-level one.
  bool Message(const char* p, const char* end, const WireShape& shape, int depth) {
    counts_->max_depth = std::max(counts_->max_depth, depth);
    size_t columns = 0, primary_key = 0, defined = 0;
    while (p < end) {
      uint32_t tag;
      if (!Tag(p, end, &tag)) return false;
      uint32_t type = tag & 7;
      uint32_t number = tag >> 3;
      // A zero tag or an end-group tag closes a message; outside a group the parser then finds
      // the message did not end at its limit and fails.
      if (tag == 0 || type == kEndGroup) return false;
      const WireField* field = Find(shape, number);
      if (!field || type != kLengthDelimited) {
        // Unknown, or known with another wire type: the parser keeps it as an unknown field.
        if (!Skip(p, end, tag, depth)) return false;
        continue;
      }
      uint32_t size;
      if (!Size(p, end, &size)) return false;
      const char* value_end = p + size;
      if (field->message) {
        if (depth + 1 > kMaxWireDepth) {
          counts_->max_depth = depth + 1;
          return false;
        }
        if (!Message(p, value_end, *field->message, depth + 1)) return false;
      }
      p = value_end;
      if (field->repeated) {
        ++counts_->repeated_entries;
        switch (field->rule) {
          case CountRule::kNone: break;
          case CountRule::kColumns: ++columns; break;
          case CountRule::kPrimaryKeySchema: ++primary_key; break;
          case CountRule::kDefinedColumns: ++defined; break;
          case CountRule::kBatchGetRows: ++counts_->batch_get_rows; break;
          case CountRule::kBatchWriteRows: ++counts_->batch_write_rows; break;
        }
      }
    }
    counts_->max_columns = std::max(counts_->max_columns, columns);
    counts_->max_primary_key_schema = std::max(counts_->max_primary_key_schema, primary_key);
    counts_->max_defined_columns = std::max(counts_->max_defined_columns, defined);
    return true;
  }

 private:
  static const WireField* Find(const WireShape& shape, uint32_t number) {
    for (const WireField& f : shape.fields) {
      if (f.number == number) return &f;
    }
    return nullptr;
  }

  // A tag: at most 5 bytes, the bits past 32 dropped (ReadTag).
  static bool Tag(const char*& p, const char* end, uint32_t* tag) {
    uint64_t v = 0;
    for (int i = 0; i < 5; ++i) {
      if (p == end) return false;
      uint8_t b = static_cast<uint8_t>(*p++);
      v |= uint64_t{b & 0x7fu} << (7 * i);
      if (b < 0x80) {
        *tag = static_cast<uint32_t>(v);
        return true;
      }
    }
    return false;
  }

  // A varint value: at most 10 bytes (VarintParse).
  static bool Varint(const char*& p, const char* end) {
    for (int i = 0; i < 10; ++i) {
      if (p == end) return false;
      if (static_cast<uint8_t>(*p++) < 0x80) return true;
    }
    return false;
  }

  // A length: at most 5 bytes, under 2^31 (ReadSize), and within the bytes left.
  static bool Size(const char*& p, const char* end, uint32_t* size) {
    uint64_t v = 0;
    for (int i = 0; i < 5; ++i) {
      if (p == end) return false;
      uint8_t b = static_cast<uint8_t>(*p++);
      if (i == 4 && b >= 8) return false;
      v |= uint64_t{b & 0x7fu} << (7 * i);
      if (b < 0x80) {
        if (v > static_cast<uint64_t>(end - p)) return false;
        *size = static_cast<uint32_t>(v);
        return true;
      }
    }
    return false;
  }

  // One unknown field's value after its tag (FieldParser). Groups are walked with an explicit
  // stack of their field numbers, never by recursion.
  bool Skip(const char*& p, const char* end, uint32_t tag, int depth) {
    if ((tag >> 3) == 0) return false;
    switch (tag & 7) {
      case kVarint: return Varint(p, end);
      case kFixed64: return Advance(p, end, 8);
      case kFixed32: return Advance(p, end, 4);
      case kLengthDelimited: {
        uint32_t size;
        if (!Size(p, end, &size)) return false;
        p += size;
        return true;
      }
      case kStartGroup: return SkipGroup(p, end, tag >> 3, depth);
      default: return false;  // 6, 7; an end-group tag never reaches here
    }
  }

  static bool Advance(const char*& p, const char* end, size_t n) {
    if (static_cast<size_t>(end - p) < n) return false;
    p += n;
    return true;
  }

  // The content of a group opened by field `number` at `depth`, up to its matching end tag.
  bool SkipGroup(const char*& p, const char* end, uint32_t number, int depth) {
    std::array<uint32_t, kMaxWireDepth + 1> open;
    size_t levels = 0;
    auto push = [&](uint32_t n) {
      int nesting = depth + static_cast<int>(levels) + 1;
      counts_->max_depth = std::max(counts_->max_depth, nesting);
      if (nesting > kMaxWireDepth) return false;
      open[levels++] = n;
      return true;
    };
    if (!push(number)) return false;
    while (levels > 0) {
      uint32_t tag;
      if (!Tag(p, end, &tag)) return false;  // also a group still open at the end
      uint32_t type = tag & 7;
      if (tag == 0) return false;
      if (type == kEndGroup) {
        if ((tag >> 3) != open[levels - 1]) return false;
        --levels;
        continue;
      }
      if (type == kStartGroup) {
        if ((tag >> 3) == 0 || !push(tag >> 3)) return false;
        continue;
      }
      if (!Skip(p, end, tag, depth)) return false;
    }
    return true;
  }

  WireCounts* counts_;
};

std::string Count(size_t n) { return std::to_string(n); }

}  // namespace

WireCounts CountWire(std::string_view bytes, const WireShape& shape) {
  WireCounts counts;
  Walker walker(&counts);
  counts.well_formed = walker.Message(bytes.data(), bytes.data() + bytes.size(), shape, 0);
  return counts;
}

Status CheckWire(std::string_view bytes, const WireShape& shape) {
  WireCounts c = CountWire(bytes, shape);
  if (!c.well_formed) return Error::Validation(std::string(kParseFailedMessage));
  // The service's own messages (docs/limits.md); the counts are the request's.
  if (c.max_primary_key_schema > kMaxPrimaryKeyColumns) {
    return Error::Validation("The number of primary key columns must be in range: [1, 4].");
  }
  if (c.max_defined_columns > kMaxDefinedColumns) {
    return Error::Validation("The number of defined columns must be in range: [0, 32].");
  }
  if (c.max_columns > kMaxColumnsInRequest) {
    return Error::Validation(
        "The number of columns from the request exceeds the limit, limit count: 1024, column "
        "count: " + Count(c.max_columns) + ".");
  }
  if (c.batch_get_rows > kMaxBatchGetRows) {
    return Error::Validation("Rows count exceeds the upper limit: 100.");
  }
  if (c.batch_write_rows > kMaxBatchWriteRows) {
    return Error::Validation("Rows count exceeds the upper limit: 200.");
  }
  if (c.repeated_entries > kMaxRepeatedEntries) {
    return Error::Validation("The request has " + Count(c.repeated_entries) +
                             " entries in repeated fields; ttlstore accepts at most " +
                             Count(kMaxRepeatedEntries) + ".");
  }
  return Status::Ok();
}

}  // namespace ttlstore::tablestore
