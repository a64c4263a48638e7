#include "harness/server_assembly.h"

#include <fmt/format.h>

#include <algorithm>

#include "base/log.h"

namespace hone::harness {

Result<std::unique_ptr<AssembledServer>> AssembledServer::Open(const ServerAssemblyOptions& options) {
  std::unique_ptr<AssembledServer> assembled(new AssembledServer());
  HONE_ASSIGN_OR_RETURN(assembled->server_, serve::Server::Open(options.server));
  // Every port listens before a model loads: a port in use is found in a moment, not after minutes of loading.
  serve::Server& server = *assembled->server_;
  auto failed = [&](const Status& status, const std::string& label) {
    assembled->Abort();  // nothing is in flight yet: close what had started without waiting
    return Status(status.code(), label + ": " + status.message());
  };
  if (options.metrics) {
    auto started = serve::http::HttpServer::Start(server, *options.metrics);
    if (!started.ok()) return failed(started.status(), options.metrics_label);
    assembled->metrics_ = std::move(*started);
    if (options.log_endpoints)
      LogInfo("Prometheus metrics on {}:{}/metrics", options.metrics->host, assembled->metrics_->port());
  }
  if (options.grpc) {
    auto started = serve::GrpcServer::Start(server, *options.grpc);
    if (!started.ok()) return failed(started.status(), options.grpc_label);
    assembled->grpc_ = std::move(*started);
    if (options.log_endpoints) LogInfo("KServe v2 gRPC on {}:{}", options.grpc->host, assembled->grpc_->port());
  }
  if (options.http) {
    auto started = serve::http::HttpServer::Start(server, *options.http);
    if (!started.ok()) return failed(started.status(), options.http_label);
    assembled->http_ = std::move(*started);
    if (options.log_endpoints) LogInfo("KServe v2 HTTP on {}:{}", options.http->host, assembled->http_->port());
  }
  return assembled;
}

AssembledServer::~AssembledServer() {
  if (!stopped_) Shutdown(std::chrono::steady_clock::now() + std::chrono::seconds(5));
}

Status AssembledServer::LoadModels() { return server_->Start(); }

void AssembledServer::Shutdown(std::chrono::steady_clock::time_point deadline) {
  stopped_ = true;
  if (server_) server_->Shutdown(deadline);
  // In-flight responses are handed to the front ends by now; give them until the deadline to be written.
  auto close_deadline = std::max(deadline, std::chrono::steady_clock::now() + std::chrono::seconds(1));
  if (grpc_) grpc_->Shutdown(close_deadline);
  if (http_) http_->Stop();
  if (metrics_) metrics_->Stop();
}

void AssembledServer::Abort() {
  stopped_ = true;
  const auto now = std::chrono::steady_clock::now();
  // Front ends first: they call into the server until they stop.
  if (grpc_) grpc_->Shutdown(now);
  if (http_) http_->Stop();
  if (metrics_) metrics_->Stop();
  if (server_) server_->Shutdown(now);
}

}  // namespace hone::harness
