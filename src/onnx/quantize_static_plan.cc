// PlanStatic: which nodes and tensors static quantization touches (see quantize_static.h for the rules).
#include <set>

#include "onnx/graph_builder.h"
#include "onnx/graph_index.h"
#include "onnx/onnx_pb.h"
#include "onnx/quantize_static.h"

namespace hone::onnx {
namespace {

bool IsDefaultDomain(const ::onnx::NodeProto& node) { return node.domain().empty() || node.domain() == "ai.onnx"; }

// Ops whose output holds only values of their first input, rearranged or selected.
bool MovesData(const ::onnx::NodeProto& node) {
  static const std::set<std::string> kOps = {"MaxPool", "Flatten", "Reshape", "Transpose", "Squeeze", "Unsqueeze"};
  return IsDefaultDomain(node) && kOps.count(node.op_type()) && node.output_size() >= 1;
}

class Planner {
 public:
  Planner(const ::onnx::ModelProto& model, const QuantizeOptions& options, QuantizeSummary* summary)
      : graph_(model.graph()), index_(model.graph()), options_(options), summary_(summary) {}

  StaticPlan Plan() {
    NodeSelector selector(options_);
    for (int i = 0; i < graph_.node_size(); ++i) {
      const auto& node = graph_.node(i);
      if (!selector.Selected(node)) continue;
      const std::string label = node.name() + " (" + node.op_type() + ")";
      StaticPlan::Compute c;
      c.node = i;
      if (std::string why = Check(node, &c); !why.empty()) {
        summary_->skipped.push_back(label + ": " + why);
        continue;
      }
      summary_->quantized.push_back(label);
      plan_.compute.push_back(c);
      AddActivation(node.input(0));
      if (!c.constant_weight) AddActivation(node.input(1));
      AddOutput(i);
    }
    PropagateThroughDataMovement();
    int64_t in_subgraphs = 0;
    ReportSubgraphs(graph_, "", selector, &in_subgraphs);
    if (in_subgraphs > 0)
      summary_->warnings.push_back(std::to_string(in_subgraphs) +
                                   " node(s) inside If/Loop/Scan subgraphs stay float: static quantization calibrates "
                                   "main-graph tensors only (dynamic or weight-only mode quantizes subgraphs)");
    return std::move(plan_);
  }

 private:
  // Static quantization leaves subgraphs alone. Calibration reads tensors as extra graph outputs, and a body's
  // tensors are not graph values: a Loop body's take one value per iteration (they would have to leave as scan
  // outputs, changing the Loop's outputs), an If branch's exist only when that branch runs (both branches would need
  // matching extra outputs). Their selected nodes are listed as skipped, so that the report says so.
  void ReportSubgraphs(const ::onnx::GraphProto& graph, const std::string& path, const NodeSelector& selector,
                       int64_t* count) {
    for (const auto& node : graph.node()) {
      if (!path.empty() && selector.Selected(node)) {
        summary_->skipped.push_back(node.name() + " (" + node.op_type() + ") in " + path +
                                    ": inside a subgraph, which static quantization does not calibrate");
        ++*count;
      }
      const std::string prefix = (path.empty() ? "" : path + "/") + node.name() + "/";
      for (const auto& attr : node.attribute()) {
        if (attr.has_g()) ReportSubgraphs(attr.g(), prefix + attr.name(), selector, count);
        for (int i = 0; i < attr.graphs_size(); ++i)
          ReportSubgraphs(attr.graphs(i), prefix + attr.name() + "[" + std::to_string(i) + "]", selector, count);
      }
    }
  }

  bool IsFloatActivation(const std::string& name) const {
    if (index_.Initializer(name)) return false;
    int32_t t = index_.ElemType(name);
    return t == 0 || t == ::onnx::TensorProto::FLOAT;
  }

