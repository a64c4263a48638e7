#include "client/grpc_client_codec.h"

#include <cstring>
#include <utility>

#include "client/model_version.h"
#include "client/tensor_contents.h"

namespace hone::client {
namespace {

// A response that does not match its own metadata is the server's fault, not the caller's: Internal.
Status Malformed(const Status& status) {
  return Status::Internal("malformed ModelInfer response: " + status.message());
}

Result<NamedTensor> DecodeOutput(const inference::ModelInferResponse& message, int i) {
  const auto& output = message.outputs(i);
  const std::string what = "output '" + output.name() + "'";
  std::optional<DataType> type = ParseDataType(output.datatype());
  if (!type) return Malformed(Status::InvalidArgument(what + ": unknown datatype '" + output.datatype() + "'"));
  Shape shape(output.shape().begin(), output.shape().end());
  Result<Tensor> view = message.raw_output_contents_size() > 0
                            ? TensorFromRaw(what, *type, std::move(shape), message.raw_output_contents(i))
                            : TensorFromContents(what, *type, std::move(shape), output.contents());
  if (!view.ok()) return Malformed(view.status());
  // The view borrows the response message, which the client reuses: hand out a copy that owns its bytes.
  return NamedTensor{output.name(), view->Clone()};
}

DurationStat ReadDuration(const inference::StatisticDuration& from) { return {from.count(), from.ns()}; }

}  // namespace

Status FillModelInferRequest(const std::string& model, int64_t version, std::span<const NamedTensor> inputs,
                             std::span<const std::string> outputs, inference::ModelInferRequest* message) {
  message->Clear();
  message->set_model_name(model);
  message->set_model_version(ModelVersionToString(version));
  for (size_t i = 0; i < inputs.size(); ++i) {
    const NamedTensor& input = inputs[i];
    if (input.name.empty()) return Status::InvalidArgument("input " + std::to_string(i) + ": expected a name");
    for (size_t j = 0; j < i; ++j)
      if (inputs[j].name == input.name) return Status::InvalidArgument("input '" + input.name + "': given twice");
    if (input.tensor.empty()) return Status::InvalidArgument("input '" + input.name + "': expected a tensor");
    auto* entry = message->add_inputs();
    entry->set_name(input.name);
    entry->set_datatype(std::string(DataTypeName(input.tensor.type())));
    entry->mutable_shape()->Add(input.tensor.shape().begin(), input.tensor.shape().end());
    message->add_raw_input_contents()->assign(reinterpret_cast<const char*>(input.tensor.data()),
                                              input.tensor.byte_size());
  }
  for (const std::string& name : outputs) message->add_outputs()->set_name(name);
  return Status::Ok();
}

Result<std::vector<NamedTensor>> OutputsFromResponse(const inference::ModelInferResponse& message) {
  if (message.raw_output_contents_size() > 0 && message.raw_output_contents_size() != message.outputs_size())
    return Malformed(Status::InvalidArgument(std::to_string(message.outputs_size()) + " outputs but " +
                                             std::to_string(message.raw_output_contents_size()) +
                                             " raw_output_contents"));
  std::vector<NamedTensor> outputs;
  outputs.reserve(static_cast<size_t>(message.outputs_size()));
  for (int i = 0; i < message.outputs_size(); ++i) {
    HONE_ASSIGN_OR_RETURN(NamedTensor output, DecodeOutput(message, i));
    outputs.push_back(std::move(output));
  }
  return outputs;
}

Result<ModelStatsSnapshot> StatsFromProto(const inference::ModelStatistics& message) {
  ModelStatsSnapshot stats;
  stats.name = message.name();
  HONE_ASSIGN_OR_RETURN(stats.version, ParseModelVersion(message.version(), "statistics of model '" +
                                                                               message.name() + "'"));
  stats.last_inference_ms = message.last_inference();
  stats.inference_count = message.inference_count();
  stats.execution_count = message.execution_count();
  const auto& infer = message.inference_stats();
  stats.success = ReadDuration(infer.success());
  stats.fail = ReadDuration(infer.fail());
  stats.queue = ReadDuration(infer.queue());
  stats.compute_input = ReadDuration(infer.compute_input());
  stats.compute_infer = ReadDuration(infer.compute_infer());
  stats.compute_output = ReadDuration(infer.compute_output());
  for (const auto& batch : message.batch_stats()) {
    stats.batch_stats.push_back(BatchSizeStats{static_cast<int64_t>(batch.batch_size()),
                                               ReadDuration(batch.compute_input()),
                                               ReadDuration(batch.compute_infer()),
                                               ReadDuration(batch.compute_output())});
  }
  return stats;
}

}  // namespace hone::client
