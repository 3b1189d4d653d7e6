#include "search/slot_source.h"

namespace ttlstore::search {

SlotTestSource::SlotTestSource(Xapian::valueno slot, std::shared_ptr<const Test> test,
                               double max_weight)
    : slot_(slot), test_(std::move(test)), max_weight_(max_weight) {}

Xapian::PostingSource* SlotTestSource::clone() const {
  return new SlotTestSource(slot_, test_, max_weight_);
}

void SlotTestSource::init(const Xapian::Database& db) {
  it_ = db.valuestream_begin(slot_);
  end_ = db.valuestream_end(slot_);
  freq_ = db.get_value_freq(slot_);
  state_ = State::kUnstarted;
  weight_ = 0;
  set_maxweight(max_weight_);
}

bool SlotTestSource::TestHere() {
  double w = 0;
  if ((*test_)(*it_, &w)) {
    weight_ = w;
    state_ = State::kAt;
    return true;
  }
  state_ = State::kAtFailed;
  return false;
}

void SlotTestSource::Settle() {
  while (it_ != end_ && !TestHere()) ++it_;
  state_ = State::kAt;
}

void SlotTestSource::next(double) {
  if (state_ != State::kUnstarted && it_ != end_) ++it_;
  Settle();
}

void SlotTestSource::skip_to(Xapian::docid did, double) {
  if (state_ == State::kLoose) {
    it_.skip_to(did);
  } else if (it_ != end_ && it_.get_docid() < did) {
    it_.skip_to(did);
  }
  Settle();
}

bool SlotTestSource::check(Xapian::docid did, double) {
  if (state_ != State::kLoose) {
    if (it_ == end_) {
      state_ = State::kAt;
      return true;
    }
    Xapian::docid here = it_.get_docid();
    if (state_ == State::kAt && here >= did) return true;  // where skip_to(did) would stay
    if (here == did) return TestHere();
    if (here > did) {  // untested entries only: `did` has no value; move as skip_to would
      Settle();
      return true;
    }
  }
  if (!it_.check(did)) {
    state_ = State::kLoose;  // `did` has no value
    return false;
  }
  if (it_ == end_ || it_.get_docid() != did) {
    Settle();
    return true;
  }
  return TestHere();
}

}  // namespace ttlstore::search
