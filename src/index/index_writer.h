// Index upkeep on the write path: every item write (ops::ItemOps::AddPut / AddDelete) adds the
// changes of the table's secondary indexes to the item's own WriteBatch, so an index is never
// out of step with its table, even across a crash. Deletes of every origin (user, conditional,
// batch, transactional, TTL) go through the same call (D6).
#pragma once

#include <string>
#include <vector>

#include "common/result.h"
#include "model/attribute_value.h"
#include "model/table.h"
#include "storage/store.h"

namespace ttlstore::index {

// Adds to `batch` the entry changes of every index of `table` caused by replacing `old_item`
// with `new_item` (either may be null: an insert or a delete) at `item_key`. An index whose key
// and projected attributes did not change is not touched. Keeps the per-index stats in step.
// Costs nothing for a table without indexes.
void AddIndexChanges(storage::WriteBatch& batch, const model::TableDescriptor& table,
                     const std::string& item_key, const model::Item* old_item,
                     const model::Item* new_item);

// The index entries one item change writes (replacing `old_item` with `new_item`, either may be
// null), as the service charges them (developer guide, "Secondary indexes: provisioned
// throughput considerations"): an index the change leaves alone, or that the item is in neither
// before nor after, writes nothing; an item entering or leaving an index, or a change of only
// its projected attributes, one entry; a changed index key two (the old entry's delete, the new
// entry's put). One size per entry write, in bytes.
// For a vector index, `replicated_bytes` is what the change replicates to it, reported as
// VectorWriteRequestBytes (docs/vector-indexes.md, "Write capacity"): the new entry, its vector
// counted as float32 (4 bytes per dimension) and every other attribute by the item-size rule,
// or, when the item only leaves the index, the item's table key.
struct IndexEntryWrites {
  const model::SecondaryIndex* index;
  std::vector<size_t> sizes;
  size_t replicated_bytes = 0;
};
std::vector<IndexEntryWrites> IndexWritesOf(const model::TableDescriptor& table,
                                            const model::Item* old_item,
                                            const model::Item* new_item);

// Which write an index key comes from: the service words an empty index key value differently
// for an UpdateExpression (conformance tier3/error-messages, index-key cases).
enum class IndexKeyWrite { kPut, kUpdate };

// The service's checks of an item's index key attributes before a write: an index key
// attribute that is present must have the type its AttributeDefinition declares and must not be
// an empty string or binary. (An absent one just leaves the item out of that index.)
Status ValidateIndexKeys(const model::TableDescriptor& table, const model::Item& item,
                         IndexKeyWrite write = IndexKeyWrite::kPut);
// Each half of ValidateIndexKeys alone. Inside TransactWriteItems they answer differently: an
// empty value fails the whole request, a wrong type only cancels the transaction with a
// ValidationError reason (conformance tier3/error-messages/transactWriteItems).
Status CheckIndexKeysNotEmpty(const model::TableDescriptor& table, const model::Item& item,
                              IndexKeyWrite write);
Status CheckIndexKeyTypes(const model::TableDescriptor& table, const model::Item& item);

}  // namespace ttlstore::index
