// LatencyHistogram: a fixed-size, log-linear histogram of latencies in nanoseconds (HDR-histogram style), cheap
// enough to record every request on the hot path and exact enough to report p99.9 honestly.
//
// Layout. Values below 2^kSubBucketBits (128 ns) get one bucket each and are recorded exactly. Above that, each
// power-of-two range [2^k, 2^(k+1)) is split into 2^kSubBucketBits equal buckets, so a bucket is never wider than
// 2^-7 of its lower bound. A bucket reports its midpoint, so every reported value v' of a true value v satisfies
//   |v' - v| <= v * kMaxRelativeError   (kMaxRelativeError = 2^-8, about 0.39%).
// Buckets cover [0, kMaxTrackableNs] (2^43 - 1 ns, about 2.4 hours). Larger values land in the last bucket, where
// the bound above does not hold; count, min, max and sum stay exact for them all the same.
//
// Cost. The buckets (about 37 KiB) are allocated once by the constructor; Record never allocates and does no
// floating-point or log math: one std::bit_width, a shift and an add.
//
// Thread safety: none. Give each recording thread its own histogram and Merge them when the measurement ends.
#pragma once

#include <cstdint>
#include <vector>

namespace hone::bench {

class LatencyHistogram {
 public:
  // Sub-buckets per power of two, as bits: 7 gives 128 sub-buckets and the error bound below.
  static constexpr int kSubBucketBits = 7;
  // Every value up to kMaxTrackableNs is reported within this fraction of itself (see the file comment).
  static constexpr double kMaxRelativeError = 1.0 / (uint64_t{1} << (kSubBucketBits + 1));
  // The largest value with its own bucket; larger ones are clamped into the last bucket.
  static constexpr int kMaxValueBits = 43;
  static constexpr uint64_t kMaxTrackableNs = (uint64_t{1} << kMaxValueBits) - 1;

  // An empty histogram; allocates all buckets now so that Record never does.
  LatencyHistogram();

  // Adds one observation of ns nanoseconds.
  void Record(uint64_t ns) { RecordN(ns, 1); }
  // Adds n observations of ns nanoseconds; n == 0 changes nothing.
  void RecordN(uint64_t ns, uint64_t n);
  // Adds every observation of other to this histogram, as if each had been recorded here.
  void Merge(const LatencyHistogram& other);
  // Forgets every observation; keeps the buckets' memory.
  void Reset();

  // Number of observations.
  uint64_t count() const { return count_; }
  // Exact smallest and largest observation; 0 when empty.
  uint64_t min() const { return count_ == 0 ? 0 : min_; }
  uint64_t max() const { return max_; }
  // Exact sum of all observations in ns (wraps only past 2^64 ns, about 584 years of total latency).
  uint64_t sum() const { return sum_; }
  // sum / count; 0 when empty.
  double mean() const;

  // The q-th percentile, q in [0, 100], by nearest rank: the value of rank ceil(q / 100 * count) (at least 1) in
  // sorted order. Within kMaxRelativeError of the exact value, and clamped to [min, max]; exact at the ends (rank 1
  // gives min, rank count gives max, so Percentile(100) == max). 0 when empty. q outside [0, 100] is clamped.
  uint64_t Percentile(double q) const;

 private:
  static constexpr uint64_t kSubBucketCount = uint64_t{1} << kSubBucketBits;
  // Buckets 0 .. 2*kSubBucketCount-1 have width 1; then kSubBucketCount buckets per further power of two.
  static constexpr uint64_t kBucketCount = (kMaxValueBits - kSubBucketBits) * kSubBucketCount + kSubBucketCount;

  static uint64_t BucketIndex(uint64_t ns);
  static uint64_t BucketMidpoint(uint64_t index);

  std::vector<uint64_t> buckets_;  // kBucketCount entries, sized once by the constructor
  uint64_t count_ = 0;
  uint64_t min_ = UINT64_MAX;  // sentinel while empty; min() hides it
  uint64_t max_ = 0;
  uint64_t sum_ = 0;
};

}  // namespace hone::bench