  // Why `node` cannot be quantized, or "" with *c filled in.
  std::string Check(const ::onnx::NodeProto& node, StaticPlan::Compute* c) const {
    if (node.input_size() < 2) return "has fewer than 2 inputs";
    if (!IsFloatActivation(node.input(0))) return "its input '" + node.input(0) + "' is not a FLOAT activation";
    const ::onnx::TensorProto* w = index_.Initializer(node.input(1));
    const std::string& op = node.op_type();
    if (w == nullptr) {
      if (op != "MatMul") return "its weight '" + node.input(1) + "' is not a constant";
      if (!IsFloatActivation(node.input(1))) return "its input '" + node.input(1) + "' is not a FLOAT activation";
      return "";  // activation x activation (attention scores): both inputs get pairs
    }
    if (w->data_type() != ::onnx::TensorProto::FLOAT) return "its weight '" + w->name() + "' is not FLOAT";
    c->constant_weight = true;
    const bool per_channel = options_.per_channel;
    const std::string bias = node.input_size() > 2 ? node.input(2) : "";
    if (op == "Conv") {
      if (w->dims_size() < 3) return "its weight '" + w->name() + "' has rank below 3";
      c->weight_axis = per_channel ? 0 : -1;
      if (!bias.empty() && !index_.Initializer(bias)) return "its bias '" + bias + "' is not a constant";
      c->quantize_bias = !bias.empty();
    } else if (op == "Gemm") {
      if (w->dims_size() != 2) return "its weight '" + w->name() + "' is not 2-D";
      c->weight_axis = per_channel ? (IntAttr(node, "transB", 0) ? 0 : 1) : -1;
      // QGemm takes an INT32 bias of shape [N] scaled by beta 1; any other C stays float.
      const ::onnx::TensorProto* b = bias.empty() ? nullptr : index_.Initializer(bias);
      const int64_t n = w->dims(IntAttr(node, "transB", 0) ? 0 : 1);
      c->quantize_bias = b && b->data_type() == ::onnx::TensorProto::FLOAT && b->dims_size() == 1 &&
                         b->dims(0) == n && FloatAttr(node, "beta", 1.0f) == 1.0f;
    } else {  // MatMul
      if (w->dims_size() != 2) return "its weight '" + w->name() + "' is not 2-D";
      c->weight_axis = per_channel ? 1 : -1;
    }
    return "";
  }

  void AddActivation(const std::string& name) {
    if (seen_.insert(name).second) plan_.activations.push_back(name);
  }

  void AddOutput(int i) {
    const std::string& y = graph_.node(i).output(0);
    if (index_.IsGraphOutput(y) || index_.Consumers(y).empty()) return;
    const auto& consumers = index_.Consumers(y);
    if (!options_.symmetric_activations && consumers.size() == 1) {
      const auto& next = graph_.node(consumers[0]);
      if (next.op_type() == "Relu" && IsDefaultDomain(next) && next.input_size() == 1 &&
          !index_.IsGraphOutput(next.output(0)) && !index_.Consumers(next.output(0)).empty()) {
        plan_.folded_relu[i] = consumers[0];
        AddActivation(next.output(0));
        return;
      }
    }
    AddActivation(y);
  }

  std::string Root(const std::string& name) const {
    std::string r = name;
    for (auto it = plan_.shares.find(r); it != plan_.shares.end(); it = plan_.shares.find(r)) r = it->second;
    return r;
  }

  void PropagateThroughDataMovement() {
    for (bool changed = true; changed;) {
      changed = false;
      for (const auto& node : graph_.node()) {
        if (!MovesData(node) || node.input_size() < 1 || !seen_.count(node.input(0))) continue;
        const std::string& out = node.output(0);
        if (plan_.shares.count(out) || index_.IsGraphOutput(out) || index_.Consumers(out).empty()) continue;
        if (Root(node.input(0)) == out) continue;  // would share with itself
        plan_.shares[out] = Root(node.input(0));
        AddActivation(out);
        changed = true;
      }
    }
  }

  const ::onnx::GraphProto& graph_;
  GraphIndex index_;
  const QuantizeOptions& options_;
  QuantizeSummary* summary_;
  StaticPlan plan_;
  std::set<std::string> seen_;
};

}  // namespace

std::vector<std::string> StaticPlan::Calibrated() const {
  std::vector<std::string> out;
  for (const auto& a : activations)
    if (!shares.count(a)) out.push_back(a);
  return out;
}

StaticPlan PlanStatic(const ::onnx::ModelProto& model, const QuantizeOptions& options, QuantizeSummary* summary) {
  return Planner(model, options, summary).Plan();
}

}  // namespace hone::onnx
