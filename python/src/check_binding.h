// The checks hone.export runs on a model file before trusting it: ONNX's checker and shape inference (libonnx,
// through hone's onnx part).
#pragma once

#include <nanobind/nanobind.h>

namespace hone::python {

void RegisterChecks(nanobind::module_& m);

}  // namespace hone::python
