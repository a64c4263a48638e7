#include "onnx/convert_precision.h"

#include <algorithm>
#include <map>
#include <vector>

#include "onnx/convert_schema.h"
#include "onnx/graph_builder.h"
#include "onnx/graph_index.h"
#include "onnx/graph_tensor.h"
#include "onnx/onnx_pb.h"

namespace hone::onnx {
namespace {

constexpr int32_t kFloat = ::onnx::TensorProto::FLOAT;

class PrecisionRewriter {
 public:
  PrecisionRewriter(::onnx::ModelProto* model, const ConvertOptions& options, const std::set<std::string>& blocked,
                    ConvertSummary* summary, std::set<std::string>* inserted)
      : model_(model), options_(options), blocked_(blocked), summary_(summary), inserted_(inserted),
        index_(model->graph()), builder_(model),
        low_(options.to == LowPrecision::kFp16 ? ::onnx::TensorProto::FLOAT16 : ::onnx::TensorProto::BFLOAT16),
        suffix_(options.to == LowPrecision::kFp16 ? "_fp16" : "_bf16") {}

  Status Run() {
    if (index_.has_subgraphs())
      return Status::Unimplemented("the model has control flow (If, Loop or Scan); convert does not rewrite "
                                   "subgraphs yet");
    const int nodes = model_->graph().node_size();
    const int64_t opset = OpsetVersion(*model_, "");
    std::set<std::string> blocked_nodes(options_.block_nodes.begin(), options_.block_nodes.end());
    for (int i = 0; i < nodes; ++i) Decide(model_->graph().node(i), opset, blocked_nodes);
    AssignValueTypes(nodes);
    KeepOutputTypes();
    for (int i = 0; i < nodes; ++i) RetypeInputs(i);
    RetypeValueInfo();
    return Status::Ok();
  }

 private:
  bool IsFloat(const std::string& v) const { return !v.empty() && index_.ElemType(v) == kFloat; }

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
    if (blocked_nodes.count(node.name()))
      why = "blocked node";
    else if (std::find(summary_->no_kernel_ops.begin(), summary_->no_kernel_ops.end(), node.op_type()) !=
             summary_->no_kernel_ops.end())
      why = "no ONNX Runtime CPU kernel in the target type";
    else if (blocked_.count(node.op_type()))
      why = "blocked op type";
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
    if (touches_float && !low) summary_->kept_float.push_back(node.name() + " (" + node.op_type() + "): " + why);
  }

  void AssignValueTypes(int nodes) {
    for (int i = 0; i < nodes; ++i)
      for (const auto& out : model_->graph().node(i).output())
        if (IsFloat(out)) type_[out] = low_node_[static_cast<size_t>(i)] ? low_ : kFloat;
    for (auto& in : *model_->mutable_graph()->mutable_input()) {
      if (!IsFloat(in.name()) || index_.Initializer(in.name())) continue;
      type_[in.name()] = options_.keep_io_types ? kFloat : low_;
      in.mutable_type()->mutable_tensor_type()->set_elem_type(type_[in.name()]);
    }
  }

  // A graph output produced in the low type: the producer writes an inner value, a Cast restores FP32 under the
  // output's name, and readers inside the graph use the inner value (no round trip through FP32).
  void KeepOutputTypes() {
    for (auto& out : *model_->mutable_graph()->mutable_output()) {
      const std::string y = out.name();
      auto it = type_.find(y);
      if (it == type_.end() || it->second == kFloat) continue;
      if (!options_.keep_io_types) {
        out.mutable_type()->mutable_tensor_type()->set_elem_type(low_);
        continue;
      }
      int producer = index_.Producer(y);
      if (producer < 0) continue;
      std::string inner = builder_.Fresh(y + suffix_);
      auto* node = model_->mutable_graph()->mutable_node(producer);
      for (auto& o : *node->mutable_output())
        if (o == y) o = inner;
      RenameInputs(model_->mutable_graph(), y, inner);
      type_[inner] = it->second;
      type_[y] = kFloat;
      AddCast(inner, y, kFloat);
    }
  }

  void AddCast(const std::string& from, const std::string& to_value, int32_t to) {
    auto* cast = builder_.AddNode("Cast", {from}, {to_value}, from + "_Cast");
    SetIntAttr(cast, "to", to);
    inserted_->insert(cast->name());
    ++summary_->casts_inserted;
  }

  std::string CastOf(const std::string& value, int32_t to) {
    auto key = std::make_pair(value, to);
    auto it = casts_.find(key);
    if (it != casts_.end()) return it->second;
    std::string out = builder_.Fresh(value + (to == kFloat ? "_fp32" : suffix_));
    AddCast(value, out, to);
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
    auto* node = model_->mutable_graph()->mutable_node(i);
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
      if (it != type_.end() && it->second != need) node->set_input(s, CastOf(v, need));
    }
  }

  void RetypeValueInfo() {
    for (auto& info : *model_->mutable_graph()->mutable_value_info()) {
      auto it = type_.find(info.name());
      if (it != type_.end() && info.type().has_tensor_type())
        info.mutable_type()->mutable_tensor_type()->set_elem_type(it->second);
    }
  }

  ::onnx::ModelProto* model_;
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
  return PrecisionRewriter(model, options, blocked_ops, summary, inserted_casts).Run();
}

}  // namespace hone::onnx
