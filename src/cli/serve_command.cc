// hone serve --model-repository DIR: the KServe v2 server (HTTP, gRPC, metrics) until SIGTERM or SIGINT.
//
// Start-up order, so that every mistake is found before the slow part: the flags, then the repository (one that
// holds no model is refused), then every port is bound (a port in use is one message naming its flag), and only
// then do the models load (minutes for a large one); harness/server_assembly.h assembles the server and its front
// ends in that order, here and for tune's trials; this file keeps the flags, the signals and the exit codes. With
// --exit-on-error (the default, as in Triton) a model that fails to load ends the process, naming the model and
// the error.
//
// Shutdown order, so that every request gets exactly one response, including those a balancer or Kubernetes sends
// after the signal (harness/drain.h): on SIGTERM readiness fails at once (503) while requests that still arrive are
// served, HTTP replies say `Connection: close`, until no request has come for --drain-quiet-ms or
// --drain-grace-secs have passed; then stop taking inference (new requests get 503 / UNAVAILABLE), let in-flight
// requests finish, close the front ends (gRPC sends GOAWAY) and exit 0, all within --exit-timeout-secs of the
// signal. SIGINT (Ctrl-C) skips the grace period.
//
// Triton's command line runs as is (KServe's kserve-tritonserver runtime: `--model-store=/mnt/models
// --grpc-port=9000 --http-port=8080 --allow-grpc=true --allow-http=true`): --model-store is --model-repository,
// --http-address / --grpc-address / --metrics-address set one front end's address, and Triton's other flags are
// accepted with a warning or refused by name (cli/triton_flags.h).
#include <signal.h>

#include <fmt/format.h>

#include <chrono>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <optional>

#include "base/log.h"
#include "cli/commands.h"
#include "cli/triton_flags.h"
#include "harness/drain.h"
#include "harness/server_assembly.h"

