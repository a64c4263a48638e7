#include "client/body_buffer.h"

#include <simdjson.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace hone::client {

static_assert(BodyBuffer::kPadding >= simdjson::SIMDJSON_PADDING, "simdjson needs this much readable padding");

BodyBuffer& BodyBuffer::operator=(BodyBuffer&& other) noexcept {
  if (this != &other) {
    storage_ = std::move(other.storage_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    capacity_ = std::exchange(other.capacity_, 0);
    aligned_offset_ = std::exchange(other.aligned_offset_, 0);
  }
  return *this;
}

void BodyBuffer::Reset(size_t expected_size, size_t aligned_offset) {
  size_ = 0;
  aligned_offset_ = aligned_offset;
  if (!storage_ || capacity_ < expected_size || (reinterpret_cast<uintptr_t>(data_) + aligned_offset) % kAlignment)
    Grow(std::max<size_t>(expected_size, 256));
}

void BodyBuffer::Grow(size_t min_capacity) {
  // kAlignment of slack lets data_ shift so that data_ + aligned_offset_ is aligned; padding is zeroed so that
  // whatever reads it sees defined bytes.
  const size_t total = min_capacity + kAlignment + kPadding;
  auto storage = std::unique_ptr<std::byte[]>(new std::byte[total]);
  const uintptr_t base = reinterpret_cast<uintptr_t>(storage.get());
  const size_t shift = (kAlignment - (base + aligned_offset_) % kAlignment) % kAlignment;
  std::byte* data = storage.get() + shift;
  if (size_) std::memcpy(data, data_, size_);
  std::memset(data + min_capacity, 0, kPadding);
  storage_ = std::move(storage);
  data_ = data;
  capacity_ = min_capacity;
}

std::span<std::byte> BodyBuffer::Prepare(size_t n) {
  if (!storage_ || capacity_ - size_ < n) Grow(std::max(size_ + n, capacity_ * 2));
  return {data_ + size_, n};
}

void BodyBuffer::Append(const void* bytes, size_t n) {
  if (n == 0) return;
  std::memcpy(Prepare(n).data(), bytes, n);
  Commit(n);
}

}  // namespace hone::client
