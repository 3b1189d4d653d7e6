// OverlayScan: a walk of the `rows` family merged with a local transaction's buffered writes
// (RowOverlay, ops/row_ops.h), so that a GetRange inside the transaction sees its own writes:
// a buffered row replaces the stored row of its key, a buffered delete hides it, a buffered row
// with no stored counterpart joins the walk in key order. Without an overlay it is the store's
// iterator and nothing more.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "ops/row_ops.h"
#include "storage/store.h"

namespace ttlstore::ops {

class OverlayScan {
 public:
  // Walks [lower, upper) forward, or backward from below `upper` down to `lower`, as `stored`
  // (an iterator over the same bounds and direction) does. `overlay` may be null.
  OverlayScan(std::unique_ptr<storage::ItemIterator> stored, const RowOverlay* overlay,
              std::string lower, std::string upper, bool backward);

  bool Valid() const { return valid_; }
  // REQUIRES: Valid().
  void Next();
  std::string_view key() const { return key_; }
  // The row at key(); nullptr if its stored bytes do not decode. REQUIRES: Valid().
  // Valid until Next().
  const versions::StoredRow* row();
  // Not ok if the stored iterator stopped on an I/O error.
  Status status() const { return stored_->status(); }

 private:
  // Moves to the next position that shows a row (skipping buffered deletes and the stored rows
  // they hide) and sets key_, valid_ and the source.
  void Settle();
  bool OverlayInBounds() const;
  void StepOverlay();

  std::unique_ptr<storage::ItemIterator> stored_;
  const RowOverlay* overlay_;
  std::string lower_, upper_;
  bool backward_;
  // Forward: the next overlay entry; backward: one past it (a reverse position).
  RowOverlay::const_iterator ov_;
  bool valid_ = false;
  bool from_overlay_ = false;
  std::string_view key_;
  versions::StoredRow decoded_;
  bool decoded_ok_ = false;
  bool decoded_done_ = false;
};

}  // namespace ttlstore::ops
