#include "bench/latency_histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace hone::bench {

LatencyHistogram::LatencyHistogram() : buckets_(kBucketCount, 0) {}

// Index = shift * kSubBucketCount + (ns >> shift), where shift drops all but the top kSubBucketBits + 1 bits of ns.
// For ns < 2 * kSubBucketCount the shift is 0 and the index is ns itself; each later power of two [2^k, 2^(k+1))
// has its top bits (ns >> shift) in [kSubBucketCount, 2 * kSubBucketCount), so consecutive powers of two tile the
// index space with no gaps. OR-ing in the low mask makes the shift 0 below 2^(kSubBucketBits+1) without a branch.
uint64_t LatencyHistogram::BucketIndex(uint64_t ns) {
  ns = std::min(ns, kMaxTrackableNs);
  const int width = std::bit_width(ns | (2 * kSubBucketCount - 1));
  const int shift = width - (kSubBucketBits + 1);
  return static_cast<uint64_t>(shift) * kSubBucketCount + (ns >> shift);
}

// The inverse of BucketIndex: the bucket's lowest value plus half its width. For a width-w bucket (w = 2^shift,
// shift >= 1) the farthest value is w/2 away, and every value in it is at least kSubBucketCount * w, which gives
// the 2^-(kSubBucketBits+1) bound.
uint64_t LatencyHistogram::BucketMidpoint(uint64_t index) {
  if (index < 2 * kSubBucketCount) return index;  // width 1: exact
  const uint64_t shift = index / kSubBucketCount - 1;
  const uint64_t top_bits = kSubBucketCount + index % kSubBucketCount;
  const uint64_t lowest = top_bits << shift;
  const uint64_t width = uint64_t{1} << shift;
  return lowest + (width - 1) / 2;
}

void LatencyHistogram::RecordN(uint64_t ns, uint64_t n) {
  if (n == 0) return;  // keeps min/max untouched by a no-op
  buckets_[BucketIndex(ns)] += n;
  count_ += n;
  sum_ += ns * n;
  min_ = std::min(min_, ns);
  max_ = std::max(max_, ns);
}

void LatencyHistogram::Merge(const LatencyHistogram& other) {
  if (other.count_ == 0) return;
  for (uint64_t i = 0; i < kBucketCount; ++i) buckets_[i] += other.buckets_[i];
  count_ += other.count_;
  sum_ += other.sum_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
}

void LatencyHistogram::Reset() {
  std::fill(buckets_.begin(), buckets_.end(), 0);
  count_ = 0;
  min_ = UINT64_MAX;
  max_ = 0;
  sum_ = 0;
}

double LatencyHistogram::mean() const {
  return count_ == 0 ? 0.0 : static_cast<double>(sum_) / static_cast<double>(count_);
}

uint64_t LatencyHistogram::Percentile(double q) const {
  if (count_ == 0) return 0;
  if (!(q > 0.0)) q = 0.0;  // also maps NaN to 0
  q = std::min(q, 100.0);
  // q * count / 100 rather than q / 100 * count: for whole q and count the product is exact, so ranks such as
  // p99 of 100 samples come out as 99, not ceil(98.99999...) or ceil(99.00001).
  const double raw_rank = std::ceil(q * static_cast<double>(count_) / 100.0);
  const uint64_t rank = std::clamp<uint64_t>(static_cast<uint64_t>(raw_rank), 1, count_);
  // The ends are known exactly; no need to pay the bucket's rounding there.
  if (rank == 1) return min_;
  if (rank == count_) return max_;
  uint64_t seen = 0;
  for (uint64_t i = 0; i < kBucketCount; ++i) {
    seen += buckets_[i];
    if (seen >= rank) return std::clamp(BucketMidpoint(i), min_, max_);
  }
  return max_;  // unreachable: the buckets hold count_ observations
}

}  // namespace hone::bench
