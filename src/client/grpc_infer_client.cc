#include "client/grpc_infer_client.h"

#include <grpcpp/grpcpp.h>

#include "client/grpc_client_codec.h"
#include "client/grpc_service.grpc.pb.h"
#include "client/grpc_status.h"
#include "client/host_port.h"
#include "client/model_version.h"

namespace hone::client {

struct GrpcInferClient::Shared {
  std::string address;
  GrpcClientOptions options;
  std::shared_ptr<::grpc::Channel> channel;
  std::unique_ptr<inference::GRPCInferenceService::Stub> stub;
};

struct GrpcInferClient::Messages {
  inference::ModelInferRequest request;
  inference::ModelInferResponse response;
};

namespace {

// A context per call (gRPC contexts are single-use), with the per-call deadline when one is set.
void SetDeadline(::grpc::ClientContext* context, const GrpcClientOptions& options) {
  if (options.call_timeout.count() > 0)
    context->set_deadline(std::chrono::system_clock::now() + options.call_timeout);
}

}  // namespace

Result<std::unique_ptr<GrpcInferClient>> GrpcInferClient::Connect(const std::string& host, int port,
                                                                  const GrpcClientOptions& options) {
  if (port <= 0 || port > 65535)
    return Status::InvalidArgument("gRPC port " + std::to_string(port) + ": expected 1..65535");
  auto shared = std::make_shared<Shared>();
  if (host.empty()) return Status::InvalidArgument("gRPC host: expected a name or address");
  shared->address = HostPort(host, port);
  shared->options = options;
  ::grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(options.max_message_bytes);
  args.SetMaxSendMessageSize(options.max_message_bytes);
  shared->channel = ::grpc::CreateCustomChannel(shared->address, ::grpc::InsecureChannelCredentials(), args);
  if (!shared->channel->WaitForConnected(std::chrono::system_clock::now() + options.connect_timeout))
    return Status::Unavailable("gRPC: cannot connect to " + shared->address + " within " +
                               std::to_string(options.connect_timeout.count()) + " ms");
  shared->stub = inference::GRPCInferenceService::NewStub(shared->channel);
  return std::unique_ptr<GrpcInferClient>(new GrpcInferClient(std::move(shared)));
}

GrpcInferClient::GrpcInferClient(std::shared_ptr<const Shared> shared)
    : shared_(std::move(shared)), messages_(std::make_unique<Messages>()) {}

GrpcInferClient::~GrpcInferClient() = default;

std::unique_ptr<GrpcInferClient> GrpcInferClient::Clone() const {
  return std::unique_ptr<GrpcInferClient>(new GrpcInferClient(shared_));
}

const std::string& GrpcInferClient::address() const { return shared_->address; }

Result<bool> GrpcInferClient::IsServerLive() {
  ::grpc::ClientContext context;
  SetDeadline(&context, shared_->options);
  inference::ServerLiveResponse response;
  ::grpc::Status status = shared_->stub->ServerLive(&context, {}, &response);
  if (!status.ok()) return FromGrpcStatus(status, "ServerLive to " + shared_->address);
  return response.live();
}

Result<bool> GrpcInferClient::IsServerReady() {
  ::grpc::ClientContext context;
  SetDeadline(&context, shared_->options);
  inference::ServerReadyResponse response;
  ::grpc::Status status = shared_->stub->ServerReady(&context, {}, &response);
  if (!status.ok()) return FromGrpcStatus(status, "ServerReady to " + shared_->address);
  return response.ready();
}

Result<bool> GrpcInferClient::IsModelReady(const std::string& model, int64_t version) {
  ::grpc::ClientContext context;
  SetDeadline(&context, shared_->options);
  inference::ModelReadyRequest request;
  request.set_name(model);
  request.set_version(ModelVersionToString(version));
  inference::ModelReadyResponse response;
  ::grpc::Status status = shared_->stub->ModelReady(&context, request, &response);
  if (!status.ok()) return FromGrpcStatus(status, "ModelReady to " + shared_->address);
  return response.ready();
}

Result<std::vector<NamedTensor>> GrpcInferClient::Infer(const std::string& model, int64_t version,
                                                        std::span<const NamedTensor> inputs,
                                                        std::span<const std::string> outputs) {
  HONE_RETURN_IF_ERROR(FillModelInferRequest(model, version, inputs, outputs, &messages_->request));
  ::grpc::ClientContext context;
  SetDeadline(&context, shared_->options);
  ::grpc::Status status = shared_->stub->ModelInfer(&context, messages_->request, &messages_->response);
  if (!status.ok()) return FromGrpcStatus(status, "ModelInfer to " + shared_->address);
  return OutputsFromResponse(messages_->response);
}

Result<ModelMetadataInfo> GrpcInferClient::GetModelMetadata(const std::string& model, int64_t version) {
  ::grpc::ClientContext context;
  SetDeadline(&context, shared_->options);
  inference::ModelMetadataRequest request;
  request.set_name(model);
  request.set_version(ModelVersionToString(version));
  inference::ModelMetadataResponse response;
  ::grpc::Status status = shared_->stub->ModelMetadata(&context, request, &response);
  if (!status.ok()) return FromGrpcStatus(status, "ModelMetadata to " + shared_->address);
  ModelMetadataInfo info;
  info.name = response.name();
  info.versions.assign(response.versions().begin(), response.versions().end());
  info.platform = response.platform();
  auto convert = [&](const auto& tensors, std::vector<TensorMetadata>* out) -> Status {
    for (const auto& t : tensors) {
      std::optional<DataType> type = ParseDataType(t.datatype());
      if (!type) {
        return Status::InvalidArgument("ModelMetadata from " + shared_->address + ": tensor '" + t.name() +
                                       "': unknown datatype '" + t.datatype() + "'");
      }
      out->push_back({t.name(), *type, Shape(t.shape().begin(), t.shape().end())});
    }
    return Status::Ok();
  };
  HONE_RETURN_IF_ERROR(convert(response.inputs(), &info.inputs));
  HONE_RETURN_IF_ERROR(convert(response.outputs(), &info.outputs));
  return info;
}

Result<ModelStatsSnapshot> GrpcInferClient::Statistics(const std::string& model, int64_t version) {
  ::grpc::ClientContext context;
  SetDeadline(&context, shared_->options);
  inference::ModelStatisticsRequest request;
  request.set_name(model);
  request.set_version(ModelVersionToString(version));
  inference::ModelStatisticsResponse response;
  ::grpc::Status status = shared_->stub->ModelStatistics(&context, request, &response);
  if (!status.ok()) return FromGrpcStatus(status, "ModelStatistics to " + shared_->address);
  if (response.model_stats_size() == 0)
    return Status::NotFound("ModelStatistics to " + shared_->address + ": no statistics for model '" + model + "'");
  if (response.model_stats_size() > 1) {
    std::string versions;
    for (const auto& stats : response.model_stats()) versions += (versions.empty() ? "" : ", ") + stats.version();
    return Status::FailedPrecondition("model '" + model + "' is served in versions " + versions +
                                      "; expected one version to be named");
  }
  return StatsFromProto(response.model_stats(0));
}

Result<inference::ModelConfig> GrpcInferClient::GetModelConfig(const std::string& model, int64_t version) {
  ::grpc::ClientContext context;
  SetDeadline(&context, shared_->options);
  inference::ModelConfigRequest request;
  request.set_name(model);
  request.set_version(ModelVersionToString(version));
  inference::ModelConfigResponse response;
  ::grpc::Status status = shared_->stub->ModelConfig(&context, request, &response);
  if (!status.ok()) return FromGrpcStatus(status, "ModelConfig to " + shared_->address);
  return response.config();
}

}  // namespace hone::client
