// numpy's fixed-width string dtypes as BYTES tensors: "|S<n>" (bytes, n a element, NUL-padded) and "<U<n>" / ">U<n>"
// (n UTF-32 code points a element, NUL-padded), the arrays `np.array(["a", "bc"])` and `np.array([b"a", b"bc"])`
// make. Trailing NULs are dropped as numpy drops them when it reads an element; U elements become UTF-8.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

#include "base/result.h"
#include "tensor/npy_header.h"
#include "tensor/tensor.h"

namespace hone {

// The BYTES tensor for `header` and its `data`, or nullopt when the dtype is not a string dtype. InvalidArgument
// naming `what` when the data's size does not match, a U element is not a valid code point, or the array is in
// Fortran order (numpy writes string arrays in C order unless asked).
Result<std::optional<Tensor>> ParseNpyStrings(const NpyHeader& header, std::span<const std::byte> data,
                                              std::string_view what);

}  // namespace hone
