// Latency histogram in the spirit of HdrHistogram: values in microseconds, exact below 128 µs and
// log-linear above (64 sub-buckets per power of two, so any reported percentile is within 1/64 ≈
// 1.6% of the true value). Fixed size, no allocation while recording, mergeable across threads.
#pragma once

#include <array>
#include <bit>
#include <cstdint>

namespace loadgen {

class Histogram {
 public:
  static constexpr int kSubBits = 6;                 // 64 sub-buckets per octave
  static constexpr uint64_t kSub = 1ull << kSubBits;
  static constexpr int kBuckets = (40 - kSubBits + 2) * kSub;  // up to 2^40 µs (12 days)

  void Record(uint64_t us) {
    ++counts_[Index(us)];
    ++total_;
    if (us > max_) max_ = us;
    sum_ += us;
  }

  void Merge(const Histogram& o) {
    for (int i = 0; i < kBuckets; ++i) counts_[i] += o.counts_[i];
    total_ += o.total_;
    sum_ += o.sum_;
    if (o.max_ > max_) max_ = o.max_;
  }

  uint64_t count() const { return total_; }
  uint64_t max() const { return max_; }
  double mean() const { return total_ ? double(sum_) / double(total_) : 0.0; }

  // Upper edge of the bucket that holds the q-quantile (q in [0,1]); 0 when empty.
  uint64_t Quantile(double q) const {
    if (total_ == 0) return 0;
    uint64_t rank = static_cast<uint64_t>(q * double(total_) + 0.5);
    if (rank < 1) rank = 1;
    if (rank > total_) rank = total_;
    uint64_t seen = 0;
    for (int i = 0; i < kBuckets; ++i) {
      seen += counts_[i];
      if (seen >= rank) {
        uint64_t hi = UpperEdge(i);
        return hi < max_ ? hi : max_;
      }
    }
    return max_;
  }

 private:
  static int Index(uint64_t v) {
    if (v < 2 * kSub) return static_cast<int>(v);
    int msb = 63 - std::countl_zero(v);  // >= kSubBits + 1
    int shift = msb - kSubBits;          // v >> shift lies in [kSub, 2*kSub)
    int idx = (shift + 1) * static_cast<int>(kSub) + static_cast<int>((v >> shift) - kSub);
    return idx < kBuckets ? idx : kBuckets - 1;
  }
  static uint64_t UpperEdge(int idx) {
    if (idx < static_cast<int>(2 * kSub)) return static_cast<uint64_t>(idx);
    int shift = idx / static_cast<int>(kSub) - 1;
    uint64_t m = static_cast<uint64_t>(idx % static_cast<int>(kSub)) + kSub;
    return ((m + 1) << shift) - 1;
  }

  std::array<uint64_t, kBuckets> counts_{};
  uint64_t total_ = 0;
  uint64_t sum_ = 0;
  uint64_t max_ = 0;
};

}  // namespace loadgen
