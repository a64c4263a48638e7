// Test helpers: copies of an ONNX model with one FP32 weight tensor changed, for checks that must catch a changed
// model. Header-only so that it stays out of the hone_check library; needs onnx_proto and protobuf.
#pragma once

#include <fstream>
#include <functional>
#include <span>
#include <string>

#include "onnx/onnx_pb.h"

namespace hone::check::testing {

// Reads `model_path`, passes initializer `tensor`'s values (FP32, raw_data or float_data) to `edit`, and writes the
// result to `out_path`. Returns an empty string on success, else what went wrong.
inline std::string EditWeights(const std::string& model_path, const std::string& tensor, const std::string& out_path,
                               const std::function<void(std::span<float>)>& edit) {
  ::onnx::ModelProto model;
  std::ifstream in(model_path, std::ios::binary);
  if (!in || !model.ParseFromIstream(&in)) return "cannot read " + model_path;
  for (auto& init : *model.mutable_graph()->mutable_initializer()) {
    if (init.name() != tensor) continue;
    if (init.data_type() != ::onnx::TensorProto::FLOAT) return tensor + " is not FP32";
    if (init.has_raw_data()) {
      std::string raw = init.raw_data();
      edit({reinterpret_cast<float*>(raw.data()), raw.size() / sizeof(float)});
      init.set_raw_data(raw);
    } else {
      edit({init.mutable_float_data()->mutable_data(), static_cast<size_t>(init.float_data_size())});
    }
    std::ofstream out(out_path, std::ios::binary | std::ios::trunc);
    if (!out || !model.SerializeToOstream(&out)) return "cannot write " + out_path;
    return "";
  }
  return "no initializer named " + tensor;
}

// A copy of `model_path` with initializer `tensor` multiplied by `factor`.
inline std::string ScaleWeights(const std::string& model_path, const std::string& tensor, float factor,
                                const std::string& out_path) {
  return EditWeights(model_path, tensor, out_path, [factor](std::span<float> w) {
    for (float& v : w) v *= factor;
  });
}

}  // namespace hone::check::testing
