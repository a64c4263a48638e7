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
  serve::ServerOptions options;
  options.model_repository = repository;
  options.control_mode = serve::ModelControlMode::kNone;
  options.repository_api = false;
  HONE_ASSIGN_OR_RETURN(served->server_, serve::Server::Create(options));
  auto ready = served->server_->IsModelReady(model, 0);
  if (!ready.ok() || !*ready) {
    std::string reason = ready.ok() ? "not ready" : ready.status().message();
    for (const serve::RepositoryEntry& entry : served->server_->RepositoryIndex(false)) {
      if (entry.name == model && !entry.reason.empty()) reason = entry.reason;
    }
    return Status::FailedPrecondition(fmt::format("hone serve could not load '{}' from '{}': {}", model, repository,
                                                  reason));
  }
  if (protocol == bench::RemoteProtocol::kHttp) {
    serve::http::HttpServerOptions http;
    http.port = 0;
    http.serve_metrics = false;
    http.repository_api = false;
    HONE_ASSIGN_OR_RETURN(served->http_, serve::http::HttpServer::Start(*served->server_, http));
    served->url_ = fmt::format("127.0.0.1:{}", served->http_->port());
  } else {
    serve::GrpcServerOptions grpc;
    grpc.port = 0;
    grpc.repository_api = false;
    HONE_ASSIGN_OR_RETURN(served->grpc_, serve::GrpcServer::Start(*served->server_, grpc));
    served->url_ = fmt::format("127.0.0.1:{}", served->grpc_->port());
  }
  served->ready_s_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return served;
}

ServedModel::~ServedModel() {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  if (server_) server_->Shutdown(deadline);
  if (http_) http_->Stop();
  if (grpc_) grpc_->Shutdown(deadline);
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
