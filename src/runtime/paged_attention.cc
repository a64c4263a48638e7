#include "runtime/paged_attention.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "tensor/half_convert.h"

namespace hone::runtime {
namespace {

// Queries of one unit along the sequence: prompt chunks split into several units so that both cores work on a
// one-row prefill; a decode step (sequence 1) has one unit per row and KV head.
constexpr int64_t kQueriesPerUnit = 32;
constexpr int64_t kMaxGroups = 64;  // int8 scales converted at a time

int64_t Chunks(const PagedAttentionArgs& a) { return (a.sequence + kQueriesPerUnit - 1) / kQueriesPerUnit; }

// Start of the (layer, key or value, kv_head) run of `block`: block_tokens x head_size contiguous halves.
size_t RunOffset(const PagedAttentionArgs& a, int64_t block, int kv, int64_t head) {
  return static_cast<size_t>((((block * a.layers + a.layer) * 2 + kv) * a.kv_heads + head) * a.block_tokens *
                             a.head_size);
}

// Scales are laid out as the pool with head_size / kKvGroup in place of head_size.
size_t ScaleOffset(const PagedAttentionArgs& a, int64_t block, int kv, int64_t head) {
  return RunOffset(a, block, kv, head) / kKvGroup;
}

// One position's head (head_size floats) into int8 and its scales: per group of kKvGroup, scale = max|x| / 127
// rounded to float16, q = round(x / scale) with the rounded scale, so that q * scale is what a reader gets back.
void QuantizeHead(const float* x, int64_t d, int8_t* q, uint16_t* scales) {
  for (int64_t g = 0; g < d / kKvGroup; ++g) {
    const float* in = x + g * kKvGroup;
    float amax = 0.0f;
    bool finite = true;
    for (int64_t i = 0; i < kKvGroup; ++i) {
      finite = finite && std::isfinite(in[i]);
      amax = std::max(amax, std::fabs(in[i]));
    }
    const float wanted = finite ? amax / 127.0f : std::numeric_limits<float>::quiet_NaN();
    FloatToHalf(&wanted, &scales[g], 1);
    float scale = 0.0f;
    HalfToFloat(&scales[g], &scale, 1);
    // A group holding NaN or Inf (or beyond float16's range / 127) keeps that scale and zeros: it reads back as
    // NaN, so a broken activation still shows downstream instead of turning into numbers.
    const bool usable = std::isfinite(scale) && scale > 0.0f;
    const float inv = usable ? 1.0f / scale : 0.0f;
    for (int64_t i = 0; i < kKvGroup; ++i)
      q[g * kKvGroup + i] =
          usable ? static_cast<int8_t>(std::clamp(std::nearbyint(in[i] * inv), -127.0f, 127.0f)) : int8_t{0};
  }
}

// Eight partial sums, so that the compiler vectorizes without reassociating (no -ffast-math).
__attribute__((always_inline)) inline float Dot(const float* x, const float* y, int64_t n) {
  float part[8] = {};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int l = 0; l < 8; ++l) part[l] += x[i + l] * y[i + l];
  float sum = ((part[0] + part[1]) + (part[2] + part[3])) + ((part[4] + part[5]) + (part[6] + part[7]));
  for (; i < n; ++i) sum += x[i] * y[i];
  return sum;
}

}  // namespace

Status CheckPagedAttention(const PagedAttentionArgs& a) {
  auto bad = [](std::string what) { return Status::InvalidArgument("PagedAttention: " + what); };
  if (a.batch <= 0 || a.sequence <= 0) return bad(fmt::format("empty step ({} rows x {})", a.batch, a.sequence));
  if (a.heads <= 0 || a.kv_heads <= 0 || a.heads % a.kv_heads != 0)
    return bad(fmt::format("{} query heads for {} KV heads (must be a multiple)", a.heads, a.kv_heads));
  if (a.head_size <= 0 || a.head_size % 2 != 0 || a.block_tokens <= 0 || a.blocks <= 0 || a.table_width <= 0)
    return bad(fmt::format("head_size {}, block_tokens {}, blocks {}, block_table width {}", a.head_size,
                           a.block_tokens, a.blocks, a.table_width));
  if (a.element == KvElement::kInt8 && (a.scales == nullptr || a.head_size % kKvGroup != 0))
    return bad(fmt::format("an int8 cache needs its scales and a head_size that is a multiple of {}, is {}", kKvGroup,
                           a.head_size));
  if (a.layer < 0 || a.layer >= a.layers)
    return bad(fmt::format("layer {} outside the cache's {} layers", a.layer, a.layers));
  for (int64_t b = 0; b < a.batch; ++b) {
    const int64_t past = a.past[b];
    if (past < 0) return bad(fmt::format("row {}: past_lengths {} is negative", b, past));
    const int64_t needed = (past + a.sequence + a.block_tokens - 1) / a.block_tokens;
    if (needed > a.table_width)
      return bad(fmt::format("row {}: {} positions need {} blocks, block_table holds {}", b, past + a.sequence,
                             needed, a.table_width));
    for (int64_t k = 0; k < needed; ++k) {
      const int32_t block = a.block_table[b * a.table_width + k];
      if (block < 0 || block >= a.blocks)
        return bad(fmt::format("row {}: block_table[{}] = {} outside the pool of {} blocks", b, k, block, a.blocks));
    }
  }
  return Status::Ok();
}

