#include "generate/kv_cache.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <new>

#include <fmt/format.h>

#include "runtime/paged_attention.h"
#include "tensor/half_convert.h"

namespace hone::generate {

namespace {

using runtime::kKvGroup;  // int8 elements per float16 scale, as PagedAttention reads them

int64_t ElementBytes(KvDtype dtype) {
  switch (dtype) {
    case KvDtype::kFloat32: return 4;
    case KvDtype::kFloat16: return 2;
    case KvDtype::kInt8: return 1;
  }
  return 4;
}

}  // namespace

std::string_view KvDtypeName(KvDtype dtype) {
  switch (dtype) {
    case KvDtype::kFloat32: return "float32";
    case KvDtype::kFloat16: return "float16";
    case KvDtype::kInt8: return "int8";
  }
  return "?";
}

int64_t KvCache::BlockBytes(const DecoderShape& shape, int64_t block_tokens, KvDtype dtype) {
  const int64_t elements = shape.FloatsPerToken() * block_tokens;
  const int64_t scales = dtype == KvDtype::kInt8 ? elements / kKvGroup * 2 : 0;
  return elements * ElementBytes(dtype) + scales;
}

Result<std::unique_ptr<KvCache>> KvCache::Create(const DecoderShape& shape, int64_t block_tokens,
                                                 int64_t total_blocks, KvDtype dtype) {
  if (block_tokens <= 0 || total_blocks <= 0 || total_blocks > INT32_MAX)
    return Status::InvalidArgument(
        fmt::format("KV cache: {} blocks of {} tokens; both must be positive", total_blocks, block_tokens));
  if (dtype == KvDtype::kInt8 && (shape.layout != KvLayout::kPaged || shape.head_size % kKvGroup != 0))
    return Status::InvalidArgument(fmt::format(
        "KV cache: int8 blocks need a paged decoder (it reads them itself) and a head_size that is a multiple of "
        "{}; this decoder is {} with head_size {}",
        kKvGroup, shape.layout == KvLayout::kPaged ? "paged" : "dense", shape.head_size));
  std::unique_ptr<KvCache> c(new KvCache());
  c->shape_ = shape;
  c->block_tokens_ = block_tokens;
  c->total_blocks_ = total_blocks;
  c->floats_per_block_ = shape.FloatsPerToken() * block_tokens;
  c->dtype_ = dtype;
  c->element_bytes_ = ElementBytes(dtype);
  const int64_t bytes = c->floats_per_block_ * total_blocks * c->element_bytes_;
  const int64_t scales = c->scales_per_block() * total_blocks;
  // Value-initialised: the pages are touched now, so the budget is resident from the start and the first requests
  // do not pay for page faults. (Zero bits are 0.0 in every element type.)
  c->pool_.reset(new (std::nothrow) std::byte[static_cast<size_t>(bytes)]());
  if (scales > 0) c->scales_.reset(new (std::nothrow) uint16_t[static_cast<size_t>(scales)]());
  if (!c->pool_ || (scales > 0 && !c->scales_))
    return Status::ResourceExhausted(fmt::format("KV cache: cannot allocate {} blocks ({:.1f} MiB)", total_blocks,
                                                 double(bytes + 2 * scales) / (1 << 20)));
  c->free_.reserve(total_blocks);
  for (int64_t b = total_blocks - 1; b >= 0; --b) c->free_.push_back(static_cast<int32_t>(b));
  c->info_.resize(static_cast<size_t>(total_blocks));
  return c;
}

int32_t KvCache::TakeBlock() {
  int32_t b = -1;
  if (!free_.empty()) {
    b = free_.back();
    free_.pop_back();
  } else {
    // Evict the least recently used cached block: its entry goes, and any entry naming it as parent stops
    // matching (the serial it recorded is gone with it).
    b = lru_.front();
    lru_.pop_front();
    BlockInfo& old = info_[b];
    auto [first, last] = table_.equal_range(Key(old.parent, old.parent_serial, old.tokens));
    for (auto it = first; it != last; ++it) {
      if (it->second == b) {
        table_.erase(it);
        break;
      }
    }
    old = BlockInfo{};
    --cached_;
  }
  info_[b].refs = 1;
  return b;
}

Status KvCache::Reserve(KvSequence* seq, int64_t positions) {
  if (positions <= seq->reserved) return Status::Ok();
  const int64_t needed = BlocksFor(positions) - static_cast<int64_t>(seq->blocks.size());
  if (needed > free_blocks())
    return Status::ResourceExhausted(
        fmt::format("KV cache: {} more blocks needed, {} free of {}", needed, free_blocks(), total_blocks_));
  for (int64_t i = 0; i < needed; ++i) seq->blocks.push_back(TakeBlock());
  seq->reserved = static_cast<int64_t>(seq->blocks.size()) * block_tokens_;
  return Status::Ok();
}

void KvCache::Release(KvSequence* seq) {
  // Last block first: of a released chain the parents end up the more recently used, so eviction takes the
  // children first and a cached prefix stays whole as long as it can.
  for (auto it = seq->blocks.rbegin(); it != seq->blocks.rend(); ++it) {
    BlockInfo& b = info_[*it];
    if (--b.refs > 0) continue;
    if (b.registered) {
      b.lru = lru_.insert(lru_.end(), *it);
    } else {
      free_.push_back(*it);
    }
  }
  seq->blocks.clear();
  seq->length = 0;
  seq->reserved = 0;
  seq->registered = 0;
}

uint64_t KvCache::Key(int32_t parent, uint64_t parent_serial, std::span<const int64_t> tokens) {
  // FNV-1a over the parent and the token ids; Find compares the whole key, so a collision costs a lookup only.
  uint64_t h = 1469598103934665603ull;
  auto mix = [&h](uint64_t v) {
    for (int i = 0; i < 8; ++i) {
      h ^= (v >> (8 * i)) & 0xff;
      h *= 1099511628211ull;
    }
  };
  mix(static_cast<uint64_t>(static_cast<int64_t>(parent)));
  mix(parent_serial);
  for (int64_t t : tokens) mix(static_cast<uint64_t>(t));
  return h;
}

int32_t KvCache::Find(int32_t parent, uint64_t parent_serial, std::span<const int64_t> tokens) const {
  auto [first, last] = table_.equal_range(Key(parent, parent_serial, tokens));
  for (auto it = first; it != last; ++it) {
    const BlockInfo& b = info_[it->second];
    if (b.parent == parent && b.parent_serial == parent_serial &&
        std::equal(b.tokens.begin(), b.tokens.end(), tokens.begin(), tokens.end()))
      return it->second;
  }
  return -1;
}

int64_t KvCache::MatchPrefix(std::span<const int64_t> tokens, KvSequence* seq) {
  if (!seq->blocks.empty() || tokens.empty()) return 0;
  const int64_t whole = (static_cast<int64_t>(tokens.size()) - 1) / block_tokens_;  // one token left to compute
  int32_t parent = -1;
  uint64_t parent_serial = 0;
  for (int64_t i = 0; i < whole; ++i) {
    const int32_t b = Find(parent, parent_serial, tokens.subspan(i * block_tokens_, block_tokens_));
    if (b < 0) break;
    BlockInfo& info = info_[b];
    if (info.refs++ == 0) lru_.erase(info.lru);
    seq->blocks.push_back(b);
    parent = b;
    parent_serial = info.serial;
  }
  seq->registered = static_cast<int64_t>(seq->blocks.size());
  seq->length = seq->reserved = seq->registered * block_tokens_;
  return seq->length;
}

void KvCache::Register(std::span<const int64_t> tokens, int64_t written, KvSequence* seq) {
  const int64_t whole = std::min({written, seq->length, static_cast<int64_t>(tokens.size())}) / block_tokens_;
  for (int64_t i = seq->registered; i < whole; ++i) {
    const int32_t parent = i == 0 ? -1 : seq->blocks[i - 1];
    const uint64_t parent_serial = parent < 0 ? 0 : info_[parent].serial;
    const auto block_tokens = tokens.subspan(i * block_tokens_, block_tokens_);
    if (Find(parent, parent_serial, block_tokens) >= 0) return;  // the same block is cached already
    const int32_t b = seq->blocks[i];
    BlockInfo& info = info_[b];
    info.registered = true;
    info.serial = next_serial_++;
    info.parent = parent;
    info.parent_serial = parent_serial;
    info.tokens.assign(block_tokens.begin(), block_tokens.end());
    table_.emplace(Key(parent, parent_serial, block_tokens), b);
    ++cached_;
    seq->registered = i + 1;
  }
}

std::byte* KvCache::Run(int32_t block, int cache, int head) const {
  const int64_t run = block_tokens_ * shape_.head_size;
  return pool_.get() + (block * floats_per_block_ + (int64_t{cache} * shape_.kv_heads + head) * run) * element_bytes_;
}

Result<std::vector<Tensor>> KvCache::Gather(std::span<const KvSequence* const> rows, int64_t width) const {
  const int64_t batch = static_cast<int64_t>(rows.size());
  const int64_t d = shape_.head_size;
  std::vector<Tensor> past;
  past.reserve(shape_.layers * 2);
  for (int cache = 0; cache < shape_.layers * 2; ++cache) {
    HONE_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(DataType::kFp32, {batch, shape_.kv_heads, width, d}));
    float* out = t.mutable_values<float>().data();
    for (int64_t r = 0; r < batch; ++r) {
      const KvSequence& seq = *rows[r];
      for (int h = 0; h < shape_.kv_heads; ++h) {
        float* dest = out + ((r * shape_.kv_heads + h) * width) * d;
        for (int64_t pos = 0; pos < seq.length; pos += block_tokens_) {
          const int64_t n = std::min(block_tokens_, seq.length - pos);
          const std::byte* src = Run(seq.blocks[pos / block_tokens_], cache, h);
          if (dtype_ == KvDtype::kFloat16)
            HalfToFloat(reinterpret_cast<const uint16_t*>(src), dest + pos * d, static_cast<size_t>(n * d));
          else
            std::memcpy(dest + pos * d, src, n * d * sizeof(float));
        }
      }
    }
    past.push_back(std::move(t));
  }
  return past;
}

