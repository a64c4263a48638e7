#include "serve/grpc/metadata_codec.h"

#include <string>

#include "client/model_version.h"

namespace hone::serve::grpc_front {
namespace {

void FillDuration(const client::DurationStat& from, inference::StatisticDuration* to) {
  to->set_count(from.count);
  to->set_ns(from.ns);
}

void FillTensors(const std::vector<client::TensorMetadata>& tensors,
                 google::protobuf::RepeatedPtrField<inference::ModelMetadataResponse::TensorMetadata>* to) {
  for (const client::TensorMetadata& tensor : tensors) {
    auto* entry = to->Add();
    entry->set_name(tensor.name);
    entry->set_datatype(std::string(DataTypeName(tensor.type)));
    entry->mutable_shape()->Add(tensor.shape.begin(), tensor.shape.end());
  }
}

}  // namespace

void FillServerMetadata(const ServerMetadataInfo& info, inference::ServerMetadataResponse* message) {
  message->set_name(info.name);
  message->set_version(info.version);
  for (const std::string& extension : info.extensions) message->add_extensions(extension);
}

void FillModelMetadata(const client::ModelMetadataInfo& info, inference::ModelMetadataResponse* message) {
  message->set_name(info.name);
  for (const std::string& version : info.versions) message->add_versions(version);
  message->set_platform(info.platform);
  FillTensors(info.inputs, message->mutable_inputs());
  FillTensors(info.outputs, message->mutable_outputs());
}

void FillModelStatistics(const client::ModelStatsSnapshot& stats, inference::ModelStatistics* message) {
  message->set_name(stats.name);
  message->set_version(client::ModelVersionToString(stats.version));
  message->set_last_inference(stats.last_inference_ms);
  message->set_inference_count(stats.inference_count);
  message->set_execution_count(stats.execution_count);
  auto* infer = message->mutable_inference_stats();
  FillDuration(stats.success, infer->mutable_success());
  FillDuration(stats.fail, infer->mutable_fail());
  FillDuration(stats.queue, infer->mutable_queue());
  FillDuration(stats.compute_input, infer->mutable_compute_input());
  FillDuration(stats.compute_infer, infer->mutable_compute_infer());
  FillDuration(stats.compute_output, infer->mutable_compute_output());
  for (const client::BatchSizeStats& batch : stats.batch_stats) {
    auto* entry = message->add_batch_stats();
    entry->set_batch_size(static_cast<uint64_t>(batch.batch_size));
    FillDuration(batch.compute_input, entry->mutable_compute_input());
    FillDuration(batch.compute_infer, entry->mutable_compute_infer());
    FillDuration(batch.compute_output, entry->mutable_compute_output());
  }
}

void FillRepositoryIndex(const std::vector<RepositoryEntry>& entries, inference::RepositoryIndexResponse* message) {
  for (const RepositoryEntry& entry : entries) {
    auto* model = message->add_models();
    model->set_name(entry.name);
    model->set_version(entry.version);
    model->set_state(entry.state);
    model->set_reason(entry.reason);
  }
}

}  // namespace hone::serve::grpc_front
