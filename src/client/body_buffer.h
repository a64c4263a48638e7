// The bytes of one received body (a request on the server, a reply on the client), laid out so that the codecs can
// use them in place:
//  - the binary section (after the JSON header of the binary tensor data extension) starts on a 64-byte boundary,
//    so input tensors can borrow it without a copy (a borrowed tensor must be aligned for its element type);
//  - at least kPadding readable bytes follow the end, so simdjson parses the JSON header without copying it.
// Move-only; moving keeps data() where it was, so tensors may point into a BodyBuffer that is moved into a
// shared_ptr afterwards.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <utility>

namespace hone::client {

class BodyBuffer {
 public:
  static constexpr size_t kAlignment = 64;
  static constexpr size_t kPadding = 64;  // >= SIMDJSON_PADDING (checked in the .cc)

  BodyBuffer() = default;
  // The moved-from buffer is left empty (no storage, size 0), ready for Reset or Append.
  BodyBuffer(BodyBuffer&& other) noexcept { *this = std::move(other); }
  BodyBuffer& operator=(BodyBuffer&& other) noexcept;

  // Empties the buffer and reserves `expected_size` bytes, arranging for byte `aligned_offset` (the JSON header's
  // length, or 0) to fall on a kAlignment boundary.
  void Reset(size_t expected_size, size_t aligned_offset);
  // Appends bytes, growing (and copying, keeping the alignment) when the reservation is exceeded.
  void Append(const void* bytes, size_t n);
  // Room for `n` more bytes, to be filled by the caller and then committed with Commit(n).
  std::span<std::byte> Prepare(size_t n);
  void Commit(size_t n) { size_ += n; }

  const std::byte* data() const { return data_; }
  std::byte* data() { return data_; }
  size_t size() const { return size_; }
  // Bytes readable from data(): size() plus at least kPadding (0 before anything was reserved).
  size_t readable() const { return storage_ ? capacity_ + kPadding : 0; }
  std::span<const std::byte> bytes() const { return {data_, size_}; }

 private:
  void Grow(size_t min_capacity);

  std::unique_ptr<std::byte[]> storage_;
  std::byte* data_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;  // usable bytes from data_, not counting the padding
  size_t aligned_offset_ = 0;
};

}  // namespace hone::client
