// Dynamic INT8 quantization in two forms, chosen by DynamicForm.
//
// Why `integer` is the default: measured with `hone bench` on models/fashion_mnist/model.onnx (closed loop,
// concurrency 1, batch 1, 1 intra-op thread, test.npz inputs, two interleaved rounds on the 2-core AVX2 development
// machine, ONNX Runtime 1.30), p50 latency: integer 128 / 143 us, qdq 159 / 174 us, float 60 / 74 us. ONNX Runtime's
// CPU provider fuses DynamicQuantizeLinear -> MatMulInteger -> Cast -> Mul into its integer MatMul kernels and runs
// ConvInteger as an integer GEMM; in the qdq form the activations' DequantizeLinear takes a scale computed at run
// time, which its QDQ fusions do not accept (they need constant scales), so it quantizes, dequantizes and then runs
// the float op: the cost of quantizing with none of the integer speed. (On a model this small both forms are slower
// than float: quantizing each activation at run time costs more than the integer GEMMs save; dynamic quantization
// pays off on large MatMuls, as in transformer encoders.)
#include "onnx/quantize_dynamic.h"

#include <map>

#include "onnx/graph_builder.h"
#include "onnx/graph_index.h"
#include "onnx/graph_tensor.h"
#include "onnx/onnx_pb.h"
#include "onnx/quantize_weights.h"

namespace hone::onnx {
namespace {

constexpr int32_t kFloat = ::onnx::TensorProto::FLOAT;

struct RuntimeQuantized {
  std::string codes, scale, zero_point;  // DynamicQuantizeLinear's outputs: UINT8 codes, FP32 scale, UINT8 zp
};

// Rewrites one graph: the main graph, or a subgraph (If branch, Loop or Scan body; `outer` indexes the graph
// around it, so weights that live there are found), then the subgraphs within it.
class DynamicRewriter {
 public:
  DynamicRewriter(::onnx::ModelProto* model, ::onnx::GraphProto* graph, const GraphIndex* outer, std::string path,
                  const QuantizeOptions& options, QuantizeSummary* summary)
      : model_(model), graph_(graph), path_(std::move(path)), options_(options), summary_(summary),
        index_(*graph, outer), builder_(model, graph) {}

  Status Run() {
    NodeSelector selector(options_);
    const int original_nodes = graph_->node_size();
    for (int i = 0; i < original_nodes; ++i) {
      const ::onnx::NodeProto node = graph_->node(i);  // a copy: appending nodes may move the repeated field
      if (!selector.Selected(node)) continue;
      std::string why = Rewrite(i, node);
      const std::string label = node.name() + " (" + node.op_type() + ")" + (path_.empty() ? "" : " in " + path_);
      if (why.empty()) {
        summary_->quantized.push_back(label);
        if (!path_.empty()) ++summary_->subgraph_nodes_quantized;
      } else {
        summary_->skipped.push_back(label + ": " + why);
      }
    }
    // Replaced nodes go last, highest index first, so earlier indices stay valid.
    for (auto it = replaced_.rbegin(); it != replaced_.rend(); ++it) graph_->mutable_node()->DeleteSubrange(*it, 1);
    // A fresh index of this graph as it is now, for the bodies to find their outer-scope weights in.
    GraphIndex now(*graph_, index_.outer());
    for (const Subgraph& sub : DirectSubgraphs(graph_, path_)) {
      DynamicRewriter inner(model_, sub.graph, &now, sub.path, options_, summary_);
      HONE_RETURN_IF_ERROR(inner.Run());
    }
    return Status::Ok();
  }

 private:
  // Rewrites node `i`; returns why it was left in float, or "" when it was quantized.
  std::string Rewrite(int i, const ::onnx::NodeProto& node) {
    if (node.input_size() < 2) return "has fewer than 2 inputs";
    const std::string& x = node.input(0);
    if (index_.Initializer(x)) return "its input '" + x + "' is a constant (fold it instead)";
    if (int32_t t = index_.ElemType(x); t != 0 && t != kFloat) return "its input '" + x + "' is not FLOAT";
    auto weight = ReadWeight(index_, node.input(1));
    if (!weight.ok()) return "weight " + weight.status().message();
    const std::string& op = node.op_type();
    if (op == "MatMul") {
      if (weight->dims.size() != 2) return "weight '" + weight->name + "' is not 2-D";
      return options_.dynamic_form == DynamicForm::kInteger ? MatMulInteger(i, node, *weight, false) : MatMulQdq(i, *weight, 1);
    }
    if (op == "Gemm") {
      if (weight->dims.size() != 2) return "weight '" + weight->name + "' is not 2-D";
      if (IntAttr(node, "transA", 0) != 0) return "transA=1 is not supported";
      if (options_.dynamic_form == DynamicForm::kInteger) return MatMulInteger(i, node, *weight, true);
      return MatMulQdq(i, *weight, IntAttr(node, "transB", 0) ? 0 : 1);
    }
    if (op == "Conv") {
      if (weight->dims.size() < 3) return "weight '" + weight->name + "' has rank below 3";
      if (node.input_size() > 2 && !node.input(2).empty() && !index_.Initializer(node.input(2)))
        return "bias '" + node.input(2) + "' is not a constant";
      return options_.dynamic_form == DynamicForm::kInteger ? ConvInteger(i, node, *weight) : MatMulQdq(i, *weight, 0);
    }
    return "op type " + op + " is not handled by dynamic quantization";
  }

