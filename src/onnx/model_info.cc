#include "onnx/model_info.h"

#include <algorithm>
#include <filesystem>
#include <limits>
#include <map>
#include <set>
#include <string_view>

#include "onnx/model_file.h"
#include "onnx/onnx_data_type.h"
#include "onnx/onnx_pb.h"
#include "tensor/shape.h"

namespace hone::onnx {
namespace {

// No real tensor comes near this (2^56 elements is 64 PiB of bytes); the cap lets byte sizes be computed in uint64
// without overflow even for 128-bit elements, whatever dims a crafted file claims.
constexpr int64_t kMaxTensorElements = int64_t{1} << 56;

// Totals gathered over the main graph and every subgraph.
struct Tally {
  std::map<std::string, int64_t> ops;
  int64_t nodes = 0;
  int64_t parameters = 0;
  uint64_t bytes = 0;
  int64_t initializers = 0;
  bool external = false;
};

std::string OpKey(const ::onnx::NodeProto& node) {
  if (node.domain().empty() || node.domain() == "ai.onnx") return node.op_type();
  return node.domain() + "." + node.op_type();
}

Status TooLarge(std::string_view what, const std::string& name) {
  return Status::InvalidArgument(std::string(what) + " '" + name + "': sizes overflow; the model is corrupt");
}

// Adds one tensor's elements and bytes; what ("initializer", "Constant node") names it in errors.
Status AddTensor(const ::onnx::TensorProto& t, std::string_view what, Tally* tally) {
  Shape dims(t.dims().begin(), t.dims().end());
  std::optional<int64_t> count = ElementCount(dims);
  if (!count || *count > kMaxTensorElements)
    return Status::InvalidArgument(std::string(what) + " '" + t.name() + "': invalid dims " + ShapeToString(dims));
  uint64_t bytes = 0;
  if (t.data_type() == ::onnx::TensorProto::STRING) {
    for (const std::string& s : t.string_data()) bytes += s.size();
  } else {
    bytes = (static_cast<uint64_t>(*count) * OnnxElementBits(t.data_type()) + 7) / 8;
  }
  if (t.data_location() == ::onnx::TensorProto::EXTERNAL || t.external_data_size() > 0) tally->external = true;
  if (tally->parameters > std::numeric_limits<int64_t>::max() - *count ||
      tally->bytes > std::numeric_limits<uint64_t>::max() - bytes)
    return TooLarge(what, t.name());
  tally->parameters += *count;
  tally->bytes += bytes;
  return Status::Ok();
}

// A sparse tensor holds its non-zero values and their indices; both take memory, only values are parameters.
Status AddSparse(const ::onnx::SparseTensorProto& s, std::string_view what, Tally* tally) {
  Tally indices;
  HONE_RETURN_IF_ERROR(AddTensor(s.values(), what, tally));
  HONE_RETURN_IF_ERROR(AddTensor(s.indices(), what, &indices));
  if (tally->bytes > std::numeric_limits<uint64_t>::max() - indices.bytes) return TooLarge(what, s.values().name());
  tally->bytes += indices.bytes;
  tally->external = tally->external || indices.external;
  return Status::Ok();
}

// Recursion depth is bounded by protobuf's own nesting limit (100) when parsing, so no guard is needed here.
Status WalkGraph(const ::onnx::GraphProto& graph, Tally* tally) {
  for (const auto& t : graph.initializer()) HONE_RETURN_IF_ERROR(AddTensor(t, "initializer", tally));
  for (const auto& s : graph.sparse_initializer()) HONE_RETURN_IF_ERROR(AddSparse(s, "sparse initializer", tally));
  tally->initializers += graph.initializer_size() + graph.sparse_initializer_size();
  for (const auto& node : graph.node()) {
    ++tally->nodes;
    ++tally->ops[OpKey(node)];
    const bool constant = node.op_type() == "Constant" && (node.domain().empty() || node.domain() == "ai.onnx");
    for (const auto& attr : node.attribute()) {
      if (constant && attr.has_t()) HONE_RETURN_IF_ERROR(AddTensor(attr.t(), "Constant node", tally));
      if (constant && attr.has_sparse_tensor())
        HONE_RETURN_IF_ERROR(AddSparse(attr.sparse_tensor(), "Constant node", tally));
      if (attr.has_g()) HONE_RETURN_IF_ERROR(WalkGraph(attr.g(), tally));
      for (const auto& sub : attr.graphs()) HONE_RETURN_IF_ERROR(WalkGraph(sub, tally));
    }
  }
  return Status::Ok();
}

// ONNX's textual form of a type, as onnx.helper and error messages spell it.
std::string TypeText(const ::onnx::TypeProto& type) {
  switch (type.value_case()) {
    case ::onnx::TypeProto::kTensorType:
      return "tensor(" + OnnxTypeName(type.tensor_type().elem_type()) + ")";
    case ::onnx::TypeProto::kSparseTensorType:
      return "sparse_tensor(" + OnnxTypeName(type.sparse_tensor_type().elem_type()) + ")";
    case ::onnx::TypeProto::kSequenceType:
      return "seq(" + TypeText(type.sequence_type().elem_type()) + ")";
    case ::onnx::TypeProto::kOptionalType:
      return "optional(" + TypeText(type.optional_type().elem_type()) + ")";
    case ::onnx::TypeProto::kMapType:
      return "map(" + OnnxTypeName(type.map_type().key_type()) + "," + TypeText(type.map_type().value_type()) + ")";
    case ::onnx::TypeProto::kOpaqueType:
      return "opaque(" + type.opaque_type().domain() + "." + type.opaque_type().name() + ")";
    case ::onnx::TypeProto::VALUE_NOT_SET:
      break;
  }
  return "unknown";
}

std::vector<Dim> DimsOf(const ::onnx::TensorShapeProto& shape) {
  std::vector<Dim> dims;
  for (const auto& d : shape.dim()) {
    Dim dim;
    if (d.has_dim_value() && d.dim_value() >= 0) dim.value = d.dim_value();
    if (d.has_dim_param()) dim.symbol = d.dim_param();
    dims.push_back(std::move(dim));
  }
  return dims;
}

TensorInfo DescribeValue(const ::onnx::ValueInfoProto& value) {
  TensorInfo info;
  info.name = value.name();
  const ::onnx::TypeProto& type = value.type();
  if (type.has_tensor_type()) {
    // Dense tensors keep the bare element name: that is what a user feeds ("float"), and type says it in hone's terms.
    info.type = DataTypeFromOnnx(type.tensor_type().elem_type());
    info.onnx_type = OnnxTypeName(type.tensor_type().elem_type());
    info.has_shape = type.tensor_type().has_shape();
    if (info.has_shape) info.dims = DimsOf(type.tensor_type().shape());
  } else {
    // Not a dense tensor: hone cannot feed it as one, so type stays kInvalid, and the whole ONNX type is shown.
    info.onnx_type = TypeText(type);
    info.has_shape = type.has_sparse_tensor_type() && type.sparse_tensor_type().has_shape();
    if (info.has_shape) info.dims = DimsOf(type.sparse_tensor_type().shape());
  }
  return info;
}

}  // namespace

std::string DimsToString(const std::vector<Dim>& dims) {
  std::string out = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i > 0) out += ", ";
    if (!dims[i].dynamic())
      out += std::to_string(dims[i].value);
    else
      out += dims[i].symbol.empty() ? "?" : dims[i].symbol;
  }
  return out + "]";
}