void KvCache::Advance(KvSequence* seq, int64_t count) const {
  assert(seq->length + count <= seq->reserved);
  seq->length += count;
}

Result<Tensor> KvCache::Pool() const {
  if (dtype_ == KvDtype::kFloat32)
    return Status::FailedPrecondition("KV cache: a paged decoder needs float16 or int8 blocks, these are float32");
  return Tensor::Borrow(dtype_ == KvDtype::kInt8 ? DataType::kInt8 : DataType::kFp16,
                        {total_blocks_, shape_.layers, 2, shape_.kv_heads, block_tokens_, shape_.head_size},
                        pool_.get(), static_cast<size_t>(total_blocks_ * floats_per_block_ * element_bytes_));
}

Result<Tensor> KvCache::Scales() const {
  if (dtype_ != KvDtype::kInt8)
    return Status::FailedPrecondition(
        fmt::format("KV cache: only int8 blocks have scales, these are {}", KvDtypeName(dtype_)));
  const int64_t groups = shape_.head_size / kKvGroup;
  return Tensor::Borrow(DataType::kFp16, {total_blocks_, shape_.layers, 2, shape_.kv_heads, block_tokens_, groups},
                        scales_.get(), static_cast<size_t>(total_blocks_ * scales_per_block()) * sizeof(uint16_t));
}

