// The dictionary inside a .npy header, e.g. {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }.
// numpy writes it with Python's repr and reads it back as a Python literal; this parses the subset of Python
// literal syntax that such a header can hold (strings, ints, True/False/None, tuples, lists, one dict) without
// evaluating anything, and is bounded in depth so that hostile input cannot exhaust the stack.
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"
#include "tensor/shape.h"

namespace hone {

struct NpyHeader {
  // The dtype as numpy spells it ("<f4", "|b1", ">i8"). A structured dtype (a list) is kept as its source text
  // with `descr_is_string` false, so that the caller can name it in an "unsupported dtype" error.
  std::string descr;
  bool descr_is_string = true;
  bool fortran_order = false;
  Shape shape;
};

// Parses the header text (after the magic, version and length). Requires exactly the keys 'descr',
// 'fortran_order' and 'shape', as numpy does; 'shape' must be a tuple of non-negative integers. Errors are
// InvalidArgument, prefixed with `what`.
Result<NpyHeader> ParseNpyHeaderDict(std::string_view text, std::string_view what);

// The dict as numpy writes it ("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"), unpadded.
std::string FormatNpyHeaderDict(const NpyHeader& header);

}  // namespace hone