  // DynamicQuantizeLinear of activation `x`, shared by every node that reads x.
  const RuntimeQuantized& Quantized(const std::string& x) {
    auto it = runtime_.find(x);
    if (it != runtime_.end()) return it->second;
    RuntimeQuantized q{builder_.Fresh(x + "_quantized"), builder_.Fresh(x + "_scale"),
                       builder_.Fresh(x + "_zero_point")};
    builder_.AddNode("DynamicQuantizeLinear", {x}, {q.codes, q.scale, q.zero_point}, x + "_DynamicQuantizeLinear");
    return runtime_.emplace(x, q).first->second;
  }

  // y = cast(integer_result) * (x_scale * w_scale) [+ bias]: the pattern ONNX Runtime fuses into
  // MatMulIntegerToFloat / DynamicQuantizeMatMul.
  void ScaleBack(const std::string& integer_result, const std::string& x_scale, const std::string& w_scale,
                 const std::string& bias, const std::string& y, const std::string& base) {
    std::string as_float = builder_.Fresh(base + "_output_float");
    auto* cast = builder_.AddNode("Cast", {integer_result}, {as_float}, base + "_Cast");
    SetIntAttr(cast, "to", kFloat);
    std::string scale = builder_.Fresh(base + "_scale_product");
    builder_.AddNode("Mul", {x_scale, w_scale}, {scale}, base + "_scales_Mul");
    std::string scaled = bias.empty() ? y : builder_.Fresh(base + "_output_scaled");
    builder_.AddNode("Mul", {as_float, scale}, {scaled}, base + "_output_Mul");
    if (!bias.empty()) builder_.AddNode("Add", {scaled, bias}, {y}, base + "_bias_Add");
  }

  // MatMul, or Gemm as MatMul (alpha folded into the weights) plus beta * C.
  std::string MatMulInteger(int i, const ::onnx::NodeProto& node, FloatWeight w, bool gemm) {
    int64_t k = w.dims[0], n = w.dims[1];
    std::string bias;
    if (gemm) {
      if (IntAttr(node, "transB", 0)) {
        w.values = Transpose2D(w.values, w.dims[0], w.dims[1]);
        std::swap(k, n);
        w.dims = {k, n};
      }
      float alpha = FloatAttr(node, "alpha", 1.0f), beta = FloatAttr(node, "beta", 1.0f);
      if (alpha != 1.0f)
        for (float& v : w.values) v *= alpha;
      if (node.input_size() > 2 && !node.input(2).empty()) {
        auto c = ReadWeight(index_, node.input(2));
        if (c.ok()) {
          if (beta != 1.0f) {
            for (float& v : c->values) v *= beta;
            bias = builder_.AddInitializer(MakeFloatTensor(c->name + "_scaled", c->dims, c->values));
          } else {
            bias = c->name;
          }
        } else if (c.status().code() == StatusCode::kNotFound) {
          bias = node.input(2);
          if (beta != 1.0f) {
            std::vector<float> b{beta};
            std::string beta_name = builder_.AddInitializer(MakeFloatTensor(node.name() + "_beta", {}, b));
            std::string scaled = builder_.Fresh(node.name() + "_C_scaled");
            builder_.AddNode("Mul", {node.input(2), beta_name}, {scaled}, node.name() + "_beta_Mul");
            bias = scaled;
          }
        } else {
          return "bias " + c.status().message();
        }
      }
    }
    // Symmetric INT8 weights: the zero point is 0 for every column, so one scalar serves per-channel scales too.
    QuantizedTensor q = QuantizeWeights(w.values, w.dims, options_.per_channel ? 1 : -1, QuantType::kInt8, true,
                                        WeightLimit(options_));
    std::string codes = builder_.AddInitializer(MakeByteTensor(w.name + "_quantized", w.dims, q.values, true));
    std::vector<int64_t> scale_dims;
    if (options_.per_channel) scale_dims.push_back(n);
    std::string w_scale = builder_.AddInitializer(MakeFloatTensor(w.name + "_scale", scale_dims, Scales(q.params)));
    std::vector<int32_t> zero{0};
    std::string w_zp = builder_.AddInitializer(MakeByteTensor(w.name + "_zero_point", {}, zero, true));

    const RuntimeQuantized& x = Quantized(node.input(0));
    std::string product = builder_.Fresh(node.name() + "_MatMulInteger_output");
    builder_.AddNode("MatMulInteger", {x.codes, codes, x.zero_point, w_zp}, {product}, node.name() + "_MatMulInteger");
    ScaleBack(product, x.scale, w_scale, bias, node.output(0), node.name());
    replaced_.push_back(i);
    return "";
  }

