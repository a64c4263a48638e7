// The KServe v2 gRPC front end: inference.GRPCInferenceService (Triton's service, wire-compatible) on a port, over
// the Server facade. It owns only its socket and wire format; the Server owns models, scheduling and statistics.
//
//   auto grpc = GrpcServer::Start(*server, {.port = 8001});
//   ... grpc->port() ...
//   server->Shutdown(deadline);   // health keeps answering (ready: false) while in-flight requests drain
//   grpc->Shutdown(deadline);     // then the front end stops
//
// Served: ServerLive, ServerReady, ModelReady, ServerMetadata, ModelMetadata, ModelInfer, ModelStreamInfer
// (stream_infer.h), ModelConfig, ModelStatistics, RepositoryIndex, RepositoryModelLoad, RepositoryModelUnload.
// Other RPCs of Triton's service (shared memory, trace and log settings) get UNIMPLEMENTED from gRPC. See inference_service.h
// for how requests are handled and why health never waits behind inference.
#pragma once

#include <chrono>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>

#include "base/result.h"
#include "serve/core/server.h"

namespace hone::serve {

struct GrpcServerOptions {
  // Affect behaviour.
  std::string host = "127.0.0.1";  // loopback unless the operator says otherwise; "0.0.0.0" / "::" for all
  int port = 8001;                 // Triton's gRPC port; 0 picks a free one (see GrpcServer::port())
  // Largest request and response message, in bytes; Triton's (and gRPC's most): 2 GiB - 1. Bigger requests are
  // refused with RESOURCE_EXHAUSTED before they are read into memory; a bigger response fails with
  // RESOURCE_EXHAUSTED, is logged, and counts as a failure of its model (inference_service.h).
  int max_message_bytes = std::numeric_limits<int32_t>::max();
  // Whether RepositoryIndex, RepositoryModelLoad and RepositoryModelUnload may be called (also requires
  // ServerOptions::repository_api); when off they answer PERMISSION_DENIED.
  bool repository_api = true;
  // One of gRPC's callback threads at a time may run a request's batch itself when the request can start at once
  // (an instance idle, nothing queued): the lowest latency for a lone request. Off: always the instance's thread.
  bool run_on_callback_threads = true;

  // InvalidArgument naming the field: empty host, port outside 0..65535, max_message_bytes <= 0.
  Status Validate() const;
};

class GrpcServer {
 public:
  // Listens on host:port and starts serving `server`, which must outlive the GrpcServer. Unavailable when the
  // address cannot be bound (in use, or no such interface); the options' errors as Validate says.
  static Result<std::unique_ptr<GrpcServer>> Start(Server& server, const GrpcServerOptions& options);
  // Shutdown(now) if not shut down yet.
  ~GrpcServer();
  GrpcServer(const GrpcServer&) = delete;
  GrpcServer& operator=(const GrpcServer&) = delete;

  // The bound port (the chosen one when options.port was 0).
  int port() const;
  // "127.0.0.1:8001", as a client would dial it.
  const std::string& address() const;

  // Stops accepting calls; calls in progress may finish until `deadline`, after which gRPC cancels them. Returns
  // once every ModelInfer handed to the server has had its callback (the Server guarantees one per request, and
  // its own Shutdown bounds how long that takes) and pending repository loads/unloads have answered. Idempotent;
  // thread-safe.
  void Shutdown(std::chrono::steady_clock::time_point deadline);

 private:
  struct Impl;
  explicit GrpcServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace hone::serve
