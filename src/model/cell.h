// CellValue: one value of the Tablestore model (rules T1-T14): a primary-key column or one
// version of an attribute column. Its types are PlainBuffer's (tablestore/plainbuffer.h); the
// three bound markers only ever appear in range bounds and requests, never in stored rows.
#pragma once

#include <cstdint>
#include <string>

namespace ttlstore::model {

// Numbered as PlainBuffer's type byte (also persisted in stored rows).
enum class CellType : uint8_t {
  kInteger = 0x00,        // int64
  kDouble = 0x01,         // IEEE double
  kBoolean = 0x02,
  kString = 0x03,         // UTF-8 bytes
  kBlob = 0x07,           // bytes
  kInfMin = 0x09,         // range bound: below every value
  kInfMax = 0x0A,         // range bound: above every value
  kAutoIncrement = 0x0B,  // primary-key placeholder the server fills
};

struct CellValue {
  CellType type = CellType::kInteger;
  int64_t integer = 0;   // kInteger
  double dbl = 0;        // kDouble
  bool boolean = false;  // kBoolean
  std::string bytes;     // kString, kBlob

  static CellValue Integer(int64_t v) { CellValue c; c.integer = v; return c; }
  static CellValue Double(double v) { CellValue c; c.type = CellType::kDouble; c.dbl = v; return c; }
  static CellValue Boolean(bool v) { CellValue c; c.type = CellType::kBoolean; c.boolean = v; return c; }
  static CellValue String(std::string v) { CellValue c; c.type = CellType::kString; c.bytes = std::move(v); return c; }
  static CellValue Blob(std::string v) { CellValue c; c.type = CellType::kBlob; c.bytes = std::move(v); return c; }
  static CellValue Marker(CellType t) { CellValue c; c.type = t; return c; }

  friend bool operator==(const CellValue& a, const CellValue& b) {
    if (a.type != b.type) return false;
    switch (a.type) {
      case CellType::kInteger: return a.integer == b.integer;
      case CellType::kDouble: return a.dbl == b.dbl;
      case CellType::kBoolean: return a.boolean == b.boolean;
      case CellType::kString:
      case CellType::kBlob: return a.bytes == b.bytes;
      default: return true;
    }
  }
};

}  // namespace ttlstore::model