void KvCache::Append(std::span<const Tensor> present, int64_t row, int64_t from, int64_t count, KvSequence* seq) {
  const int64_t d = shape_.head_size;
  for (int cache = 0; cache < shape_.layers * 2; ++cache) {
    const Tensor& t = present[cache];
    const int64_t slots = t.shape()[2];
    const float* in = t.values<float>().data();
    for (int h = 0; h < shape_.kv_heads; ++h) {
      const float* src = in + ((row * shape_.kv_heads + h) * slots + from) * d;
      for (int64_t i = 0; i < count;) {
        const int64_t pos = seq->length + i;
        const int64_t offset = pos % block_tokens_;
        const int64_t n = std::min(block_tokens_ - offset, count - i);
        std::byte* dest = Run(seq->blocks[pos / block_tokens_], cache, h) + offset * d * element_bytes_;
        if (dtype_ == KvDtype::kFloat16)
          FloatToHalf(src + i * d, reinterpret_cast<uint16_t*>(dest), static_cast<size_t>(n * d));
        else
          std::memcpy(dest, src + i * d, n * d * sizeof(float));
        i += n;
      }
    }
  }
  seq->length += count;
}

void KvCache::RoundLikeBlocks(std::span<Tensor> present, int64_t slot) const {
  if (dtype_ != KvDtype::kFloat16) return;
  const int64_t d = shape_.head_size;
  std::vector<uint16_t> half(static_cast<size_t>(d));
  for (Tensor& t : present) {
    const int64_t rows = t.shape()[0], slots = t.shape()[2];
    float* values = t.mutable_values<float>().data();
    for (int64_t r = 0; r < rows; ++r)
      for (int h = 0; h < shape_.kv_heads; ++h) {
        float* at = values + ((r * shape_.kv_heads + h) * slots + slot) * d;
        FloatToHalf(at, half.data(), static_cast<size_t>(d));
        HalfToFloat(half.data(), at, static_cast<size_t>(d));
      }
  }
}

}  // namespace hone::generate
