// The handlers of inference.GRPCInferenceService over the Server facade.
//
// Why gRPC's callback API (CallbackService / ServerUnaryReactor): a synchronous service would hold one gRPC thread
// per ModelInfer until the model has run, so a burst of inference would take every thread and leave ServerLive and
// ServerReady queued behind it (exactly what a Kubernetes probe must never see); the completion-queue async API
// avoids that but needs a hand-written state machine per RPC. With the callback API a handler returns at once: the
// ModelInfer handler converts the request, calls Server::Infer and returns; the server's completion callback, on a
// scheduler thread, fills the response and calls Finish. No thread waits for inference, and the other RPCs
// (answered inline from the facade, which never waits behind inference) stay fast however busy the models are.
// Model load and unload do block, so they run on a SerialExecutor of their own, off gRPC's threads.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string_view>

#include "client/grpc_service.grpc.pb.h"
#include "serve/core/caller_run_slots.h"
#include "serve/core/server.h"
#include "serve/grpc/infer_call.h"
#include "serve/grpc/serial_executor.h"

namespace hone::serve::grpc_front {

class InferenceService final : public inference::GRPCInferenceService::CallbackService {
 public:
  // `server` and `repository_work` outlive the service. `repository_api`: whether RepositoryIndex, Load and Unload
  // are allowed (else PERMISSION_DENIED). `max_message_bytes`: the server's send limit; ModelInfer asks the
  // server for responses that fit (InferenceRequest::max_response_bytes), and one that still does not is failed
  // with RESOURCE_EXHAUSTED, logged and counted (Server::RecordUndelivered) rather than left to gRPC, which would
  // fail it without a word while the server counted a success.
  // `caller_runs`: how many of gRPC's threads may run inference themselves at once (see caller_runs_).
  InferenceService(Server& server, bool repository_api, SerialExecutor& repository_work,
                   int64_t max_message_bytes = std::numeric_limits<int32_t>::max(), int caller_runs = 1);

  // ModelInfer calls whose server callback has not run yet.
  const std::shared_ptr<InFlightCalls>& in_flight() const { return in_flight_; }

  using Reactor = ::grpc::ServerUnaryReactor;
  using Context = ::grpc::CallbackServerContext;

  Reactor* ServerLive(Context* context, const inference::ServerLiveRequest* request,
                      inference::ServerLiveResponse* response) override;
  Reactor* ServerReady(Context* context, const inference::ServerReadyRequest* request,
                       inference::ServerReadyResponse* response) override;
  Reactor* ModelReady(Context* context, const inference::ModelReadyRequest* request,
                      inference::ModelReadyResponse* response) override;
  Reactor* ServerMetadata(Context* context, const inference::ServerMetadataRequest* request,
                          inference::ServerMetadataResponse* response) override;
  Reactor* ModelMetadata(Context* context, const inference::ModelMetadataRequest* request,
                         inference::ModelMetadataResponse* response) override;
  Reactor* ModelInfer(Context* context, const inference::ModelInferRequest* request,
                      inference::ModelInferResponse* response) override;
  ::grpc::ServerBidiReactor<inference::ModelInferRequest, inference::ModelStreamInferResponse>* ModelStreamInfer(
      Context* context) override;
  Reactor* ModelConfig(Context* context, const inference::ModelConfigRequest* request,
                       inference::ModelConfigResponse* response) override;
  Reactor* ModelStatistics(Context* context, const inference::ModelStatisticsRequest* request,
                           inference::ModelStatisticsResponse* response) override;
  Reactor* RepositoryIndex(Context* context, const inference::RepositoryIndexRequest* request,
                           inference::RepositoryIndexResponse* response) override;
  Reactor* RepositoryModelLoad(Context* context, const inference::RepositoryModelLoadRequest* request,
                               inference::RepositoryModelLoadResponse* response) override;
  Reactor* RepositoryModelUnload(Context* context, const inference::RepositoryModelUnloadRequest* request,
                                 inference::RepositoryModelUnloadResponse* response) override;

 private:
  // PermissionDenied unless the repository API is on.
  Status CheckRepositoryApi(std::string_view rpc) const;
  // Runs `work` (which blocks) on the repository executor and finishes the call with its status.
  Reactor* RunBlocking(Context* context, std::function<Status()> work);

  Server& server_;
  const bool repository_api_;
  const int64_t max_message_bytes_;
  SerialExecutor& repository_work_;
  InferCallAllocator allocator_;
  // gRPC's callback threads that may run a request's batch themselves when an instance is idle and nothing is
  // queued (InferenceRequest::may_run_on_caller): no hand-off to the instance's thread and back. gRPC's pool has
  // other threads for health checks and other calls; one (the default) keeps it from being tied up by a slow model.
  CallerRunSlots caller_runs_;
  std::shared_ptr<InFlightCalls> in_flight_ = std::make_shared<InFlightCalls>();
};

}  // namespace hone::serve::grpc_front