std::string ShapeText(const TensorInfo& info) { return info.has_shape ? DimsToString(info.dims) : "unknown"; }

Result<ModelInfo> DescribeModel(const ::onnx::ModelProto& model) {
  ModelInfo info;
  info.ir_version = model.ir_version();
  info.producer_name = model.producer_name();
  info.producer_version = model.producer_version();
  info.domain = model.domain();
  info.doc_string = model.doc_string();
  info.model_version = model.model_version();
  for (const auto& opset : model.opset_import())
    info.opsets.emplace_back(opset.domain().empty() ? "ai.onnx" : opset.domain(), opset.version());
  for (const auto& prop : model.metadata_props()) info.metadata_props.emplace_back(prop.key(), prop.value());

  const ::onnx::GraphProto& graph = model.graph();
  std::set<std::string> initialized;
  for (const auto& t : graph.initializer()) initialized.insert(t.name());
  for (const auto& s : graph.sparse_initializer()) initialized.insert(s.values().name());
  for (const auto& input : graph.input())
    if (!initialized.count(input.name())) info.inputs.push_back(DescribeValue(input));
  for (const auto& output : graph.output()) info.outputs.push_back(DescribeValue(output));

  Tally tally;
  HONE_RETURN_IF_ERROR(WalkGraph(graph, &tally));
  info.node_count = tally.nodes;
  info.parameter_count = tally.parameters;
  info.parameter_bytes = tally.bytes;
  info.initializer_count = tally.initializers;
  info.uses_external_data = tally.external;
  info.operator_counts.assign(tally.ops.begin(), tally.ops.end());  // already sorted by name
  std::stable_sort(info.operator_counts.begin(), info.operator_counts.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  return info;
}

Result<ModelInfo> ReadModelInfo(const std::string& path) {
  ::onnx::ModelProto model;
  HONE_RETURN_IF_ERROR(ReadModelProto(path, &model));
  Result<ModelInfo> info = DescribeModel(model);
  if (!info.ok()) return info.status().WithContext("model '" + path + "'");
  info->path = path;
  std::error_code ec;  // the file was just read whole, so this cannot reasonably fail; 0 if it does
  uintmax_t size = std::filesystem::file_size(path, ec);
  info->file_bytes = ec ? 0 : static_cast<uint64_t>(size);
  return info;
}

}  // namespace hone::onnx
