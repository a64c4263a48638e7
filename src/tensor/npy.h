// NumPy's .npy format (https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html), read and written
// as hone Tensors.
//
// Reading accepts format versions 1.0, 2.0 and 3.0 and the dtypes that map onto a hone DataType: b1 (BOOL),
// u1/u2/u4/u8, i1/i2/i4/i8, f2 (FP16), f4, f8, in '<', '|', '=' or '>' byte order. Big-endian ('>') data is
// byte-swapped to native order and Fortran-order data is transposed to C order, so the result is always a
// row-major native-endian tensor that owns a copy of the data. numpy's string dtypes (S, U) become BYTES tensors
// (npy_strings.h). Anything else (objects, complex,
// structured dtypes) is Unimplemented, naming the dtype; every malformed file is InvalidArgument naming the source
// and what was expected. No input, however hostile, reads outside `bytes`.
//
// Writing produces version 1.0 (2.0 only if the header would not fit in 1.0's 64 KiB, which needs thousands of
// dimensions), little-endian, C order, with the header padded so that the data starts at a multiple of 64 bytes,
// as numpy does. BF16 has no numpy dtype, so writing it is Unimplemented.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include "base/result.h"
#include "tensor/tensor.h"

namespace hone {

// Parses a whole .npy file held in memory. `what` names the source in errors, e.g. "file 'x.npy'" or
// "array 'image' in file 'test.npz'".
Result<Tensor> ParseNpy(std::span<const std::byte> bytes, std::string_view what);
// Reads and parses `path`; NotFound (naming the path) when it is missing or unreadable.
Result<Tensor> ReadNpy(const std::string& path);

// The .npy bytes for `tensor`. Unimplemented for BF16 and BYTES, InvalidArgument for an empty Tensor.
Result<std::string> EncodeNpy(const Tensor& tensor);
// EncodeNpy, then writes the file (see WriteFileBytes for the error codes).
Status WriteNpy(const std::string& path, const Tensor& tensor);

// The numpy dtype string for `type` ("<f4", "|b1"); empty when numpy has none (BF16, BYTES, invalid).
std::string_view NpyDescr(DataType type);

}  // namespace hone