void ApplyRotary(const PagedAttentionArgs& a, float theta, const int64_t* positions, float* qkv) {
  const int64_t half = a.head_size / 2;
  // As build_decoder.py's graph computes them: the frequencies in double rounded to float, the angle a float product.
  std::vector<float> inv_freq(static_cast<size_t>(half)), cos(inv_freq.size()), sin(inv_freq.size());
  for (int64_t i = 0; i < half; ++i)
    inv_freq[i] = static_cast<float>(1.0 / std::pow(static_cast<double>(theta), 2.0 * i / a.head_size));
  const int64_t rotated = a.heads + a.kv_heads;  // the query heads, then the key heads
  for (int64_t r = 0; r < a.batch * a.sequence; ++r) {
    const float position = static_cast<float>(positions[r]);
    for (int64_t i = 0; i < half; ++i) {
      const float angle = position * inv_freq[i];
      cos[i] = std::cos(angle);
      sin[i] = std::sin(angle);
    }
    float* row = qkv + r * a.qkv_width();
    for (int64_t h = 0; h < rotated; ++h) {
      float* x = row + h * a.head_size;
      for (int64_t i = 0; i < half; ++i) {
        const float x1 = x[i], x2 = x[i + half];
        x[i] = x1 * cos[i] - x2 * sin[i];
        x[i + half] = x2 * cos[i] + x1 * sin[i];
      }
    }
  }
}

void WritePagedKv(const PagedAttentionArgs& a) {
  const int64_t d = a.head_size;
  for (int64_t b = 0; b < a.batch; ++b)
    for (int64_t s = 0; s < a.sequence; ++s) {
      const int64_t pos = a.past[b] + s;
      const int64_t block = a.block_table[b * a.table_width + pos / a.block_tokens];
      const int64_t slot = pos % a.block_tokens;
      const float* row = a.qkv + (b * a.sequence + s) * a.qkv_width();
      for (int kv = 0; kv < 2; ++kv)
        for (int64_t h = 0; h < a.kv_heads; ++h) {
          const float* x = row + (a.heads + kv * a.kv_heads + h) * d;
          const size_t at = RunOffset(a, block, kv, h) + slot * d;
          if (a.element == KvElement::kInt8)
            QuantizeHead(x, d, static_cast<int8_t*>(a.cache) + at,
                         a.scales + ScaleOffset(a, block, kv, h) + slot * a.groups());
          else
            FloatToHalf(x, static_cast<uint16_t*>(a.cache) + at, static_cast<size_t>(d));
        }
    }
}

size_t PagedAttentionUnits(const PagedAttentionArgs& a) {
  return static_cast<size_t>(a.batch * a.kv_heads * Chunks(a));
}