namespace hone::cli {
namespace {

struct ServeFlags {
  serve::ServerOptions server;
  std::string control_mode = "none";
  std::string host = "127.0.0.1";
  std::string http_address, grpc_address, metrics_address;  // Triton's per front end; "": --host
  int http_port = 8000, grpc_port = 8001, metrics_port = 8002;
  bool allow_http = true, allow_grpc = true, allow_metrics = true;
  bool run_on_io_threads = true;
  int64_t max_body_bytes = 64ll << 20;
  int64_t grpc_max_message_bytes = std::numeric_limits<int32_t>::max();  // Triton's, and gRPC's most
  int http_threads = 0;
  int exit_timeout_secs = 30;
  int drain_grace_secs = 5;
  int drain_quiet_ms = 1000;
  std::map<std::string, std::string> triton_flags;  // Triton's flags given (triton_flags.h)
  int poll_secs = 15;
  bool exit_on_error = true;
  int log_verbose = 0;
  bool log_info = true, log_warning = true, log_error = true;
  std::string log_format = "text";
};

// A boolean is a flag, as everywhere in hone: --NAME, --NAME=false or --no-NAME; Triton's `--NAME false` is
// accepted too (the command line's argument check joins it). The help says the default.
void AddSwitch(CLI::App& sub, const std::string& name, bool& value, const std::string& help) {
  sub.add_flag(name + ",!--no-" + name.substr(2), value, help + (value ? " (default on)" : " (default off)"));
}

void AddFlags(CLI::App& sub, ServeFlags& f) {
  sub.add_option("--model-repository,--model-store", f.server.model_repository,
                 "the model repository (Triton's layout; --model-store is Triton's other name for it)")
      ->required();
  sub.add_option("--model-control-mode", f.control_mode, "none | explicit | poll")->capture_default_str();
  sub.add_option("--load-model", f.server.startup_models, "explicit mode: a model to load at start-up ('*': all)");
  AddSwitch(sub, "--strict-readiness", f.server.strict_readiness,
            "ready only when every model is loaded and warmed up (off: once the server is up)");
  sub.add_option("--repository-poll-secs", f.poll_secs, "poll mode: seconds between repository scans")
      ->capture_default_str();
  AddSwitch(sub, "--allow-repository-api", f.server.repository_api,
            "let clients index, load and unload models through the API");
  sub.add_option("--host", f.host, "address to listen on (127.0.0.1: this machine only; 0.0.0.0: every interface)")
      ->capture_default_str();
  sub.add_option("--http-address", f.http_address, "the HTTP front end's address (Triton's flag; default --host)");
  sub.add_option("--grpc-address", f.grpc_address, "the gRPC front end's address (Triton's flag; default --host)");
  sub.add_option("--metrics-address", f.metrics_address,
                 "the metrics port's address (Triton's flag; default --host)");
  sub.add_option("--http-port", f.http_port, "KServe v2 HTTP/REST port (0: any free port)")->capture_default_str();
  sub.add_option("--grpc-port", f.grpc_port, "KServe v2 gRPC port (0: any free port)")->capture_default_str();
  sub.add_option("--metrics-port", f.metrics_port, "Prometheus /metrics port (also served on the HTTP port)")
      ->capture_default_str();
  AddSwitch(sub, "--allow-http", f.allow_http, "serve HTTP");
  AddSwitch(sub, "--allow-grpc", f.allow_grpc, "serve gRPC");
  AddSwitch(sub, "--allow-metrics", f.allow_metrics, "serve /metrics on its own port");
  sub.add_option("--http-max-body-bytes", f.max_body_bytes, "largest HTTP request body accepted (413 beyond)")
      ->capture_default_str();
  sub.add_option("--grpc-max-message-bytes", f.grpc_max_message_bytes,
                 "largest gRPC request and response message (2147483647: Triton's and gRPC's most)")
      ->capture_default_str();
  AddSwitch(sub, "--default-warmup", f.server.default_warmup,
            "warm up a model that has no model_warmup with inputs hone generates (skipped, with a warning, for a "
            "model that takes none of them)");
  sub.add_option("--http-thread-count", f.http_threads, "HTTP front-end threads (0: 2)")->capture_default_str();
  AddSwitch(sub, "--run-on-io-threads", f.run_on_io_threads,
            "a request that can start at once (an instance idle, nothing queued) runs on the front end's thread "
            "that read it, without a hand-off to the instance's thread and back; one HTTP thread always stays free");
  sub.add_option("--cores", f.server.cores,
                 "cores the instances of all models share when configs set no intra_op_thread_count (0: this "
                 "machine's)")
      ->capture_default_str();
  sub.add_option("--exit-timeout-secs", f.exit_timeout_secs,
                 "on SIGTERM, how long the drain and the in-flight requests may take in all before the process exits")
      ->capture_default_str();
  sub.add_option("--drain-grace-secs", f.drain_grace_secs,
                 "on SIGTERM, how long to keep serving the requests that still arrive while readiness fails (the "
                 "balancer's checks or Kubernetes' endpoint update catch up); 0: stop taking requests at once")
      ->capture_default_str();
  sub.add_option("--drain-quiet-ms", f.drain_quiet_ms,
                 "ends the grace period early once no request has arrived for this long")
      ->capture_default_str();
  AddSwitch(sub, "--exit-on-error", f.exit_on_error,
            "exit (code 1) when a model fails to load at start-up, naming it (off: keep serving the others, live "
            "and not ready)");
  sub.add_option("--log-verbose", f.log_verbose, "verbose log lines up to this detail (0: none; 1: load details; "
                 "2: every request)")
      ->capture_default_str();
  AddSwitch(sub, "--log-info", f.log_info, "write info log lines");
  AddSwitch(sub, "--log-warning", f.log_warning, "write warning log lines");
  AddSwitch(sub, "--log-error", f.log_error, "write error log lines");
  sub.add_option("--log-format", f.log_format,
                 "text (\"I <UTC time> message\") | json (one object a line: timestamp, level, message, model)")
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
  if (f.log_format == "json") {
    SetLogFormat(LogFormat::kJson);
  } else if (f.log_format == "text" || f.log_format == "default") {  // "default": Triton's name for its text
    SetLogFormat(LogFormat::kText);
  } else {
    return Status::InvalidArgument("--log-format '" + f.log_format + "': expected text or json");
  }
  if (f.log_verbose < 0) return Status::InvalidArgument("--log-verbose: expected >= 0");
  SetLogVerbosity(f.log_verbose);
  SetLogLevelEnabled(LogLevel::kInfo, f.log_info);
  SetLogLevelEnabled(LogLevel::kWarning, f.log_warning);
  SetLogLevelEnabled(LogLevel::kError, f.log_error);
  if (f.poll_secs < 1) return Status::InvalidArgument("--repository-poll-secs: expected >= 1");
  if (f.exit_timeout_secs < 0) return Status::InvalidArgument("--exit-timeout-secs: expected >= 0");
  if (f.drain_grace_secs < 0) return Status::InvalidArgument("--drain-grace-secs: expected >= 0");
  if (f.drain_quiet_ms < 1) return Status::InvalidArgument("--drain-quiet-ms: expected >= 1");
  HONE_ASSIGN_OR_RETURN(std::string accepted, CheckTritonFlags(f.triton_flags));
  if (!accepted.empty()) LogWarning("{}", accepted);
  for (std::string* address : {&f.http_address, &f.grpc_address, &f.metrics_address}) {
    if (address->empty()) *address = f.host;
  }
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

// Reports why the server cannot start and returns `code`: as a log line with --log-format json (log collectors
// read standard error as JSON lines), else as plain "hone serve: ..." text.
int Fail(int code, const std::string& message) {
  if (GetLogFormat() == LogFormat::kJson) {
    LogError("hone serve: {}", message);
  } else {
    std::cerr << "hone serve: " << message << "\n";
  }
  return code;
}

int RunServe(ServeFlags& f) {
  if (Status s = Resolve(f); !s.ok()) return Fail(kExitUsage, s.message());
  // Block the stop signals before any thread starts (threads inherit the mask), then wait for them here.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  signal(SIGPIPE, SIG_IGN);  // a client that hangs up must not kill the server

  // The assembly keeps the start-up order: the repository, then every port bound, then the models load.
  harness::ServerAssemblyOptions assembly;
  assembly.server = f.server;
  assembly.log_endpoints = true;
  if (f.allow_metrics) {
    serve::http::HttpServerOptions& options = assembly.metrics.emplace();
    options.host = f.metrics_address;
    options.port = static_cast<uint16_t>(f.metrics_port);
    options.serve_api = false;
    options.threads = 1;
    assembly.metrics_label = fmt::format("--metrics-port {}", f.metrics_port);
  }
  if (f.allow_grpc) {
    serve::GrpcServerOptions& options = assembly.grpc.emplace();
    options.host = f.grpc_address;
    options.port = f.grpc_port;
    options.max_message_bytes = static_cast<int>(f.grpc_max_message_bytes);
    options.repository_api = f.server.repository_api;
    options.run_on_callback_threads = f.run_on_io_threads;
    assembly.grpc_label = fmt::format("--grpc-port {}", f.grpc_port);
  }
  if (f.allow_http) {
    serve::http::HttpServerOptions& options = assembly.http.emplace();
    options.host = f.http_address;
    options.port = static_cast<uint16_t>(f.http_port);
    options.max_body_bytes = static_cast<size_t>(f.max_body_bytes);
    options.repository_api = f.server.repository_api;
    if (f.http_threads > 0) options.threads = f.http_threads;
    options.run_on_io_threads = f.run_on_io_threads;
    assembly.http_label = fmt::format("--http-port {}", f.http_port);
  }
  auto server = harness::AssembledServer::Open(assembly);
  if (!server.ok()) return Fail(kExitUsage, server.status().message());
  if (Status loaded = (*server)->LoadModels(); !loaded.ok()) {
    if (f.exit_on_error) {
      (*server)->Abort();
      return Fail(kExitCheckFailed, fmt::format("{} (--exit-on-error=false keeps serving the other models, live "
                                                "and not ready)",
                                                loaded.message()));
    }
    LogWarning("serving without the models that failed to load: {}", loaded.message());
  }
  LogInfo("server {}", (*server)->server().IsReady() ? "ready" : "live, not ready (see the model errors above)");

  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(f.exit_timeout_secs);
  if (signal_number == SIGTERM && f.drain_grace_secs > 0 && f.exit_timeout_secs > 0) {
    // The grace period fits in --exit-timeout-secs, leaving a second of it for the requests still in flight.
    const harness::DrainPlan plan{
        .grace = std::chrono::milliseconds(1000 * std::min(f.drain_grace_secs, std::max(f.exit_timeout_secs - 1, 0))),
        .quiet = std::chrono::milliseconds(f.drain_quiet_ms)};
    LogInfo("{}: not ready from now on; serving the requests that still arrive for up to {} s (less once none has "
            "come for {} ms), then finishing in-flight requests and exiting within {} s",
            strsignal(signal_number), plan.grace.count() / 1000, f.drain_quiet_ms, f.exit_timeout_secs);
    const harness::DrainResult drained =
        harness::DrainTraffic((*server)->server(), plan, [&](std::chrono::milliseconds wait) {
          const timespec ts{static_cast<time_t>(wait.count() / 1000), static_cast<long>(wait.count() % 1000) * 1000000};
          return sigtimedwait(&stop_signals, nullptr, &ts) > 0;  // a second SIGTERM or SIGINT ends the grace
        });
    LogInfo("drained after {:.1f} s ({}): {} request(s) arrived and were served; finishing in-flight requests",
            static_cast<double>(drained.waited.count()) / 1000, harness::DrainEndName(drained.end), drained.requests);
  } else {
    LogInfo("{}: finishing in-flight requests (up to {} s), then exiting", strsignal(signal_number),
            f.exit_timeout_secs);
  }
  (*server)->Shutdown(deadline);
  LogInfo("stopped");
  return kExitOk;
}

}  // namespace

Command AddServeCommand(CLI::App& app) {
  auto* sub = app.add_subcommand("serve", "serve a model repository over KServe v2 (HTTP and gRPC)");
  auto flags = std::make_shared<ServeFlags>();
  sub->footer("Examples:\n"
                 "  hone serve --model-repository repo/\n"
                 "  hone serve --model-repository repo/ --http-port 8000 --grpc-port 8001 --model-control-mode explicit --load-model '*'\n"
                 "  hone serve --model-store=/mnt/models --grpc-port=9000 --http-port=8080 --allow-grpc=true --allow-http=true --host 0.0.0.0   # KServe's Triton runtime's command line");
  AddFlags(*sub, *flags);
  AddTritonFlags(*sub, flags->triton_flags);
  // A flag given twice takes its last value, as in Triton: KServe appends an InferenceService's args after its
  // runtime's, so `--exit-timeout-secs=100` there must replace the runtime's value, not fail the pod's start.
  for (CLI::Option* option : sub->get_options()) {
    if (option->get_items_expected_max() == 1) option->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  }
  return [flags] { return RunServe(*flags); };
}

}  // namespace hone::cli
