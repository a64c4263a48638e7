// Little-endian loads and stores on byte buffers, for the file formats in this folder (.npy headers, zip records)
// and the length prefixes of BYTES elements.
// They go through memcpy-free byte arithmetic so that they need no alignment and read the same on any host.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace hone::le {

// Reads N bytes at p as an unsigned little-endian integer. The caller has checked that the bytes exist.
template <typename T>
T Load(const std::byte* p) {
  T v = 0;
  for (size_t i = 0; i < sizeof(T); ++i) v |= static_cast<T>(static_cast<T>(p[i]) << (8 * i));
  return v;
}

inline uint16_t Load16(const std::byte* p) { return Load<uint16_t>(p); }
inline uint32_t Load32(const std::byte* p) { return Load<uint32_t>(p); }
inline uint64_t Load64(const std::byte* p) { return Load<uint64_t>(p); }

// Appends v to out as sizeof(T) little-endian bytes.
template <typename T>
void Append(std::string& out, T v) {
  for (size_t i = 0; i < sizeof(T); ++i) out.push_back(static_cast<char>((static_cast<uint64_t>(v) >> (8 * i)) & 0xFF));
}

inline void Append16(std::string& out, uint16_t v) { Append(out, v); }
inline void Append32(std::string& out, uint32_t v) { Append(out, v); }
inline void Append64(std::string& out, uint64_t v) { Append(out, v); }

// Writes v at p as 4 little-endian bytes. The caller has checked that the bytes exist.
inline void Store32(std::byte* p, uint32_t v) {
  for (size_t i = 0; i < 4; ++i) p[i] = static_cast<std::byte>((v >> (8 * i)) & 0xFF);
}

}  // namespace hone::le
