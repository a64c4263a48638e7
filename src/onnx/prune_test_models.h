// Feed-forward blocks built in code for the pruning tests (the part's and the command line's). Header-only.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "onnx/quantize_test_models.h"

namespace hone::onnx::testing {

inline void SetScalar(::onnx::GraphProto* g, const std::string& name, float value) {
  auto* t = AddFloatInitializer(g, name, {});
  t->set_raw_data(std::string(reinterpret_cast<const char*>(&value), 4));
}

inline void SetValues(::onnx::TensorProto* t, const std::vector<float>& v) {
  t->set_raw_data(std::string(reinterpret_cast<const char*>(v.data()), v.size() * 4));
}

// y = GELU(x @ W1 + b1) @ W2 + b2 with GELU as torch.onnx writes it (Div, Erf, Add, Mul, Mul): x [N, T, 4],
// W1 [4, width], b1 [width], W2 [width, 4], b2 [4]; and `mask_out` = Cast(attention_mask) when `with_mask`
// (an input [N, T] the way a text encoder has one). With `duplicate_half`, neurons width/2.. repeat the first half
// (the same W1 columns and b1 entries) and their W2 rows are a hundredth of the first half's: the second half holds
// nothing the first does not, so pruning half with the refit loses nothing.
inline ::onnx::ModelProto FfnModel(int64_t width = 8, bool with_mask = false, bool duplicate_half = false) {
  auto m = EmptyModel("ffn");
  auto* g = m.mutable_graph();
  SetTensorType(g->add_input(), "x", ::onnx::TensorProto::FLOAT, {"N", "T", 4});
  SetTensorType(g->add_output(), "y", ::onnx::TensorProto::FLOAT, {"N", "T", 4});
  auto* w1 = AddRandomInitializer(g, "W1", {4, width}, 31);
  auto* b1 = AddRandomInitializer(g, "b1", {width}, 32, 0.5f);
  auto* w2 = AddRandomInitializer(g, "W2", {width, 4}, 33);
  AddRandomInitializer(g, "b2", {4}, 34, 0.5f);
  if (duplicate_half) {
    const int64_t half = width / 2;
    auto v1 = RandomValues(static_cast<size_t>(4 * width), 31), vb = RandomValues(static_cast<size_t>(width), 32),
         v2 = RandomValues(static_cast<size_t>(width * 4), 33);
    for (int64_t j = half; j < width; ++j) {
      for (int64_t r = 0; r < 4; ++r) v1[static_cast<size_t>(r * width + j)] = v1[static_cast<size_t>(r * width + j - half)];
      vb[static_cast<size_t>(j)] = vb[static_cast<size_t>(j - half)];
      for (int64_t o = 0; o < 4; ++o) v2[static_cast<size_t>(j * 4 + o)] = 0.01f * v2[static_cast<size_t>((j - half) * 4 + o)];
    }
    SetValues(w1, v1);
    SetValues(b1, vb);
    SetValues(w2, v2);
  }
  SetScalar(g, "sqrt2", std::sqrt(2.0f));
  SetScalar(g, "one", 1.0f);
  SetScalar(g, "half", 0.5f);
  AddNode(g, "MatMul", {"x", "W1"}, {"u"})->set_name("up");
  AddNode(g, "Add", {"u", "b1"}, {"ub"})->set_name("up_bias");
  AddNode(g, "Div", {"ub", "sqrt2"}, {"d"})->set_name("gelu_div");
  AddNode(g, "Erf", {"d"}, {"e"})->set_name("gelu_erf");
  AddNode(g, "Add", {"e", "one"}, {"e1"})->set_name("gelu_add");
  AddNode(g, "Mul", {"ub", "e1"}, {"m"})->set_name("gelu_mul");
  AddNode(g, "Mul", {"m", "half"}, {"h"})->set_name("gelu_half");
  AddNode(g, "MatMul", {"h", "W2"}, {"v"})->set_name("down");
  AddNode(g, "Add", {"v", "b2"}, {"y"})->set_name("down_bias");
  if (with_mask) {
    SetTensorType(g->add_input(), "attention_mask", ::onnx::TensorProto::INT64, {"N", "T"});
    SetTensorType(g->add_output(), "mask_out", ::onnx::TensorProto::FLOAT, {"N", "T"});
    IntAttribute(AddNode(g, "Cast", {"attention_mask"}, {"mask_out"}), "to", ::onnx::TensorProto::FLOAT);
  }
  return m;
}

}  // namespace hone::onnx::testing
