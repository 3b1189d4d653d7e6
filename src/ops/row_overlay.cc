#include "ops/row_overlay.h"

namespace ttlstore::ops {

OverlayScan::OverlayScan(std::unique_ptr<storage::ItemIterator> stored, const RowOverlay* overlay,
                         std::string lower, std::string upper, bool backward)
    : stored_(std::move(stored)),
      overlay_(overlay),
      lower_(std::move(lower)),
      upper_(std::move(upper)),
      backward_(backward) {
  if (overlay_) {
    // Forward: the first entry >= lower. Backward: the position after the last entry < upper.
    ov_ = backward_ ? overlay_->lower_bound(upper_) : overlay_->lower_bound(lower_);
  }
  Settle();
}

bool OverlayScan::OverlayInBounds() const {
  if (!overlay_) return false;
  if (!backward_) return ov_ != overlay_->end() && ov_->first < upper_;
  return ov_ != overlay_->begin() && std::prev(ov_)->first >= lower_;
}

void OverlayScan::StepOverlay() {
  if (backward_) {
    --ov_;
  } else {
    ++ov_;
  }
}

void OverlayScan::Settle() {
  decoded_done_ = false;
  for (;;) {
    const bool have_stored = stored_->Valid();
    const bool have_overlay = OverlayInBounds();
    if (!have_stored && !have_overlay) {
      valid_ = false;
      return;
    }
    const auto entry = have_overlay ? (backward_ ? std::prev(ov_) : ov_) : RowOverlay::const_iterator();
    // Which comes first in the walk's order; on a tie the overlay wins and the stored row it
    // replaces is passed over.
    bool take_overlay = false;
    bool tie = false;
    if (have_overlay && have_stored) {
      const std::string_view sk = stored_->key();
      const std::string_view ok = entry->first;
      tie = sk == ok;
      take_overlay = tie || (backward_ ? ok > sk : ok < sk);
    } else {
      take_overlay = have_overlay;
    }
    if (!take_overlay) {
      from_overlay_ = false;
      key_ = stored_->key();
      valid_ = true;
      return;
    }
    if (entry->second.has_value()) {
      // Stays put until Next(): the stored row of the same key (if any) is skipped then.
      from_overlay_ = true;
      key_ = entry->first;
      valid_ = true;
      return;
    }
    // A buffered delete: neither it nor the stored row it hides is shown.
    if (tie) stored_->Next();
    StepOverlay();
  }
}

void OverlayScan::Next() {
  if (from_overlay_) {
    if (stored_->Valid() && stored_->key() == key_) stored_->Next();
    StepOverlay();
  } else {
    stored_->Next();
  }
  Settle();
}

const versions::StoredRow* OverlayScan::row() {
  if (from_overlay_) {
    const auto entry = backward_ ? std::prev(ov_) : ov_;
    return &*entry->second;
  }
  if (!decoded_done_) {
    decoded_ = versions::StoredRow();
    decoded_ok_ = versions::DecodeRow(stored_->value(), &decoded_);
    decoded_done_ = true;
  }
  return decoded_ok_ ? &decoded_ : nullptr;
}

}  // namespace ttlstore::ops
