#include "index/vector_entry_hook.h"

#include <algorithm>
#include <mutex>
#include <utility>

namespace ttlstore::index {

struct VectorEntryListening::State {
  const storage::Store* store;
  std::mutex mu;
  VectorEntryListener fn;  // GUARDED_BY(mu); emptied when the handle goes
};

namespace {

std::mutex& ListenersMu() {
  static std::mutex mu;
  return mu;
}

// Every registered listener (few: one per store that serves SearchVectors).
std::vector<std::shared_ptr<VectorEntryListening::State>>& Listeners() {
  static std::vector<std::shared_ptr<VectorEntryListening::State>> listeners;
  return listeners;
}

}  // namespace

VectorEntryListening::VectorEntryListening(const storage::Store* store, VectorEntryListener fn)
    : state_(std::make_shared<State>()) {
  state_->store = store;
  state_->fn = std::move(fn);
  std::lock_guard<std::mutex> lock(ListenersMu());
  Listeners().push_back(state_);
}

VectorEntryListening::~VectorEntryListening() {
  {
    std::lock_guard<std::mutex> lock(ListenersMu());
    auto& all = Listeners();
    all.erase(std::remove(all.begin(), all.end(), state_), all.end());
  }
  std::lock_guard<std::mutex> lock(state_->mu);  // waits for a call under way
  state_->fn = nullptr;
}

void NoteVectorEntries(storage::WriteBatch& batch, std::vector<VectorEntryTouch> touches) {
  if (touches.empty()) return;
  std::vector<std::shared_ptr<VectorEntryListening::State>> mine;
  {
    std::lock_guard<std::mutex> lock(ListenersMu());
    for (const auto& l : Listeners()) {
      if (l->store == &batch.store()) mine.push_back(l);
    }
  }
  if (mine.empty()) return;
  batch.OnOutcome([mine = std::move(mine), touches = std::move(touches)](storage::BatchOutcome) {
    for (const auto& l : mine) {
      std::lock_guard<std::mutex> lock(l->mu);
      if (l->fn) l->fn(touches);
    }
  });
}

}  // namespace ttlstore::index
