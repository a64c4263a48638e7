// A hone server with its front ends, assembled in one place for every caller that runs one: `hone serve` (the
// process is the server) and tune's trials (a server in this process on loopback, served_model.h).
//
// Start-up order, so that every mistake is found before the slow part: the repository is checked (Open), then every
// port is bound (metrics, gRPC, HTTP: a port in use is one message naming it), and only then do the models load
// (LoadModels, minutes for a large one). Until they have, health says live and not ready.
//
// Stop order, so that every request gets exactly one response: stop taking inference and let in-flight requests
// finish (Shutdown's deadline), then close the front ends. Abort, for a start-up that failed, closes the front ends
// first (they call into the server until they stop) and stops the server at once.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "base/result.h"
#include "serve/core/server.h"
#include "serve/grpc/grpc_server.h"
#include "serve/http/http_server.h"

namespace hone::harness {

struct ServerAssemblyOptions {
  serve::ServerOptions server;
  // Each front end listens when it is set. `metrics` is an HTTP server that serves /metrics only, on its own port.
  std::optional<serve::http::HttpServerOptions> metrics;
  std::optional<serve::GrpcServerOptions> grpc;
  std::optional<serve::http::HttpServerOptions> http;
  // How a start-up error names each port ("--http-port 8000"), so that the message says what to change.
  std::string metrics_label = "metrics port", grpc_label = "gRPC port", http_label = "HTTP port";
  // Log each front end's address as it starts listening (hone serve tells its operator; a trial stays quiet).
  bool log_endpoints = false;
};

class AssembledServer {
 public:
  // Checks the repository and binds every port; no model is loaded yet. The repository's error as the server
  // gives it; a front end that cannot start is "<label>: <reason>" (front ends already started are closed).
  static Result<std::unique_ptr<AssembledServer>> Open(const ServerAssemblyOptions& options);
  ~AssembledServer();  // Shutdown with 5 s to drain, unless Shutdown or Abort ran
  AssembledServer(const AssembledServer&) = delete;
  AssembledServer& operator=(const AssembledServer&) = delete;

  // Loads the startup models (serve::Server::Start). A model that fails leaves the server up, live and not ready,
  // serving the others; the status names it.
  Status LoadModels();
  // Stops taking inference, lets in-flight requests finish until `deadline`, then closes the front ends, giving
  // them at least one more second to write the last responses.
  void Shutdown(std::chrono::steady_clock::time_point deadline);
  // Closes the front ends, then stops the server, without waiting: for a start-up that failed.
  void Abort();

  serve::Server& server() { return *server_; }
  // Null where that front end was not asked for.
  serve::http::HttpServer* http() { return http_.get(); }
  serve::GrpcServer* grpc() { return grpc_.get(); }
  serve::http::HttpServer* metrics() { return metrics_.get(); }

 private:
  AssembledServer() = default;
  std::unique_ptr<serve::Server> server_;
  // Declared after the server so that they are destroyed before it.
  std::unique_ptr<serve::http::HttpServer> metrics_, http_;
  std::unique_ptr<serve::GrpcServer> grpc_;
  bool stopped_ = false;
};

}  // namespace hone::harness
