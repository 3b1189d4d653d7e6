// Capacity units as DynamoDB charges them (developer guide, "Read/write capacity mode"):
//   write: 1 WCU per started KB of the item (the larger of old and new for a replace), min 1;
//   read:  1 RCU per started 4 KB for a strongly consistent read, half for an eventually
//          consistent one, min one unit even when the item does not exist.
#pragma once

#include <cstddef>

namespace ttlstore::ops {

double WriteCapacityUnits(size_t item_bytes);
double ReadCapacityUnits(size_t item_bytes, bool consistent_read);

}  // namespace ttlstore::ops
