// NumPy's .npz format: a zip archive of "<name>.npy" entries, as np.savez (stored) and np.savez_compressed
// (deflated) write it, read and written as named hone Tensors. See npy.h for which dtypes map to what, and
// zip_reader.h for what is checked in the archive.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "tensor/tensor.h"

namespace hone {

struct NamedTensor {
  std::string name;  // the entry name without ".npy", as np.load's keys
  Tensor tensor;
};

// Parses a whole .npz held in memory, keeping archive order. `what` names the source in errors ("file 'x.npz'");
// each array's errors name it too ("array 'a' in file 'x.npz'"). InvalidArgument for a malformed archive or
// array, an entry whose name does not end in ".npy" or duplicate names; DataLoss for a CRC-32 mismatch or
// corrupt deflate data; Unimplemented for encryption, other compression methods and unsupported dtypes.
Result<std::vector<NamedTensor>> ParseNpz(std::span<const std::byte> bytes, std::string_view what);
// Reads and parses `path`; NotFound (naming the path) when it is missing or unreadable.
Result<std::vector<NamedTensor>> ReadNpz(const std::string& path);

// The .npz bytes: one "<name>.npy" entry per tensor, in order, deflated when `compress`. InvalidArgument for an
// empty or duplicate name; EncodeNpy's errors (BF16 is Unimplemented) name the tensor.
Result<std::string> EncodeNpz(const std::vector<NamedTensor>& tensors, bool compress);
// EncodeNpz, then writes the file (see WriteFileBytes for the error codes).
Status WriteNpz(const std::string& path, const std::vector<NamedTensor>& tensors, bool compress);

}  // namespace hone
