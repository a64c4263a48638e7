// Builds a zip archive in memory, as far as .npz needs: entries stored (method 0) or raw-deflated (method 8), with
// zip64 records when sizes or offsets need them (or always, when asked, as numpy's savez does). Timestamps are a
// fixed 1980-01-01 so that the same tensors always give the same bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace hone {

class ZipWriter {
 public:
  // force_zip64 writes zip64 extra fields and end records even when everything fits in 32 bits; readers must
  // handle both, and this lets tests exercise the zip64 paths without 4 GiB of data.
  explicit ZipWriter(bool force_zip64 = false) : force_zip64_(force_zip64) {}

  // Appends an entry named `name`, deflated when `compress`, else stored. InvalidArgument for an empty or
  // over-long (> 65535 bytes) name; duplicate names are the caller's to prevent.
  Status Add(std::string_view name, std::span<const std::byte> contents, bool compress);

  // Appends the central directory and end records and returns the whole archive. Call once, last.
  std::string Finish();

 private:
  struct Entry {
    std::string name;
    uint16_t method;
    uint16_t flags;
    uint32_t crc;
    uint64_t compressed_size;
    uint64_t uncompressed_size;
    uint64_t offset;  // of the local header
    bool zip64_sizes;
  };

  bool force_zip64_;
  std::string out_;
  std::vector<Entry> entries_;
};

}  // namespace hone
