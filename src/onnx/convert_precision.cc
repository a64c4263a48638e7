#include "onnx/convert_precision.h"

#include <algorithm>
#include <map>
#include <vector>

#include "onnx/convert_cpu_kernels.h"
#include "onnx/convert_schema.h"
#include "onnx/graph_builder.h"
#include "onnx/graph_index.h"
#include "onnx/graph_tensor.h"
#include "onnx/onnx_pb.h"

namespace hone::onnx {
namespace {

constexpr int32_t kFloat = ::onnx::TensorProto::FLOAT;

// Converts one graph: the main graph, or a subgraph (If branch, Loop or Scan body) after the graph around it, whose
// values' new types it inherits. A subgraph keeps its own inputs and outputs FP32, as If, Loop and Scan require
// their bodies' interfaces to match the node's, which stays FP32.
class PrecisionRewriter {
 public:
  PrecisionRewriter(::onnx::ModelProto* model, ::onnx::GraphProto* graph, const GraphIndex* outer,
                    std::map<std::string, int32_t> outer_types, std::string path, const ConvertOptions& options,
                    const std::set<std::string>& blocked, ConvertSummary* summary, std::set<std::string>* inserted)
      : model_(model), graph_(graph), path_(std::move(path)), options_(options), blocked_(blocked),
        summary_(summary), inserted_(inserted), index_(*graph, outer), builder_(model, graph),
        low_(options.to == LowPrecision::kFp16 ? ::onnx::TensorProto::FLOAT16 : ::onnx::TensorProto::BFLOAT16),
        suffix_(options.to == LowPrecision::kFp16 ? "_fp16" : "_bf16"), type_(std::move(outer_types)) {}

  Status Run() {
    const int nodes = graph_->node_size();
    const int64_t opset = OpsetVersion(*model_, "");
    std::set<std::string> blocked_nodes(options_.block_nodes.begin(), options_.block_nodes.end());
    for (int i = 0; i < nodes; ++i) Decide(graph_->node(i), opset, blocked_nodes);
    AssignValueTypes(nodes);
    KeepOutputTypes();
    for (int i = 0; i < nodes; ++i) RetypeInputs(i);
    RetypeValueInfo();
    // The bodies see this graph's values with their new types; their own rewrites add Casts where they need FP32.
    for (const Subgraph& sub : DirectSubgraphs(graph_, path_)) {
      PrecisionRewriter inner(model_, sub.graph, &index_, type_, sub.path, options_, blocked_, summary_, inserted_);
      HONE_RETURN_IF_ERROR(inner.Run());
    }
    return Status::Ok();
  }

 private:
  bool IsMain() const { return graph_ == model_->mutable_graph(); }
  bool IsFloat(const std::string& v) const { return !v.empty() && index_.ElemType(v) == kFloat; }
  // "mm (MatMul)", or "mm (MatMul) in if_0/then_branch" for a subgraph node.
  std::string Label(const ::onnx::NodeProto& node) const {
    return node.name() + " (" + node.op_type() + ")" + (path_.empty() ? "" : " in " + path_);
  }
  static bool HasSubgraph(const ::onnx::NodeProto& node) {
    for (const auto& attr : node.attribute())
      if (attr.has_g() || attr.graphs_size() > 0) return true;
    return false;
  }

  // Whether the node computes in the low type; why not, for the report, when it touches float values.
  void Decide(const ::onnx::NodeProto& node, int64_t opset, const std::set<std::string>& blocked_nodes) {
    LowTypeSlots slots = LowTypeSlotsOf(node, opset, options_.to);
    bool touches_float = false, outputs_ok = true, unknown_output = false;
    for (int i = 0; i < node.input_size(); ++i) touches_float = touches_float || IsFloat(node.input(i));
    for (int i = 0; i < node.output_size(); ++i) {
      const std::string& out = node.output(i);
      if (out.empty()) continue;
      if (index_.ElemType(out) == 0) unknown_output = true;
      if (!IsFloat(out)) continue;
      touches_float = true;
      if (!slots.known || !slots.outputs[static_cast<size_t>(i)]) outputs_ok = false;
    }
    std::string why;
    if (HasSubgraph(node)) {
      // If, Loop and Scan pass their values through as they are; their bodies are converted node by node.
      low_node_.push_back(false);
      slots_.push_back(std::move(slots));
      return;
    }
    if (blocked_nodes.count(node.name()))
      why = "blocked node";
    else if (std::find(summary_->no_kernel_ops.begin(), summary_->no_kernel_ops.end(), node.op_type()) !=
             summary_->no_kernel_ops.end())
      why = "no ONNX Runtime CPU kernel in the target type";
    else if (blocked_.count(node.op_type()))
      why = "blocked op type";
    else if (options_.to == LowPrecision::kBf16 && options_.check_kernels && !CpuHasBf16Kernel(node.op_type(), opset))
      why = "ONNX Runtime's CPU provider has no BF16 kernel for " + node.op_type() + " at opset " +
            std::to_string(opset);
    else if (!slots.known)
      why = "no ai.onnx schema, or an attribute sets its output type";
    else if (unknown_output)
      why = "an output's type is unknown to shape inference";
    else if (!outputs_ok)
      why = "its schema does not allow the target type";
    const bool low = touches_float && why.empty();
    low_node_.push_back(low);
    slots_.push_back(std::move(slots));
    if (low) ++summary_->converted_nodes;
    if (touches_float && !low) summary_->kept_float.push_back(Label(node) + ": " + why);
  }

