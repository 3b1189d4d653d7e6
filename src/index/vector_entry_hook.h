// Vector entry hook: who hears that a batch wrote entries of a DynamoDB vector index.
//
// Vector index entries are the truth (docs/vector-indexes.md); the HNSW graphs SearchVectors
// ranks large indexes with (ops/vector_graphs.h) are a cache kept in step with them. Index upkeep
// (index_writer.cc) tells this hook which entry keys a batch writes or deletes; the hook hands
// them to the listeners of the batch's store once the batch's outcome is known, whatever it is
// (a listener re-reads each key, so a batch that did not commit costs a read, never a wrong
// graph). Without a listener for the store it costs one lookup per batch.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "storage/store.h"

namespace ttlstore::index {

struct VectorEntryTouch {
  uint32_t table_id = 0;
  uint32_t index_id = 0;
  std::string entry_key;
};

// Called on the writing thread after the batch's outcome; must be quick and must not write.
using VectorEntryListener = std::function<void(const std::vector<VectorEntryTouch>&)>;

// Registers `fn` for the batches of `store` until the returned handle is destroyed (after which
// `fn` is never called, even for batches still in flight).
class VectorEntryListening {
 public:
  VectorEntryListening(const storage::Store* store, VectorEntryListener fn);
  ~VectorEntryListening();
  VectorEntryListening(const VectorEntryListening&) = delete;
  VectorEntryListening& operator=(const VectorEntryListening&) = delete;

  struct State;

 private:
  std::shared_ptr<State> state_;
};

// For index upkeep: `touches` are entries `batch` writes or deletes.
void NoteVectorEntries(storage::WriteBatch& batch, std::vector<VectorEntryTouch> touches);

}  // namespace ttlstore::index