  std::string ConvInteger(int i, const ::onnx::NodeProto& node, const FloatWeight& w) {
    // ONNX Runtime's ConvInteger kernel takes UINT8 weights with one zero point per tensor; symmetric UINT8 (zero
    // point 128 for every channel) keeps per-channel scales possible within that.
    const int64_t m = w.dims[0];
    QuantizedTensor q = QuantizeWeights(w.values, w.dims, options_.per_channel ? 0 : -1, QuantType::kUint8, true);
    std::string codes = builder_.AddInitializer(MakeByteTensor(w.name + "_quantized", w.dims, q.values, false));
    // Scales broadcast over the output [N, M, spatial...]: shape [M, 1, ...] per channel, a scalar per tensor.
    std::vector<int64_t> channel_dims;
    if (options_.per_channel) {
      channel_dims.push_back(m);
      channel_dims.resize(w.dims.size() - 1, 1);
    }
    std::string w_scale = builder_.AddInitializer(MakeFloatTensor(w.name + "_scale", channel_dims, Scales(q.params)));
    std::vector<int32_t> zp{128};
    std::string w_zp = builder_.AddInitializer(MakeByteTensor(w.name + "_zero_point", {}, zp, false));
    std::string bias;
    if (node.input_size() > 2 && !node.input(2).empty()) {
      auto b = ReadWeight(index_, node.input(2));
      if (!b.ok()) return "bias " + b.status().message();
      std::vector<int64_t> bias_dims{m};
      bias_dims.resize(w.dims.size() - 1, 1);
      bias = builder_.AddInitializer(MakeFloatTensor(b->name + "_channels", bias_dims, b->values));
    }
    const RuntimeQuantized& x = Quantized(node.input(0));
    std::string product = builder_.Fresh(node.name() + "_ConvInteger_output");
    auto* conv = builder_.AddNode("ConvInteger", {x.codes, codes, x.zero_point, w_zp}, {product},
                                  node.name() + "_ConvInteger");
    for (const auto& attr : node.attribute()) *conv->add_attribute() = attr;
    ScaleBack(product, x.scale, w_scale, bias, node.output(0), node.name());
    replaced_.push_back(i);
    return "";
  }

  // The node stays as it is and reads DequantizeLinear(DynamicQuantizeLinear(x)) and a dequantized INT8 weight.
  std::string MatMulQdq(int i, const FloatWeight& w, int channel_axis) {
    const ::onnx::NodeProto& node = graph_->node(i);
    const std::string x = node.input(0);
    auto it = dequantized_.find(x);
    if (it == dequantized_.end()) {
      const RuntimeQuantized& q = Quantized(x);
      std::string dq = builder_.Fresh(x + "_dequantized");
      builder_.AddNode("DequantizeLinear", {q.codes, q.scale, q.zero_point}, {dq}, x + "_DequantizeLinear");
      it = dequantized_.emplace(x, dq).first;
    }
    QdqWeight qw = AddQuantizedWeight(builder_, w, options_.per_channel ? channel_axis : -1, QuantType::kInt8, true,
                                      WeightLimit(options_));
    std::string w_dq = AddWeightDequantize(builder_, qw, w.name);
    auto* mutable_node = graph_->mutable_node(i);
    mutable_node->set_input(0, it->second);
    mutable_node->set_input(1, w_dq);
    return "";
  }

  ::onnx::ModelProto* model_;
  ::onnx::GraphProto* graph_;
  const std::string path_;  // "" for the main graph
  const QuantizeOptions& options_;
  QuantizeSummary* summary_;
  GraphIndex index_;
  GraphBuilder builder_;
  std::map<std::string, RuntimeQuantized> runtime_;
  std::map<std::string, std::string> dequantized_;
  std::vector<int> replaced_;
};

}  // namespace

Status QuantizeDynamic(::onnx::ModelProto* model, const QuantizeOptions& options, QuantizeSummary* summary) {
  int64_t opset = OpsetVersion(*model, "");
  if (opset < 11)
    return Status::Unimplemented("the model imports ai.onnx opset " + std::to_string(opset) +
                                 "; dynamic quantization needs 11 or later (DynamicQuantizeLinear)");
  if (options.dynamic_form == DynamicForm::kQdq && options.per_channel && opset < 13)
    return Status::Unimplemented("the model imports ai.onnx opset " + std::to_string(opset) +
                                 "; per-channel DequantizeLinear needs 13 or later (or use --per-tensor)");
  DynamicRewriter rewriter(model, model->mutable_graph(), nullptr, "", options, summary);
  return rewriter.Run();
}

}  // namespace hone::onnx
