// hone serve --model-repository DIR: the KServe v2 server (HTTP, gRPC, metrics) until SIGTERM or SIGINT.
//
// Shutdown order, so that every request gets exactly one response: stop taking inference (new requests get 503 /
// UNAVAILABLE, health keeps answering with ready=false), let in-flight requests finish until --exit-timeout-secs,
// then close the front ends, then exit 0.
#include <signal.h>

#include <fmt/format.h>

#include <chrono>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>

#include "base/log.h"
#include "cli/commands.h"
#include "serve/core/server.h"
#include "serve/grpc/grpc_server.h"
#include "serve/http/http_server.h"

namespace hone::cli {
namespace {

struct ServeFlags {
  serve::ServerOptions server;
  std::string control_mode = "none";
  std::string host = "127.0.0.1";
  int http_port = 8000, grpc_port = 8001, metrics_port = 8002;
  bool allow_http = true, allow_grpc = true, allow_metrics = true;
  int64_t max_body_bytes = 64ll << 20;
  int64_t grpc_max_message_bytes = std::numeric_limits<int32_t>::max();  // Triton's, and gRPC's most
  int http_threads = 0;
  int exit_timeout_secs = 30;
  int poll_secs = 15;
};

void AddFlags(CLI::App& sub, ServeFlags& f) {
  sub.add_option("--model-repository", f.server.model_repository, "the model repository (Triton's layout)")
      ->required();
  sub.add_option("--model-control-mode", f.control_mode, "none | explicit | poll")->capture_default_str();
  sub.add_option("--load-model", f.server.startup_models, "explicit mode: a model to load at start-up ('*': all)");
  sub.add_option("--strict-readiness", f.server.strict_readiness,
                 "ready only when every model is loaded and warmed up (false: once the server is up)")
      ->capture_default_str();
  sub.add_option("--repository-poll-secs", f.poll_secs, "poll mode: seconds between repository scans")
      ->capture_default_str();
  sub.add_option("--allow-repository-api", f.server.repository_api,
                 "let clients index, load and unload models through the API")
      ->capture_default_str();
  sub.add_option("--host", f.host, "address to listen on (127.0.0.1: this machine only)")->capture_default_str();
  sub.add_option("--http-port", f.http_port, "KServe v2 HTTP/REST port (0: any free port)")->capture_default_str();
  sub.add_option("--grpc-port", f.grpc_port, "KServe v2 gRPC port (0: any free port)")->capture_default_str();
  sub.add_option("--metrics-port", f.metrics_port, "Prometheus /metrics port (also served on the HTTP port)")
      ->capture_default_str();
  sub.add_option("--allow-http", f.allow_http, "serve HTTP")->capture_default_str();
  sub.add_option("--allow-grpc", f.allow_grpc, "serve gRPC")->capture_default_str();
  sub.add_option("--allow-metrics", f.allow_metrics, "serve /metrics on its own port")->capture_default_str();
  sub.add_option("--http-max-body-bytes", f.max_body_bytes, "largest HTTP request body accepted (413 beyond)")
      ->capture_default_str();
  sub.add_option("--grpc-max-message-bytes", f.grpc_max_message_bytes,
                 "largest gRPC request and response message (2147483647: Triton's and gRPC's most)")
      ->capture_default_str();
  sub.add_option("--default-warmup", f.server.default_warmup,
                 "warm up a model that has no model_warmup with inputs hone generates (skipped, with a warning, "
                 "for a model that takes none of them)")
      ->capture_default_str();
  sub.add_option("--http-thread-count", f.http_threads, "HTTP front-end threads (0: 2)")->capture_default_str();
  sub.add_option("--cores", f.server.cores, "cores a model's instances share (0: this machine's)")
      ->capture_default_str();
  sub.add_option("--exit-timeout-secs", f.exit_timeout_secs,
                 "on SIGTERM, how long in-flight requests may take to finish")
      ->capture_default_str();
}

Status Resolve(ServeFlags& f) {
  if (f.control_mode == "none") {
    f.server.control_mode = serve::ModelControlMode::kNone;
  } else if (f.control_mode == "explicit") {
    f.server.control_mode = serve::ModelControlMode::kExplicit;
  } else if (f.control_mode == "poll") {
    f.server.control_mode = serve::ModelControlMode::kPoll;
  } else {
    return Status::InvalidArgument("--model-control-mode '" + f.control_mode + "': expected none, explicit or poll");
  }
  if (f.poll_secs < 1) return Status::InvalidArgument("--repository-poll-secs: expected >= 1");
  if (f.exit_timeout_secs < 0) return Status::InvalidArgument("--exit-timeout-secs: expected >= 0");
  for (int port : {f.http_port, f.grpc_port, f.metrics_port}) {
    if (port < 0 || port > 65535) return Status::InvalidArgument(fmt::format("port {}: expected 0..65535", port));
  }
  if (f.max_body_bytes < 1024) return Status::InvalidArgument("--http-max-body-bytes: expected >= 1024");
  if (f.grpc_max_message_bytes < 1024 || f.grpc_max_message_bytes > std::numeric_limits<int32_t>::max())
    return Status::InvalidArgument(fmt::format("--grpc-max-message-bytes {}: expected 1024 to {}",
                                               f.grpc_max_message_bytes, std::numeric_limits<int32_t>::max()));
  if (!f.allow_http && !f.allow_grpc) return Status::InvalidArgument("--allow-http and --allow-grpc are both false");
  f.server.repository_poll_interval = std::chrono::seconds(f.poll_secs);
  return Status::Ok();
}

int RunServe(ServeFlags& f) {
  if (Status s = Resolve(f); !s.ok()) {
    std::cerr << "hone serve: " << s.message() << "\n";
    return kExitUsage;
  }
  // Block the stop signals before any thread starts (threads inherit the mask), then wait for them here.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  signal(SIGPIPE, SIG_IGN);  // a client that hangs up must not kill the server

  auto server = serve::Server::Create(f.server);
  if (!server.ok()) {
    std::cerr << "hone serve: " << server.status().message() << "\n";
    return kExitUsage;
  }
  std::unique_ptr<serve::http::HttpServer> http, metrics;
  std::unique_ptr<serve::GrpcServer> grpc;
  // Metrics and gRPC listen before HTTP: clients poll /v2/health/ready, and once it says ready every port must
  // already accept connections.
  if (f.allow_metrics) {
    serve::http::HttpServerOptions options;
    options.host = f.host;
    options.port = static_cast<uint16_t>(f.metrics_port);
    options.serve_api = false;
    options.threads = 1;
    auto started = serve::http::HttpServer::Start(**server, options);
    if (!started.ok()) {
      std::cerr << "hone serve: metrics: " << started.status().message() << "\n";
      return kExitUsage;
    }
    metrics = std::move(*started);
    LogInfo("Prometheus metrics on {}:{}/metrics", f.host, metrics->port());
  }
  if (f.allow_grpc) {
    serve::GrpcServerOptions options;
    options.host = f.host;
    options.port = f.grpc_port;
    options.max_message_bytes = static_cast<int>(f.grpc_max_message_bytes);
    options.repository_api = f.server.repository_api;
    auto started = serve::GrpcServer::Start(**server, options);
    if (!started.ok()) {
      std::cerr << "hone serve: gRPC: " << started.status().message() << "\n";
      return kExitUsage;
    }
    grpc = std::move(*started);
    LogInfo("KServe v2 gRPC on {}:{}", f.host, grpc->port());
  }
  if (f.allow_http) {
    serve::http::HttpServerOptions options;
    options.host = f.host;
    options.port = static_cast<uint16_t>(f.http_port);
    options.max_body_bytes = static_cast<size_t>(f.max_body_bytes);
    options.repository_api = f.server.repository_api;
    if (f.http_threads > 0) options.threads = f.http_threads;
    auto started = serve::http::HttpServer::Start(**server, options);
    if (!started.ok()) {
      std::cerr << "hone serve: HTTP: " << started.status().message() << "\n";
      return kExitUsage;
    }
    http = std::move(*started);
    LogInfo("KServe v2 HTTP on {}:{}", f.host, http->port());
  }
  LogInfo("server {}", (*server)->IsReady() ? "ready" : "live, not ready (see the model errors above)");

  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(f.exit_timeout_secs);
  LogInfo("{}: finishing in-flight requests (up to {} s), then exiting", strsignal(signal_number),
          f.exit_timeout_secs);
  (*server)->Shutdown(deadline);
  // In-flight responses are handed to the front ends by now; give them until the deadline to be written.
  auto close_deadline = std::max(deadline, std::chrono::steady_clock::now() + std::chrono::seconds(1));
  if (grpc) grpc->Shutdown(close_deadline);
  if (http) http->Stop();
  if (metrics) metrics->Stop();
  LogInfo("stopped");
  return kExitOk;
}

}  // namespace

Command AddServeCommand(CLI::App& app) {
  auto* sub = app.add_subcommand("serve", "serve a model repository over KServe v2 (HTTP and gRPC)");
  auto flags = std::make_shared<ServeFlags>();
  AddFlags(*sub, *flags);
  return [flags] { return RunServe(*flags); };
}

}  // namespace hone::cli
