#include "serve/grpc/infer_codec.h"

#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include "client/model_version.h"
#include "client/tensor_contents.h"

namespace hone::serve::grpc_front {
namespace {

using inference::InferParameter;
using inference::ModelInferRequest;
using ParameterMap = google::protobuf::Map<std::string, InferParameter>;

constexpr std::string_view kKnownTypes = "BOOL, UINT8, UINT16, UINT32, UINT64, INT8, INT16, INT32, INT64, FP16, "
                                         "BF16, FP32, FP64, BYTES";

Status Invalid(const std::string& message) { return Status::InvalidArgument(message); }

Result<uint64_t> NonNegativeInteger(const std::string& name, const InferParameter& value) {
  if (value.parameter_choice_case() == InferParameter::kUint64Param) return value.uint64_param();
  if (value.parameter_choice_case() == InferParameter::kInt64Param && value.int64_param() >= 0)
    return static_cast<uint64_t>(value.int64_param());
  return Invalid("parameter '" + name + "': expected a non-negative integer (int64_param or uint64_param)");
}

bool IsNonZeroId(const InferParameter& value) {
  switch (value.parameter_choice_case()) {
    case InferParameter::kInt64Param: return value.int64_param() != 0;
    case InferParameter::kUint64Param: return value.uint64_param() != 0;
    case InferParameter::kStringParam: return !value.string_param().empty();
    default: return false;
  }
}

Status ReadParameters(const ParameterMap& parameters, InferenceRequest* request) {
  for (const auto& [name, value] : parameters) {
    if (name == "priority") {
      HONE_ASSIGN_OR_RETURN(uint64_t priority, NonNegativeInteger(name, value));
      if (priority > std::numeric_limits<uint32_t>::max())
        return Invalid("parameter 'priority': " + std::to_string(priority) + " is larger than a priority level");
      request->priority = static_cast<uint32_t>(priority);
    } else if (name == "timeout") {
      HONE_ASSIGN_OR_RETURN(request->timeout_us, NonNegativeInteger(name, value));
    } else if (name == "sequence_id" && IsNonZeroId(value)) {
      // Sequence requests would need a sequence batcher to route them to one instance in order; serving them as
      // independent requests would give silently wrong results for stateful models.
      return Invalid("parameter 'sequence_id': hone serves no sequence (stateful) models; expected none");
    }
  }
  return Status::Ok();
}

Result<DataType> ReadDataType(const std::string& what, const std::string& name) {
  std::optional<DataType> type = ParseDataType(name);
  if (!type) return Invalid(what + ": unknown datatype '" + name + "', expected one of " + std::string(kKnownTypes));
  return *type;
}

// Input i's data, from raw_input_contents when the request uses them, else from its typed contents.
Result<Tensor> DecodeInput(const ModelInferRequest& message, int i, const std::string& what, DataType type,
                           Shape shape) {
  const ModelInferRequest::InferInputTensor& input = message.inputs(i);
  const bool has_contents = input.has_contents() && input.contents().ByteSizeLong() > 0;
  if (message.raw_input_contents_size() > 0) {
    if (has_contents)
      return Invalid(what + ": has contents, but the request carries raw_input_contents; expected one or the "
                     "other for all inputs");
    return client::TensorFromRaw(what, type, std::move(shape), message.raw_input_contents(i));
  }
  bool holds_data = ElementCount(shape).value_or(0) > 0;
  if (type != DataType::kBytes) {
    HONE_ASSIGN_OR_RETURN(size_t bytes, client::ExpectedByteSize(what, type, shape));
    holds_data = bytes > 0;
  }
  if (!has_contents && holds_data) return Invalid(what + ": no data, expected raw_input_contents or contents");
  return client::TensorFromContents(what, type, std::move(shape), input.contents());
}

Status ReadInputs(const ModelInferRequest& message, std::vector<NamedTensor>* inputs) {
  const bool raw = message.raw_input_contents_size() > 0;
  if (raw && message.raw_input_contents_size() != message.inputs_size())
    return Invalid("expected " + std::to_string(message.inputs_size()) +
                   " raw_input_contents (one per input, in order), got " +
                   std::to_string(message.raw_input_contents_size()));
  inputs->reserve(static_cast<size_t>(message.inputs_size()));
  for (int i = 0; i < message.inputs_size(); ++i) {
    const ModelInferRequest::InferInputTensor& input = message.inputs(i);
    if (input.name().empty()) return Invalid("input " + std::to_string(i) + ": expected a name");
    const std::string what = "input '" + input.name() + "'";
    for (const NamedTensor& earlier : *inputs)
      if (earlier.name == input.name()) return Invalid(what + ": given twice");
    HONE_ASSIGN_OR_RETURN(DataType type, ReadDataType(what, input.datatype()));
    Shape shape(input.shape().begin(), input.shape().end());
    HONE_ASSIGN_OR_RETURN(Tensor tensor, DecodeInput(message, i, what, type, std::move(shape)));
    inputs->push_back(NamedTensor{input.name(), std::move(tensor)});
  }
  return Status::Ok();
}

Status ReadRequestedOutputs(const ModelInferRequest& message, std::vector<std::string>* outputs,
                            std::vector<std::pair<std::string, uint32_t>>* classifications) {
  outputs->reserve(static_cast<size_t>(message.outputs_size()));
  for (int i = 0; i < message.outputs_size(); ++i) {
    const auto& output = message.outputs(i);
    if (output.name().empty()) return Invalid("requested output " + std::to_string(i) + ": expected a name");
    const std::string what = "requested output '" + output.name() + "'";
    for (const std::string& earlier : *outputs)
      if (earlier == output.name()) return Invalid(what + ": given twice");
    if (auto it = output.parameters().find("classification"); it != output.parameters().end()) {
      // Triton's clients send the count as int64_param.
      const int64_t k = it->second.parameter_choice_case() == inference::InferParameter::kUint64Param
                            ? static_cast<int64_t>(it->second.uint64_param())
                            : it->second.int64_param();
      if (k < 1 || k > std::numeric_limits<uint32_t>::max())
        return Invalid(what + ": parameter 'classification': expected a count of classes >= 1, got " +
                       std::to_string(k));
      classifications->emplace_back(output.name(), static_cast<uint32_t>(k));
    }
    outputs->push_back(output.name());
  }
  return Status::Ok();
}

}  // namespace

Result<InferenceRequest> ToInferenceRequest(const ModelInferRequest& message,
                                            std::shared_ptr<const void> keep_alive) {
  InferenceRequest request;
  if (message.model_name().empty()) return Invalid("expected a model_name");
  request.model_name = message.model_name();
  HONE_ASSIGN_OR_RETURN(request.model_version,
                        client::ParseModelVersion(message.model_version(), "model '" + message.model_name() + "'"));
  request.id = message.id();
  HONE_RETURN_IF_ERROR(ReadParameters(message.parameters(), &request));
  HONE_RETURN_IF_ERROR(ReadInputs(message, &request.inputs));
  HONE_RETURN_IF_ERROR(ReadRequestedOutputs(message, &request.requested_outputs, &request.classifications));
  request.keep_alive = std::move(keep_alive);
  return request;
}

Status ToModelInferResponse(const InferenceResponse& response, inference::ModelInferResponse* message) {
  message->Clear();
  message->set_model_name(response.model_name);
  message->set_model_version(client::ModelVersionToString(response.model_version));
  message->set_id(response.id);
  message->mutable_outputs()->Reserve(static_cast<int>(response.outputs.size()));
  message->mutable_raw_output_contents()->Reserve(static_cast<int>(response.outputs.size()));
  for (const NamedTensor& output : response.outputs) {
    const Tensor& tensor = output.tensor;
    if (tensor.empty())
      return Status::Internal("output '" + output.name + "': the server produced an INVALID tensor");
    auto* entry = message->add_outputs();
    entry->set_name(output.name);
    entry->set_datatype(std::string(DataTypeName(tensor.type())));
    entry->mutable_shape()->Add(tensor.shape().begin(), tensor.shape().end());
    // The one copy on the way out: protobuf's bytes fields own std::strings. BYTES go in their length-prefixed
    // layout, as Triton sends them and tritonclient decodes them.
    message->add_raw_output_contents()->assign(reinterpret_cast<const char*>(tensor.data()), tensor.byte_size());
  }
  return Status::Ok();
}

}  // namespace hone::serve::grpc_front
