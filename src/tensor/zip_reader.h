// Reads zip archives held in memory, as far as .npz needs: stored and deflated entries, with or without zip64,
// found through the central directory. Every offset and size is checked against the buffer before use, so a
// corrupt or hostile archive gives an error, never an out-of-bounds read or a huge allocation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace hone {

struct ZipEntry {
  std::string name;                  // as stored (bytes; UTF-8 when the archive says so)
  uint16_t method = 0;               // 0 stored, 8 deflate; nothing else is listed
  uint32_t crc32 = 0;                // of the uncompressed contents, from the central directory
  uint64_t uncompressed_size = 0;
  std::span<const std::byte> data;   // the stored or deflated bytes, inside the archive
};

// The entries of the central directory, in archive order. InvalidArgument (prefixed with `what`) for anything
// malformed; Unimplemented for split archives, encryption and compression methods other than stored and deflate;
// InvalidArgument for two entries with the same name.
Result<std::vector<ZipEntry>> ListZipEntries(std::span<const std::byte> archive, std::string_view what);

// The uncompressed contents of `entry`, its CRC-32 checked (DataLoss naming the entry on a mismatch or on corrupt
// deflate data). A stored entry's contents are a view into the archive; a deflated one is inflated into
// `scratch` (overwritten) and the result views that.
Result<std::span<const std::byte>> ReadZipEntry(const ZipEntry& entry, std::vector<std::byte>& scratch,
                                                std::string_view what);

}  // namespace hone
