#include "serve/grpc/inference_service.h"

#include <string>
#include <utility>

#include "base/log.h"

#include "client/grpc_status.h"
#include "client/model_version.h"
#include "serve/grpc/infer_exchange.h"
#include "serve/grpc/metadata_codec.h"
#include "serve/grpc/stream_infer.h"

namespace hone::serve::grpc_front {
namespace {

using Reactor = InferenceService::Reactor;

// Every RPC but ModelInfer and the repository's load/unload answers inline: finish the call with `status`.
Reactor* Finish(::grpc::CallbackServerContext* context, const Status& status) {
  Reactor* reactor = context->DefaultReactor();
  reactor->Finish(client::ToGrpcStatus(status));
  return reactor;
}

std::string ModelWhat(const std::string& name) { return "model '" + name + "'"; }

Status RequireName(const std::string& name) {
  return name.empty() ? Status::InvalidArgument("expected a model name") : Status::Ok();
}

// Loading with an override config or model files (Triton's "config" and "file:<version>/<name>" parameters) is not
// something hone does; saying so beats loading the repository's files instead of what the client sent.
Status CheckLoadParameters(const inference::RepositoryModelLoadRequest& request) {
  for (const auto& [name, value] : request.parameters()) {
    if (name == "config" || name.starts_with("file:"))
      return Status::Unimplemented("parameter '" + name +
                                   "': loading a model from a config or files sent with the request is not "
                                   "supported, expected the model's directory in the repository");
  }
  return Status::Ok();
}

}  // namespace

InferenceService::InferenceService(Server& server, bool repository_api, SerialExecutor& repository_work,
                                   int64_t max_message_bytes, int caller_runs)
    : server_(server),
      repository_api_(repository_api),
      max_message_bytes_(max_message_bytes),
      repository_work_(repository_work),
      caller_runs_(caller_runs) {
  SetMessageAllocatorFor_ModelInfer(&allocator_);
}

Reactor* InferenceService::ServerLive(Context* context, const inference::ServerLiveRequest*,
                                      inference::ServerLiveResponse* response) {
  response->set_live(server_.IsLive());
  return Finish(context, Status::Ok());
}

Reactor* InferenceService::ServerReady(Context* context, const inference::ServerReadyRequest*,
                                       inference::ServerReadyResponse* response) {
  response->set_ready(server_.IsReady());
  return Finish(context, Status::Ok());
}

Reactor* InferenceService::ModelReady(Context* context, const inference::ModelReadyRequest* request,
                                      inference::ModelReadyResponse* response) {
  if (Status s = RequireName(request->name()); !s.ok()) return Finish(context, s);
  Result<int64_t> version = client::ParseModelVersion(request->version(), ModelWhat(request->name()));
  if (!version.ok()) return Finish(context, version.status());
  Result<bool> ready = server_.IsModelReady(request->name(), *version);
  // As Triton answers it: a model or version the server does not know is simply not ready (a readiness poll
  // before a model is loaded is normal), while other errors are errors.
  if (!ready.ok() && ready.status().code() != StatusCode::kNotFound) return Finish(context, ready.status());
  response->set_ready(ready.ok() && *ready);
  return Finish(context, Status::Ok());
}

Reactor* InferenceService::ServerMetadata(Context* context, const inference::ServerMetadataRequest*,
                                          inference::ServerMetadataResponse* response) {
  FillServerMetadata(server_.Metadata(), response);
  return Finish(context, Status::Ok());
}

Reactor* InferenceService::ModelMetadata(Context* context, const inference::ModelMetadataRequest* request,
                                         inference::ModelMetadataResponse* response) {
  if (Status s = RequireName(request->name()); !s.ok()) return Finish(context, s);
  Result<int64_t> version = client::ParseModelVersion(request->version(), ModelWhat(request->name()));
  if (!version.ok()) return Finish(context, version.status());
  Result<client::ModelMetadataInfo> info = server_.ModelMetadata(request->name(), *version);
  if (!info.ok()) return Finish(context, info.status());
  FillModelMetadata(*info, response);
  return Finish(context, Status::Ok());
}

Reactor* InferenceService::ModelInfer(Context* context, const inference::ModelInferRequest* request,
                                      inference::ModelInferResponse* response) {
  std::shared_ptr<InferCallMessages> messages = MessagesOf(context);
  if (!messages) return Finish(context, Status::Internal("ModelInfer: messages not allocated by the front end"));
  LogVerbose(2, "gRPC: ModelInfer model '{}' version '{}' ({} input(s))", request->model_name(),
             request->model_version(), request->inputs_size());
  // The request's tensors borrow `messages->request` (the same object as *request); keep_alive owns it.
  Result<InferenceRequest> converted = ToServerRequest(std::move(messages), max_message_bytes_);
  if (!converted.ok()) return Finish(context, converted.status());

  Reactor* reactor = context->DefaultReactor();
  in_flight_->Begin();
  CallerRunSlots::Held slot(caller_runs_);
  converted->may_run_on_caller = slot.held();
  // Runs once, on whichever thread the server completes the request on (or inline here for an early error). It
  // touches only the call (reactor, response, alive until Finish completes), the server facade (which outlives
  // the front end) and the shared in-flight count.
  server_.Infer(std::move(converted).value(), [this, reactor, response, in_flight = in_flight_](
                                                  Result<InferenceResponse> result) {
    const Status status = FillInferResponse(server_, max_message_bytes_, result, response);
    reactor->Finish(client::ToGrpcStatus(status));
    in_flight->End();
  });
  return reactor;
}

::grpc::ServerBidiReactor<inference::ModelInferRequest, inference::ModelStreamInferResponse>*
InferenceService::ModelStreamInfer(Context*) {
  return new StreamInferReactor({server_, max_message_bytes_, caller_runs_, in_flight_});
}

Reactor* InferenceService::ModelConfig(Context* context, const inference::ModelConfigRequest* request,
                                       inference::ModelConfigResponse* response) {
  if (Status s = RequireName(request->name()); !s.ok()) return Finish(context, s);
  Result<int64_t> version = client::ParseModelVersion(request->version(), ModelWhat(request->name()));
  if (!version.ok()) return Finish(context, version.status());
  Result<inference::ModelConfig> config = server_.ModelConfig(request->name(), *version);
  if (!config.ok()) return Finish(context, config.status());
  *response->mutable_config() = std::move(config).value();
  return Finish(context, Status::Ok());
}

Reactor* InferenceService::ModelStatistics(Context* context, const inference::ModelStatisticsRequest* request,
                                           inference::ModelStatisticsResponse* response) {
  Result<int64_t> version = client::ParseModelVersion(request->version(), ModelWhat(request->name()));
  if (!version.ok()) return Finish(context, version.status());
  Result<std::vector<client::ModelStatsSnapshot>> stats = server_.Statistics(request->name(), *version);
  if (!stats.ok()) return Finish(context, stats.status());
  for (const client::ModelStatsSnapshot& snapshot : *stats) FillModelStatistics(snapshot, response->add_model_stats());
  return Finish(context, Status::Ok());
}

Status InferenceService::CheckRepositoryApi(std::string_view rpc) const {
  // PERMISSION_DENIED, not UNAVAILABLE: the operator switched the API off, so a retry would never succeed.
  if (repository_api_ && server_.options().repository_api) return Status::Ok();
  return Status(StatusCode::kPermissionDenied,
                std::string(rpc) + ": the model repository API is disabled on this server");
}

Reactor* InferenceService::RepositoryIndex(Context* context, const inference::RepositoryIndexRequest* request,
                                           inference::RepositoryIndexResponse* response) {
  if (Status s = CheckRepositoryApi("RepositoryIndex"); !s.ok()) return Finish(context, s);
  FillRepositoryIndex(server_.RepositoryIndex(request->ready()), response);
  return Finish(context, Status::Ok());
}

Reactor* InferenceService::RunBlocking(Context* context, std::function<Status()> work) {
  Reactor* reactor = context->DefaultReactor();
  bool queued =
      repository_work_.Submit([reactor, work = std::move(work)] { reactor->Finish(client::ToGrpcStatus(work())); });
  if (!queued) reactor->Finish(client::ToGrpcStatus(Status::Unavailable("the server is shutting down")));
  return reactor;
}

Reactor* InferenceService::RepositoryModelLoad(Context* context,
                                               const inference::RepositoryModelLoadRequest* request,
                                               inference::RepositoryModelLoadResponse*) {
  if (Status s = CheckRepositoryApi("RepositoryModelLoad"); !s.ok()) return Finish(context, s);
  if (Status s = RequireName(request->model_name()); !s.ok()) return Finish(context, s);
  if (Status s = CheckLoadParameters(*request); !s.ok()) return Finish(context, s);
  return RunBlocking(context, [this, name = request->model_name()] { return server_.LoadModel(name); });
}

Reactor* InferenceService::RepositoryModelUnload(Context* context,
                                                 const inference::RepositoryModelUnloadRequest* request,
                                                 inference::RepositoryModelUnloadResponse*) {
  if (Status s = CheckRepositoryApi("RepositoryModelUnload"); !s.ok()) return Finish(context, s);
  if (Status s = RequireName(request->model_name()); !s.ok()) return Finish(context, s);
  return RunBlocking(context, [this, name = request->model_name()] { return server_.UnloadModel(name); });
}

}  // namespace hone::serve::grpc_front
