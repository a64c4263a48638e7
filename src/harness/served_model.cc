#include "harness/served_model.h"

#include <fmt/format.h>

#include <chrono>

namespace hone::harness {

Result<std::unique_ptr<ServedModel>> ServedModel::Start(const std::string& repository, const std::string& model,
                                                        bench::RemoteProtocol protocol) {
  auto started = std::chrono::steady_clock::now();
  std::unique_ptr<ServedModel> served(new ServedModel());
  served->model_ = model;
  served->protocol_ = protocol;
  ServerAssemblyOptions options;
  options.server.model_repository = repository;
  options.server.control_mode = serve::ModelControlMode::kNone;
  options.server.repository_api = false;
  // One front end, on an ephemeral loopback port: the one the trial's client speaks.
  if (protocol == bench::RemoteProtocol::kHttp) {
    serve::http::HttpServerOptions& http = options.http.emplace();
    http.port = 0;
    http.serve_metrics = false;
    http.repository_api = false;
  } else {
    serve::GrpcServerOptions& grpc = options.grpc.emplace();
    grpc.port = 0;
    grpc.repository_api = false;
  }
  HONE_ASSIGN_OR_RETURN(served->assembled_, AssembledServer::Open(options));
  // A model that fails to load leaves the server up, not ready; its reason is in the repository index.
  (void)served->assembled_->LoadModels();
  serve::Server& server = served->assembled_->server();
  auto ready = server.IsModelReady(model, 0);
  if (!ready.ok() || !*ready) {
    std::string reason = ready.ok() ? "not ready" : ready.status().message();
    for (const serve::RepositoryEntry& entry : server.RepositoryIndex(false)) {
      if (entry.name == model && !entry.reason.empty()) reason = entry.reason;
    }
    return Status::FailedPrecondition(fmt::format("hone serve could not load '{}' from '{}': {}", model, repository,
                                                  reason));
  }
  AssembledServer& assembled = *served->assembled_;
  const int port = assembled.http() ? assembled.http()->port() : assembled.grpc()->port();
  served->url_ = fmt::format("127.0.0.1:{}", port);
  served->ready_s_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return served;
}

bench::RemoteSettings ServedModel::Remote() const {
  bench::RemoteSettings remote;
  remote.url = url_;
  remote.protocol = protocol_;
  remote.binary = true;
  remote.model = model_;
  return remote;
}

}  // namespace hone::harness