namespace {

// The first `n` positions of a block's (kv, head) run of an int8 cache as floats.
__attribute__((always_inline)) inline void Dequantize(const PagedAttentionArgs& a, int64_t block, int kv,
                                                      int64_t head, int64_t n, float* out) {
  const int8_t* q = static_cast<const int8_t*>(a.cache) + RunOffset(a, block, kv, head);
  const int64_t groups = n * a.groups();
  float scale[kMaxGroups];
  const uint16_t* s = a.scales + ScaleOffset(a, block, kv, head);
  for (int64_t start = 0; start < groups; start += kMaxGroups) {
    const int64_t count = std::min(kMaxGroups, groups - start);
    HalfToFloat(s + start, scale, static_cast<size_t>(count));
    for (int64_t g = 0; g < count; ++g) {
      const int8_t* in = q + (start + g) * kKvGroup;
      float* dst = out + (start + g) * kKvGroup;
      for (int64_t i = 0; i < kKvGroup; ++i) dst[i] = static_cast<float>(in[i]) * scale[g];
    }
  }
}

// One row b, one KV head g and queries [s0, s1) of each of the group's query heads, with a running softmax over the
// key blocks (each block converted to float once for the whole group): per query the largest score so far `top`,
// the sum of exp(score - top) and the weighted sum of values, rescaled whenever `top` grows.
// Compiled once per instruction set below (always_inline: each copy vectorizes for its target).
__attribute__((always_inline)) inline void UnitBody(const PagedAttentionArgs& a, size_t unit) {
  const int64_t chunks = Chunks(a);
  const int64_t b = static_cast<int64_t>(unit) / (a.kv_heads * chunks);
  const int64_t g = static_cast<int64_t>(unit) / chunks % a.kv_heads;
  const int64_t s0 = static_cast<int64_t>(unit) % chunks * kQueriesPerUnit;
  const int64_t s1 = std::min(a.sequence, s0 + kQueriesPerUnit);
  const int64_t d = a.head_size;
  const int64_t T = a.block_tokens;
  const int64_t group = a.heads / a.kv_heads;
  const int64_t past = a.past[b];
  const int64_t queries = group * (s1 - s0);

  thread_local std::vector<float> scratch;
  scratch.assign(static_cast<size_t>(2 * T * d + T + queries * (d + 2)), 0.0f);
  float* keys = scratch.data();
  float* values = keys + T * d;
  float* scores = values + T * d;
  float* acc = scores + T;         // queries x d
  float* top = acc + queries * d;  // queries
  float* total = top + queries;    // queries
  std::fill_n(top, queries, -std::numeric_limits<float>::infinity());

  const int64_t visible = past + s1;  // positions the last query sees
  for (int64_t kb = 0; kb * T < visible; ++kb) {
    const int64_t block = a.block_table[b * a.table_width + kb];
    const int64_t in_block = std::min(T, visible - kb * T);
    if (a.element == KvElement::kInt8) {
      Dequantize(a, block, 0, g, in_block, keys);
      Dequantize(a, block, 1, g, in_block, values);
    } else {
      const auto* cache = static_cast<const uint16_t*>(a.cache);
      HalfToFloat(cache + RunOffset(a, block, 0, g), keys, static_cast<size_t>(in_block * d));
      HalfToFloat(cache + RunOffset(a, block, 1, g), values, static_cast<size_t>(in_block * d));
    }
    for (int64_t q = 0; q < queries; ++q) {
      const int64_t h = g * group + q / (s1 - s0);
      const int64_t s = s0 + q % (s1 - s0);
      const int64_t n = std::min(in_block, past + s + 1 - kb * T);  // causal: positions <= past + s
      if (n <= 0) continue;
      const float* qv = a.qkv + (b * a.sequence + s) * a.qkv_width() + h * d;
      float block_top = -std::numeric_limits<float>::infinity();
      for (int64_t t = 0; t < n; ++t) {
        scores[t] = Dot(qv, keys + t * d, d) * a.scale;
        block_top = std::max(block_top, scores[t]);
      }
      float* out = acc + q * d;
      if (block_top > top[q]) {
        const float rescale = std::exp(top[q] - block_top);  // 0 on the first block (top = -inf)
        total[q] *= rescale;
        for (int64_t i = 0; i < d; ++i) out[i] *= rescale;
        top[q] = block_top;
      }
      for (int64_t t = 0; t < n; ++t) {
        const float p = std::exp(scores[t] - top[q]);
        total[q] += p;
        const float* vv = values + t * d;
        for (int64_t i = 0; i < d; ++i) out[i] += p * vv[i];
      }
    }
  }
  for (int64_t q = 0; q < queries; ++q) {
    const int64_t h = g * group + q / (s1 - s0);
    const int64_t s = s0 + q % (s1 - s0);
    float* dst = a.out + ((b * a.sequence + s) * a.heads + h) * d;
    const float inv = 1.0f / total[q];  // >= 1: the query's own position is always visible
    for (int64_t i = 0; i < d; ++i) dst[i] = acc[q * d + i] * inv;
  }
}

void UnitPortable(const PagedAttentionArgs& a, size_t unit) { UnitBody(a, unit); }
#if defined(__x86_64__)
__attribute__((target("avx2,fma"))) void UnitAvx2(const PagedAttentionArgs& a, size_t unit) { UnitBody(a, unit); }
__attribute__((target("avx512f,fma"))) void UnitAvx512(const PagedAttentionArgs& a, size_t unit) { UnitBody(a, unit); }
#endif

}  // namespace

// Chosen by a plain CPU check rather than target_clones: GCC's ifunc resolvers run before ThreadSanitizer's runtime
// is up, and the TSan build's test binaries crashed at start with them.
void PagedAttentionUnit(const PagedAttentionArgs& a, size_t unit) {
#if defined(__x86_64__)
  static const auto variant = __builtin_cpu_supports("avx512f")                                   ? UnitAvx512
                              : __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? UnitAvx2
                                                                                                : UnitPortable;
  variant(a, unit);
#else
  UnitPortable(a, unit);
#endif
}

}  // namespace hone::runtime
