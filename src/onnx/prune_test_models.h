// Feed-forward blocks built in code for the pruning tests (the part's and the command line's). Header-only.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "onnx/quantize_test_models.h"

namespace hone::onnx::testing {

// The dims of the model's initializer `name`; empty when there is none.
inline std::vector<int64_t> InitializerDims(const ::onnx::ModelProto& m, const std::string& name) {
  for (const auto& t : m.graph().initializer())
    if (t.name() == name) return {t.dims().begin(), t.dims().end()};
  return {};
}

inline void SetScalar(::onnx::GraphProto* g, const std::string& name, float value) {
  auto* t = AddFloatInitializer(g, name, {});
  t->set_raw_data(std::string(reinterpret_cast<const char*>(&value), 4));
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

namespace hone::onnx::testing {

// An INT64 initializer: a vector, or a scalar (no dims) with `scalar`.
inline void SetInt64(::onnx::GraphProto* g, const std::string& name, const std::vector<int64_t>& values,
                     bool scalar = false) {
  auto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(::onnx::TensorProto::INT64);
  if (!scalar) t->add_dims(static_cast<int64_t>(values.size()));
  t->set_raw_data(std::string(reinterpret_cast<const char*>(values.data()), values.size() * 8));
}

// Multi-head self-attention as torch.onnx writes it (BERT's): x [N, T, 8]; Q, K, V = x @ W + b with W [8, 8];
// each reshaped to [N, T, 2, 4] by Concat(batch, sequence, [2], [4]) (batch and sequence read by Shape and Gather),
// transposed to [N, 2, T, 4] (K to [N, 2, 4, T]); Softmax(Q K^T / 2) V; transposed back and reshaped to [N, T, 8]
// by Concat(batch, sequence, [8]); y = context @ Wo + bo. With `duplicate_head`, head 1's Q, K and V columns (and
// biases) repeat head 0's, so head 1 computes exactly what head 0 does and pruning one of them loses nothing once
// the output projection is refitted.
inline ::onnx::ModelProto AttentionBlockModel(bool duplicate_head = false) {
  auto m = EmptyModel("mha");
  auto* g = m.mutable_graph();
  SetTensorType(g->add_input(), "x", ::onnx::TensorProto::FLOAT, {"N", "T", 8});
  SetTensorType(g->add_output(), "y", ::onnx::TensorProto::FLOAT, {"N", "T", 8});
  const char* names[3] = {"q", "k", "v"};
  for (int p = 0; p < 3; ++p) {
    auto* w = AddRandomInitializer(g, std::string("W") + names[p], {8, 8}, 41 + p);
    auto* b = AddRandomInitializer(g, std::string("b") + names[p], {8}, 51 + p, 0.2f);
    if (duplicate_head) {
      auto vw = RandomValues(64, 41 + p), vb = RandomValues(8, 51 + p, -0.2f, 0.2f);
      for (int r = 0; r < 8; ++r)
        for (int c = 4; c < 8; ++c) vw[static_cast<size_t>(r * 8 + c)] = vw[static_cast<size_t>(r * 8 + c - 4)];
      for (int c = 4; c < 8; ++c) vb[static_cast<size_t>(c)] = vb[static_cast<size_t>(c - 4)];
      SetValues(w, vw);
      SetValues(b, vb);
    }
  }
  AddRandomInitializer(g, "Wo", {8, 8}, 61);
  AddRandomInitializer(g, "bo", {8}, 62, 0.2f);
  SetInt64(g, "zero", {0});
  SetInt64(g, "heads", {2});
  SetInt64(g, "size", {4});
  SetInt64(g, "width", {8});
  SetScalar(g, "scale", 2.0f);
  // Batch and sequence as torch.onnx reads them: Shape, Gather (a scalar index), Unsqueeze.
  auto dims_of = [&](const std::string& value, const std::string& tag) {
    AddNode(g, "Shape", {value}, {tag + "_shape"})->set_name(tag + "_shape");
    SetInt64(g, tag + "_ib", {0}, true);
    SetInt64(g, tag + "_it", {1}, true);
    auto* gb = AddNode(g, "Gather", {tag + "_shape", tag + "_ib"}, {tag + "_b1"});
    gb->set_name(tag + "_gather_b");
    auto* gt = AddNode(g, "Gather", {tag + "_shape", tag + "_it"}, {tag + "_t1"});
    gt->set_name(tag + "_gather_t");
    AddNode(g, "Unsqueeze", {tag + "_b1", "zero"}, {tag + "_b"})->set_name(tag + "_unsqueeze_b");
    AddNode(g, "Unsqueeze", {tag + "_t1", "zero"}, {tag + "_t"})->set_name(tag + "_unsqueeze_t");
  };
  for (int p = 0; p < 3; ++p) {
    const std::string n = names[p];
    AddNode(g, "MatMul", {"x", "W" + n}, {n + "_mm"})->set_name(n + "_proj");
    AddNode(g, "Add", {"b" + n, n + "_mm"}, {n + "_add"})->set_name(n + "_bias");
    dims_of(n + "_add", n);
    AddNode(g, "Concat", {n + "_b", n + "_t", "heads", "size"}, {n + "_shape4"})->set_name(n + "_concat");
    IntAttribute(g->mutable_node(g->node_size() - 1), "axis", 0);
    AddNode(g, "Reshape", {n + "_add", n + "_shape4"}, {n + "_heads"})->set_name(n + "_reshape");
    auto* t = AddNode(g, "Transpose", {n + "_heads"}, {n + "_t4"});
    t->set_name(n + "_transpose");
    IntsAttribute(t, "perm", p == 1 ? std::vector<int64_t>{0, 2, 3, 1} : std::vector<int64_t>{0, 2, 1, 3});
  }
  AddNode(g, "MatMul", {"q_t4", "k_t4"}, {"scores"})->set_name("qk");
  AddNode(g, "Div", {"scores", "scale"}, {"scaled"})->set_name("scale_div");
  IntAttribute(AddNode(g, "Softmax", {"scaled"}, {"probs"}), "axis", -1);
  g->mutable_node(g->node_size() - 1)->set_name("softmax");
  AddNode(g, "MatMul", {"probs", "v_t4"}, {"av"})->set_name("av");
  auto* back = AddNode(g, "Transpose", {"av"}, {"av_t"});
  back->set_name("av_transpose");
  IntsAttribute(back, "perm", {0, 2, 1, 3});
  dims_of("av_t", "c");
  AddNode(g, "Concat", {"c_b", "c_t", "width"}, {"c_shape3"})->set_name("c_concat");
  IntAttribute(g->mutable_node(g->node_size() - 1), "axis", 0);
  AddNode(g, "Reshape", {"av_t", "c_shape3"}, {"context"})->set_name("c_reshape");
  AddNode(g, "MatMul", {"context", "Wo"}, {"o_mm"})->set_name("out_proj");
  AddNode(g, "Add", {"o_mm", "bo"}, {"y"})->set_name("out_bias");
  return m;
}

}  // namespace hone::onnx::testing

namespace hone::onnx::testing {

// Random values of a [channels, per] tensor; with `duplicate_half`, rows channels/2.. repeat the first half.
inline std::vector<float> ChannelRows(int64_t channels, int64_t per, uint32_t seed, float low, float high,
                                      bool duplicate_half) {
  auto v = RandomValues(static_cast<size_t>(channels * per), seed, low, high);
  if (duplicate_half)
    for (int64_t c = channels / 2; c < channels; ++c)
      for (int64_t j = 0; j < per; ++j)
        v[static_cast<size_t>(c * per + j)] = v[static_cast<size_t>((c - channels / 2) * per + j)];
  return v;
}

// A small CNN as torch.onnx writes one: x [N, 1, 8, 8] -> Conv 1->c1 3x3 pad 1 (bias) -> BatchNormalization ->
// Relu -> MaxPool 2 -> Conv c1->c2 3x3 pad 1 (no bias) -> Relu -> Flatten -> Gemm (transB, [10, c2 x 16], bias)
// -> y [N, 10]. With `duplicate_half`, the second half of each Conv's output channels repeats the first half (the
// same filters, bias and BatchNormalization entries), so each Conv can lose half its channels and the next layer,
// refitted, computes exactly what it did.
inline ::onnx::ModelProto CnnModel(int64_t c1 = 8, int64_t c2 = 8, bool duplicate_half = false) {
  auto m = EmptyModel("cnn");
  auto* g = m.mutable_graph();
  SetTensorType(g->add_input(), "x", ::onnx::TensorProto::FLOAT, {"N", 1, 8, 8});
  SetTensorType(g->add_output(), "y", ::onnx::TensorProto::FLOAT, {"N", 10});
  auto values = [&](int64_t channels, int64_t per, uint32_t seed, float low, float high) {
    return ChannelRows(channels, per, seed, low, high, duplicate_half);
  };
  SetValues(AddRandomInitializer(g, "w1", {c1, 1, 3, 3}, 71), values(c1, 9, 71, -1, 1));
  SetValues(AddRandomInitializer(g, "b1", {c1}, 72), values(c1, 1, 72, -0.5f, 0.5f));
  SetValues(AddRandomInitializer(g, "bn_scale", {c1}, 73), values(c1, 1, 73, 0.5f, 1.5f));
  SetValues(AddRandomInitializer(g, "bn_bias", {c1}, 74), values(c1, 1, 74, -0.2f, 0.2f));
  SetValues(AddRandomInitializer(g, "bn_mean", {c1}, 75), values(c1, 1, 75, -0.1f, 0.1f));
  SetValues(AddRandomInitializer(g, "bn_var", {c1}, 76), values(c1, 1, 76, 0.5f, 1.5f));
  SetValues(AddRandomInitializer(g, "w2", {c2, c1, 3, 3}, 77), values(c2, c1 * 9, 77, -0.5f, 0.5f));
  AddRandomInitializer(g, "g", {10, c2 * 16}, 78, 0.2f);
  AddRandomInitializer(g, "gb", {10}, 79, 0.2f);
  auto* conv1 = AddNode(g, "Conv", {"x", "w1", "b1"}, {"c1"});
  conv1->set_name("conv1");
  IntsAttribute(conv1, "pads", {1, 1, 1, 1});
  AddNode(g, "BatchNormalization", {"c1", "bn_scale", "bn_bias", "bn_mean", "bn_var"}, {"n1"})->set_name("bn1");
  AddNode(g, "Relu", {"n1"}, {"r1"})->set_name("relu1");
  auto* pool = AddNode(g, "MaxPool", {"r1"}, {"p1"});
  pool->set_name("pool1");
  IntsAttribute(pool, "kernel_shape", {2, 2});
  IntsAttribute(pool, "strides", {2, 2});
  auto* conv2 = AddNode(g, "Conv", {"p1", "w2"}, {"c2"});
  conv2->set_name("conv2");
  IntsAttribute(conv2, "pads", {1, 1, 1, 1});
  AddNode(g, "Relu", {"c2"}, {"r2"})->set_name("relu2");
  AddNode(g, "Flatten", {"r2"}, {"f"})->set_name("flatten");
  IntAttribute(AddNode(g, "Gemm", {"f", "g", "gb"}, {"y"}), "transB", 1);
  g->mutable_node(g->node_size() - 1)->set_name("fc");
  return m;
}

}  // namespace hone::onnx::testing

namespace hone::onnx::testing {

// A residual block as torch.onnx writes a ResNet's (BatchNorms folded into the Convs): x [N, 1, 8, 8] -> stem Conv
// 1->8 3x3 pad 1 -> Relu -> s; a = Relu(Conv 8->8 (s)); t = Conv 8->8 (a) + s; out = Relu(t) -> Flatten -> Gemm
// (transB, [10, 8 x 64]) -> y. With `duplicate_half`, every Conv's channels 4..7 repeat 0..3 (filters and biases),
// so the stream and the block's inner channels can each lose half with the readers refitted exactly.
inline ::onnx::ModelProto ResidualModel(bool duplicate_half = false) {
  auto m = EmptyModel("resnet");
  auto* g = m.mutable_graph();
  SetTensorType(g->add_input(), "x", ::onnx::TensorProto::FLOAT, {"N", 1, 8, 8});
  SetTensorType(g->add_output(), "y", ::onnx::TensorProto::FLOAT, {"N", 10});
  auto rows = [&](int64_t channels, int64_t per, uint32_t seed, float low, float high) {
    return ChannelRows(channels, per, seed, low, high, duplicate_half);
  };
  SetValues(AddRandomInitializer(g, "stem_w", {8, 1, 3, 3}, 91), rows(8, 9, 91, -1, 1));
  SetValues(AddRandomInitializer(g, "stem_b", {8}, 92), rows(8, 1, 92, -0.3f, 0.3f));
  SetValues(AddRandomInitializer(g, "a_w", {8, 8, 3, 3}, 93), rows(8, 72, 93, -0.4f, 0.4f));
  SetValues(AddRandomInitializer(g, "a_b", {8}, 94), rows(8, 1, 94, -0.3f, 0.3f));
  SetValues(AddRandomInitializer(g, "b_w", {8, 8, 3, 3}, 95), rows(8, 72, 95, -0.4f, 0.4f));
  SetValues(AddRandomInitializer(g, "b_b", {8}, 96), rows(8, 1, 96, -0.3f, 0.3f));
  AddRandomInitializer(g, "head_w", {10, 8 * 64}, 97, 0.1f);
  AddRandomInitializer(g, "head_b", {10}, 98, 0.1f);
  auto conv = [&](const std::string& name, const std::string& in, const std::string& out) {
    auto* n = AddNode(g, "Conv", {in, name + "_w", name + "_b"}, {out});
    n->set_name(name);
    IntsAttribute(n, "pads", {1, 1, 1, 1});
  };
  conv("stem", "x", "stem_out");
  AddNode(g, "Relu", {"stem_out"}, {"s"})->set_name("stem_relu");
  conv("a", "s", "a_out");
  AddNode(g, "Relu", {"a_out"}, {"a_relu"})->set_name("a_relu");
  conv("b", "a_relu", "b_out");
  AddNode(g, "Add", {"b_out", "s"}, {"t"})->set_name("residual");
  AddNode(g, "Relu", {"t"}, {"out"})->set_name("out_relu");
  AddNode(g, "Flatten", {"out"}, {"flat"})->set_name("flatten");
  IntAttribute(AddNode(g, "Gemm", {"flat", "head_w", "head_b"}, {"y"}), "transB", 1);
  g->mutable_node(g->node_size() - 1)->set_name("head");
  return m;
}

}  // namespace hone::onnx::testing
