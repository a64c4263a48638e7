#include "serve/grpc/grpc_server.h"

#include <mutex>
#include <utility>

#include <grpcpp/grpcpp.h>

#include "serve/grpc/host_port.h"
#include "serve/grpc/inference_service.h"
#include "serve/grpc/serial_executor.h"

namespace hone::serve {

using grpc_front::HostPort;
using grpc_front::InferenceService;
using grpc_front::SerialExecutor;

struct GrpcServer::Impl {
  // Destroyed bottom up: the gRPC server first, then the service its handlers live in, then the executor its
  // blocking handlers run on.
  SerialExecutor repository_work;
  std::unique_ptr<InferenceService> service;
  std::unique_ptr<::grpc::Server> server;
  int port = 0;
  std::string address;
  std::once_flag shutdown_once;
};

Status GrpcServerOptions::Validate() const {
  if (host.empty()) return Status::InvalidArgument("gRPC host: expected an address such as 127.0.0.1");
  if (port < 0 || port > 65535)
    return Status::InvalidArgument("gRPC port " + std::to_string(port) + ": expected 0..65535 (0: any free port)");
  if (max_message_bytes <= 0)
    return Status::InvalidArgument("gRPC max_message_bytes " + std::to_string(max_message_bytes) +
                                   ": expected a positive size");
  return Status::Ok();
}

Result<std::unique_ptr<GrpcServer>> GrpcServer::Start(Server& server, const GrpcServerOptions& options) {
  HONE_RETURN_IF_ERROR(options.Validate());
  auto impl = std::make_unique<Impl>();
  impl->service = std::make_unique<InferenceService>(server, options.repository_api, impl->repository_work,
                                                     options.max_message_bytes);

  ::grpc::ServerBuilder builder;
  const std::string listen = HostPort(options.host, options.port);
  builder.AddListeningPort(listen, ::grpc::InsecureServerCredentials(), &impl->port);
  builder.RegisterService(impl->service.get());
  builder.SetMaxReceiveMessageSize(options.max_message_bytes);
  builder.SetMaxSendMessageSize(options.max_message_bytes);
  // gRPC sets SO_REUSEPORT by default, which lets a second server bind a port that is in use and silently share
  // its traffic; a port conflict must be an error instead.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  impl->server = builder.BuildAndStart();
  if (!impl->server || impl->port == 0)
    return Status::Unavailable("gRPC: cannot listen on " + listen + " (address in use or not local?)");
  impl->address = HostPort(options.host, impl->port);
  return std::unique_ptr<GrpcServer>(new GrpcServer(std::move(impl)));
}

GrpcServer::GrpcServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

GrpcServer::~GrpcServer() { Shutdown(std::chrono::steady_clock::now()); }

int GrpcServer::port() const { return impl_->port; }

const std::string& GrpcServer::address() const { return impl_->address; }

void GrpcServer::Shutdown(std::chrono::steady_clock::time_point deadline) {
  std::call_once(impl_->shutdown_once, [&] {
    // gRPC takes system_clock deadlines.
    auto left = deadline - std::chrono::steady_clock::now();
    impl_->server->Shutdown(std::chrono::system_clock::now() +
                            std::chrono::duration_cast<std::chrono::system_clock::duration>(left));
    // Load and unload calls already queued still answer (they are blocking the server's model manager, not gRPC).
    impl_->repository_work.Stop();
    impl_->service->in_flight()->WaitForNone();
  });
}

}  // namespace hone::serve
