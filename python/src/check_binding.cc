#include "check_binding.h"

#include <string>

#include <nanobind/stl/string.h>
#include <onnx/onnx_pb.h>

#include "onnx/graph_io.h"
#include "onnx/model_file.h"
#include "status_binding.h"

namespace nb = nanobind;

namespace hone::python {
namespace {

// Reads `path` and runs ONNX's checker and shape inference on it; raises InvalidArgumentError with libonnx's
// message ("ONNX checker: ...", "ONNX shape inference: ...") when either finds the graph wrong.
void CheckOnnx(const std::string& path) {
  nb::gil_scoped_release unlocked;
  ::onnx::ModelProto model;
  ThrowIfError(onnx::ReadModelProto(path, &model));
  ThrowIfError(onnx::CheckModel(model));
  ThrowIfError(onnx::InferShapes(&model));
}

}  // namespace

void RegisterChecks(nb::module_& m) {
  m.def("check_onnx", &CheckOnnx, nb::arg("path"), "ONNX's checker and shape inference on a model file.");
}

}  // namespace hone::python