  void AssignValueTypes(int nodes) {
    for (int i = 0; i < nodes; ++i)
      for (const auto& out : graph_->node(i).output())
        if (IsFloat(out)) type_[out] = low_node_[static_cast<size_t>(i)] ? low_ : kFloat;
    const bool keep = options_.keep_io_types || !IsMain();
    for (auto& in : *graph_->mutable_input()) {
      if (!IsFloat(in.name()) || index_.Initializer(in.name())) continue;
      type_[in.name()] = keep ? kFloat : low_;
      in.mutable_type()->mutable_tensor_type()->set_elem_type(type_[in.name()]);
    }
  }

  // A graph output produced in the low type: the producer writes an inner value, a Cast restores FP32 under the
  // output's name, and readers inside the graph use the inner value (no round trip through FP32).
  void KeepOutputTypes() {
    for (auto& out : *graph_->mutable_output()) {
      const std::string y = out.name();
      auto it = type_.find(y);
      if (it == type_.end() || it->second == kFloat) continue;
      if (!options_.keep_io_types && IsMain()) {
        out.mutable_type()->mutable_tensor_type()->set_elem_type(low_);
        continue;
      }
      const int32_t low_type = it->second;
      int producer = index_.Producer(y);
      if (producer < 0) {
        // A body output that is a value of the enclosing graph, now low: the body outputs a Cast of it instead
        // (a body's outputs match the node's by position, not by name).
        std::string restored = builder_.Fresh(y + "_fp32");
        AddCast(y, restored, kFloat, y);
        out.set_name(restored);
        type_[restored] = kFloat;
        continue;
      }
      std::string inner = builder_.Fresh(y + suffix_);
      auto* node = graph_->mutable_node(producer);
      const std::string producer_name = node->name();
      for (auto& o : *node->mutable_output())
        if (o == y) o = inner;
      RenameInputs(graph_, y, inner);
      type_[inner] = low_type;
      type_[y] = kFloat;
      AddCast(inner, y, kFloat, producer_name);
    }
  }

  // Names the Cast after the user's node it serves ("<node>/cast_to_bf16"), so that an error about it points back
  // at the model.
  void AddCast(const std::string& from, const std::string& to_value, int32_t to, const std::string& for_node) {
    auto* cast = builder_.AddNode("Cast", {from}, {to_value}, for_node + (to == kFloat ? "/cast_to_fp32" : "/cast_to" + suffix_));
    SetIntAttr(cast, "to", to);
    inserted_->insert(cast->name());
    ++summary_->casts_inserted;
  }

  std::string CastOf(const std::string& value, int32_t to, const std::string& for_node) {
    auto key = std::make_pair(value, to);
    auto it = casts_.find(key);
    if (it != casts_.end()) return it->second;
    std::string out = builder_.Fresh(value + (to == kFloat ? "_fp32" : suffix_));
    AddCast(value, out, to, for_node);
    return casts_.emplace(key, out).first->second;
  }

  std::string LowInitializer(const ::onnx::TensorProto& t) {
    auto it = low_initializers_.find(t.name());
    if (it != low_initializers_.end()) return it->second;
    auto values = ReadFloatTensor(t);
    if (!values.ok()) return t.name();  // unreadable: leave it (the checker or runtime will say why)
    std::vector<int64_t> dims(t.dims().begin(), t.dims().end());
    std::string name = builder_.AddInitializer(
        MakeLowPrecisionTensor(t.name() + suffix_, dims, *values, options_.to == LowPrecision::kBf16));
    ++summary_->converted_initializers;
    return low_initializers_.emplace(t.name(), name).first->second;
  }

  void RetypeInputs(int i) {
    auto* node = graph_->mutable_node(i);
    const bool low = low_node_[static_cast<size_t>(i)];
    const LowTypeSlots& slots = slots_[static_cast<size_t>(i)];
    for (int s = 0; s < node->input_size(); ++s) {
      const std::string v = node->input(s);
      if (v.empty()) continue;
      const int32_t need = low && slots.inputs[static_cast<size_t>(s)] ? low_ : kFloat;
      if (const ::onnx::TensorProto* init = index_.Initializer(v)) {
        if (init->data_type() == kFloat && need == low_) node->set_input(s, LowInitializer(*init));
        continue;
      }
      auto it = type_.find(v);
      if (it != type_.end() && it->second != need) node->set_input(s, CastOf(v, need, node->name()));
    }
  }

  void RetypeValueInfo() {
    for (auto& info : *graph_->mutable_value_info()) {
      auto it = type_.find(info.name());
      if (it != type_.end() && info.type().has_tensor_type())
        info.mutable_type()->mutable_tensor_type()->set_elem_type(it->second);
    }
  }

  ::onnx::ModelProto* model_;
  ::onnx::GraphProto* graph_;
  const std::string path_;  // "" for the main graph
  const ConvertOptions& options_;
  const std::set<std::string>& blocked_;
  ConvertSummary* summary_;
  std::set<std::string>* inserted_;
  GraphIndex index_;
  GraphBuilder builder_;
  const int32_t low_;
  const std::string suffix_;
  std::vector<bool> low_node_;
  std::vector<LowTypeSlots> slots_;
  std::map<std::string, int32_t> type_;  // every value that was FP32: its type after conversion
  std::map<std::pair<std::string, int32_t>, std::string> casts_;
  std::map<std::string, std::string> low_initializers_;
};

}  // namespace

Status ConvertPrecision(::onnx::ModelProto* model, const ConvertOptions& options,
                        const std::set<std::string>& blocked_ops, ConvertSummary* summary,
                        std::set<std::string>* inserted_casts) {
  return PrecisionRewriter(model, model->mutable_graph(), nullptr, {}, "", options, blocked_ops, summary,
                           inserted_casts)
      .Run();
}

}  // namespace hone::onnx
