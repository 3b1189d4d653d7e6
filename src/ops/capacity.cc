#include "ops/capacity.h"

namespace ttlstore::ops {

double WriteCapacityUnits(size_t item_bytes) {
  size_t units = (item_bytes + 1023) / 1024;
  return static_cast<double>(units == 0 ? 1 : units);
}

double ReadCapacityUnits(size_t item_bytes, bool consistent_read) {
  size_t units = (item_bytes + 4095) / 4096;
  double full = static_cast<double>(units == 0 ? 1 : units);
  return consistent_read ? full : full / 2;
}

}  // namespace ttlstore::ops
