// A Xapian posting source of the documents whose value in one slot passes a test: how a query
// checks what terms cannot decide exactly (a geo query's edge cells, a NestedQuery's
// sub-documents). It walks the slot's value stream, so when Xapian pairs it with a query of
// candidate terms (OP_FILTER / OP_AND) and drives from the candidates, only their values are
// read and tested (check() and skip_to()); alone it tests every document with the slot.
#pragma once

#include <functional>
#include <memory>
#include <string_view>

#include <xapian.h>

namespace ttlstore::search {

class SlotTestSource : public Xapian::PostingSource {
 public:
  // Whether a document whose slot holds `value` matches; sets *weight when it does.
  using Test = std::function<bool(std::string_view value, double* weight)>;

  // `max_weight`: no weight the test sets exceeds it (0: a boolean filter).
  SlotTestSource(Xapian::valueno slot, std::shared_ptr<const Test> test, double max_weight);

  Xapian::PostingSource* clone() const override;
  void init(const Xapian::Database& db) override;
  Xapian::doccount get_termfreq_min() const override { return 0; }
  Xapian::doccount get_termfreq_est() const override { return freq_; }
  Xapian::doccount get_termfreq_max() const override { return freq_; }
  double get_weight() const override { return weight_; }
  void next(double min_wt) override;
  void skip_to(Xapian::docid did, double min_wt) override;
  bool check(Xapian::docid did, double min_wt) override;
  bool at_end() const override { return state_ != State::kLoose && it_ == end_; }
  Xapian::docid get_docid() const override { return it_.get_docid(); }
  std::string get_description() const override { return "SlotTestSource"; }

 private:
  // Moves forward from the current entry to the first that passes (or the end).
  void Settle();

  Xapian::valueno slot_;
  std::shared_ptr<const Test> test_;
  double max_weight_;
  Xapian::ValueIterator it_, end_;
  Xapian::doccount freq_ = 0;
  double weight_ = 0;
  enum class State : uint8_t {
    kUnstarted,  // at the stream's first entry, untested
    kAt,         // at a passing entry, or the end
    kAtFailed,   // at the entry check() just found failing
    kLoose,      // after the stream's own check() said no: unspecified until next/skip_to
  };
  State state_ = State::kUnstarted;
  // Tests the entry the iterator is at: kAt or kAtFailed.
  bool TestHere();
};

}  // namespace ttlstore::search
