#include "onnx/prune_linear.h"

#include <fmt/format.h>

#include "onnx/graph_builder.h"
#include "onnx/graph_tensor.h"
#include "onnx/onnx_pb.h"

namespace hone::onnx {
namespace {

const ::onnx::TensorProto* Matrix(const GraphIndex& index, const std::string& name) {
  const ::onnx::TensorProto* t = index.Initializer(name);
  return t && t->data_type() == ::onnx::TensorProto::FLOAT && t->dims_size() == 2 ? t : nullptr;
}

}  // namespace

bool IsAiOnnx(const ::onnx::NodeProto& node) { return node.domain().empty() || node.domain() == "ai.onnx"; }

bool OwnedBy(const GraphIndex& index, const std::string& name) { return index.Consumers(name).size() == 1; }

bool IsScalarConstant(const GraphIndex& index, const std::string& name) {
  const ::onnx::TensorProto* t = index.Initializer(name);
  if (!t) return false;
  auto n = TensorElementCount(*t);
  return n.ok() && *n == 1;
}

bool IsVector(const GraphIndex& index, const std::string& name, int64_t n) {
  const ::onnx::TensorProto* t = index.Initializer(name);
  if (!t || t->data_type() != ::onnx::TensorProto::FLOAT || t->dims_size() < 1 || t->dims(t->dims_size() - 1) != n)
    return false;
  for (int i = 0; i + 1 < t->dims_size(); ++i)
    if (t->dims(i) != 1) return false;
  return true;
}

std::optional<LinearLayer> AsLinear(const ::onnx::GraphProto& graph, const GraphIndex& index, int node) {
  const ::onnx::NodeProto& n = graph.node(node);
  if (!IsAiOnnx(n) || n.input_size() < 2) return std::nullopt;
  const ::onnx::TensorProto* w = Matrix(index, n.input(1));
  if (!w) return std::nullopt;
  LinearLayer layer;
  layer.node = node;
  layer.weight = n.input(1);
  if (n.op_type() == "MatMul") {
    layer.in = w->dims(0);
    layer.out = w->dims(1);
    const std::string& y = n.output(0);
    const auto& users = index.Consumers(y);
    if (users.size() == 1 && !index.IsGraphOutput(y)) {
      const ::onnx::NodeProto& add = graph.node(users[0]);
      if (add.op_type() == "Add" && IsAiOnnx(add) && add.input_size() == 2) {
        const std::string& other = add.input(0) == y ? add.input(1) : add.input(0);
        if (IsVector(index, other, layer.out)) layer.bias = other, layer.bias_add = users[0];
      }
    }
    return layer;
  }
  if (n.op_type() != "Gemm") return std::nullopt;
  if (FloatAttr(n, "alpha", 1.0f) != 1.0f || FloatAttr(n, "beta", 1.0f) != 1.0f || IntAttr(n, "transA", 0) != 0)
    return std::nullopt;
  layer.transposed = IntAttr(n, "transB", 0) != 0;
  layer.in = w->dims(layer.transposed ? 1 : 0);
  layer.out = w->dims(layer.transposed ? 0 : 1);
  if (n.input_size() > 2 && !n.input(2).empty()) {
    if (!IsVector(index, n.input(2), layer.out)) return std::nullopt;  // a scalar or [N, out] C is not a bias
    layer.bias = n.input(2);
  }
  return layer;
}

Result<InOutWeight> ReadInOut(const GraphIndex& index, const LinearLayer& layer) {
  const ::onnx::TensorProto& t = *index.Initializer(layer.weight);
  HONE_ASSIGN_OR_RETURN(std::vector<float> stored, ReadFloatTensor(t));
  InOutWeight w;
  w.in = t.dims(layer.transposed ? 1 : 0);
  w.out = t.dims(layer.transposed ? 0 : 1);
  if (!layer.transposed) {
    w.values = std::move(stored);
    return w;
  }
  w.values.resize(stored.size());
  for (int64_t o = 0; o < w.out; ++o)
    for (int64_t i = 0; i < w.in; ++i) w.values[static_cast<size_t>(i * w.out + o)] = stored[static_cast<size_t>(o * w.in + i)];
  return w;
}

void WriteInOut(::onnx::GraphProto* graph, const LinearLayer& layer, std::span<const float> values, int64_t in,
                int64_t out) {
  if (!layer.transposed) {
    ReplaceInitializer(graph, layer.weight, {in, out}, values);
    return;
  }
  std::vector<float> stored(values.size());
  for (int64_t i = 0; i < in; ++i)
    for (int64_t o = 0; o < out; ++o) stored[static_cast<size_t>(o * in + i)] = values[static_cast<size_t>(i * out + o)];
  ReplaceInitializer(graph, layer.weight, {out, in}, stored);
}

void ReplaceInitializer(::onnx::GraphProto* graph, const std::string& name, const std::vector<int64_t>& dims,
                        std::span<const float> values) {
  for (auto& t : *graph->mutable_initializer())
    if (t.name() == name) {
      t = MakeFloatTensor(name, dims, values);
      return;
    }
}

Status KeepAlongAxis(::onnx::GraphProto* graph, const std::string& name, int axis, const std::vector<int64_t>& kept) {
  const ::onnx::TensorProto* found = nullptr;
  for (const auto& t : graph->initializer())
    if (t.name() == name) found = &t;
  if (!found) return Status::Internal("no initializer '" + name + "' to prune");
  const ::onnx::TensorProto& t = *found;
  std::vector<int64_t> dims(t.dims().begin(), t.dims().end());
  const int rank = static_cast<int>(dims.size());
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank)
    return Status::Internal(fmt::format("initializer '{}' of rank {} has no axis {}", name, rank, axis));
  HONE_ASSIGN_OR_RETURN(std::vector<float> values, ReadFloatTensor(t));
  // [outer, along, inner] row-major: keep whole inner runs of the kept entries.
  int64_t outer = 1, inner = 1;
  for (int i = 0; i < axis; ++i) outer *= dims[static_cast<size_t>(i)];
  for (int i = axis + 1; i < rank; ++i) inner *= dims[static_cast<size_t>(i)];
  const int64_t along = dims[static_cast<size_t>(axis)];
  std::vector<float> out;
  out.reserve(static_cast<size_t>(outer * static_cast<int64_t>(kept.size()) * inner));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t k : kept) {
      const float* run = values.data() + (o * along + k) * inner;
      out.insert(out.end(), run, run + inner);
    }
  dims[static_cast<size_t>(axis)] = static_cast<int64_t>(kept.size());
  ReplaceInitializer(graph, name, dims, out);
  return Status::Ok();
}

}  // namespace hone::onnx
