#include "onnx/convert_schema.h"

#include <set>
#include <string>

#include "onnx/defs/schema.h"
#include "onnx/onnx_pb.h"

namespace hone::onnx {
namespace {

// Output type set by an attribute, not by the inputs: converting the inputs would not convert the output.
bool TypeFromAttribute(const std::string& op) {
  static const std::set<std::string> kOps = {"Cast", "CastLike", "ConstantOfShape", "Constant", "RandomNormal",
                                             "RandomUniform", "RandomNormalLike", "RandomUniformLike", "EyeLike",
                                             "Multinomial", "Bernoulli"};
  return kOps.count(op) > 0;
}

// The formal parameter an actual position maps to: the last one absorbs the rest when it is variadic.
const ::onnx::OpSchema::FormalParameter* Formal(const std::vector<::onnx::OpSchema::FormalParameter>& formals,
                                               int position) {
  if (formals.empty()) return nullptr;
  if (position < static_cast<int>(formals.size())) return &formals[static_cast<size_t>(position)];
  const auto& last = formals.back();
  return last.GetOption() == ::onnx::OpSchema::Variadic ? &last : nullptr;
}

bool Admits(const ::onnx::OpSchema::FormalParameter* formal, const std::string& low) {
  if (formal == nullptr) return false;
  for (const auto* type : formal->GetTypes())
    if (*type == low) return true;
  return false;
}

}  // namespace

LowTypeSlots LowTypeSlotsOf(const ::onnx::NodeProto& node, int64_t opset, LowPrecision to) {
  LowTypeSlots slots;
  if ((!node.domain().empty() && node.domain() != "ai.onnx") || TypeFromAttribute(node.op_type())) return slots;
  const ::onnx::OpSchema* schema =
      ::onnx::OpSchemaRegistry::Schema(node.op_type(), static_cast<int>(opset), ::onnx::ONNX_DOMAIN);
  if (schema == nullptr) return slots;
  const std::string low = to == LowPrecision::kFp16 ? "tensor(float16)" : "tensor(bfloat16)";
  slots.known = true;
  for (int i = 0; i < node.input_size(); ++i) slots.inputs.push_back(Admits(Formal(schema->inputs(), i), low));
  for (int i = 0; i < node.output_size(); ++i) slots.outputs.push_back(Admits(Formal(schema->outputs(), i), low));
  return slots;
}

}  // namespace hone::onnx
