// Backfill: indexes the items a table already holds when TTL is enabled on it, so items written
// before TTL was turned on expire too. Runs in chunks, each under its items' locks and committed
// in one WriteBatch, so it never races a writer on the same item.
#pragma once

#include "common/result.h"
#include "model/table.h"
#include "ops/item_ops.h"

namespace ttlstore::ttl {

// Adds the expiry-index entry of every item of `table` that has a TTL value.
// REQUIRES: table.ttl_enabled.
Status BackfillExpiryIndex(ops::ItemOps& items, const model::TableDescriptor& table);

}  // namespace ttlstore::ttl
