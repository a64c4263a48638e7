#include "serve/grpc/grpc_server.h"

#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <utility>

#include <absl/synchronization/mutex.h>
#include <grpcpp/grpcpp.h>

#include "client/host_port.h"
#include "serve/grpc/inference_service.h"
#include "serve/grpc/serial_executor.h"

namespace hone::serve {

using client::HostPort;
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

namespace {

// Why host:port cannot be bound, in the operating system's words ("address already in use"): gRPC only says that
// it failed, so bind a plain socket there (and close it at once) to ask. "" when that bind works.
std::string BindError(const std::string& host, int port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  // "[::1]" as gRPC takes it is "::1" to getaddrinfo.
  const std::string bare = host.size() > 2 && host.front() == '[' && host.back() == ']' ? host.substr(1, host.size() - 2) : host;
  if (int rc = getaddrinfo(bare.c_str(), service.c_str(), &hints, &found); rc != 0) return gai_strerror(rc);
  std::string error;
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    int fd = ::socket(a->ai_family, a->ai_socktype, a->ai_protocol);
    if (fd < 0) {
      error = std::strerror(errno);
      continue;
    }
    int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    const int rc = ::bind(fd, a->ai_addr, a->ai_addrlen);
    const int bind_errno = errno;
    ::close(fd);
    if (rc == 0) {
      error.clear();
      break;
    }
    error = std::strerror(bind_errno);
  }
  freeaddrinfo(found);
  if (!error.empty()) error[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(error[0])));
  return error;
}

}  // namespace

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
                                                     options.max_message_bytes,
                                                     options.run_on_callback_threads ? 1 : 0);

  const std::string listen = HostPort(options.host, options.port);
  // Asked first, so that a port in use is one clean error rather than gRPC's own multi-line log of it too.
  if (options.port != 0) {
    if (std::string why = BindError(options.host, options.port); !why.empty())
      return Status::Unavailable("cannot listen on " + listen + ": " + why);
  }
  // Debian's Abseil is built with its debug checks, so every absl::Mutex that gRPC locks also records the lock in a
  // graph to look for deadlocks (about 1% of the server's CPU at concurrency 1). A debugging aid for Abseil's users,
  // not a check a server needs: off for the whole process.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  ::grpc::ServerBuilder builder;
  builder.AddListeningPort(listen, ::grpc::InsecureServerCredentials(), &impl->port);
  builder.RegisterService(impl->service.get());
  builder.SetMaxReceiveMessageSize(options.max_message_bytes);
  builder.SetMaxSendMessageSize(options.max_message_bytes);
  // gRPC sets SO_REUSEPORT by default, which lets a second server bind a port that is in use and silently share
  // its traffic; a port conflict must be an error instead.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  impl->server = builder.BuildAndStart();
  if (!impl->server || impl->port == 0) {
    const std::string why = BindError(options.host, options.port);
    return Status::Unavailable("cannot listen on " + listen + ": " +
                               (why.empty() ? "gRPC could not bind it (not a local address?)" : why));
  }
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
