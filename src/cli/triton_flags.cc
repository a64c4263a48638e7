#include "cli/triton_flags.h"

#include <fmt/format.h>

namespace hone::cli {

const std::vector<TritonFlag>& TritonFlags() {
  using enum TritonFlagUse;
  static const std::vector<TritonFlag> flags = {
      {"--backend-directory", kNoEffect, "hone has its ONNX Runtime built in, no backend libraries"},
      {"--repoagent-directory", kNoEffect, "hone loads no repository agents"},
      {"--backend-config", kNoEffect, "hone's ONNX Runtime settings are per model, in config.pbtxt's parameters"},
      {"--pinned-memory-pool-byte-size", kNoEffect, "no GPU: no pinned memory"},
      {"--cuda-memory-pool-byte-size", kNoEffect, "no GPU"},
      {"--cuda-virtual-address-size", kNoEffect, "no GPU"},
      {"--min-supported-compute-capability", kNoEffect, "no GPU"},
      {"--allow-gpu-metrics", kNoEffect, "no GPU"},
      {"--allow-cpu-metrics", kNoEffect, "hone's /metrics has no CPU utilization gauges"},
      {"--metrics-interval-ms", kNoEffect, "hone's metrics are read when scraped, not sampled"},
      {"--buffer-manager-thread-count", kNoEffect, "hone has no buffer manager threads"},
      {"--model-load-thread-count", kNoEffect, "hone loads models one after another"},
      {"--disable-auto-complete-config", kNoEffect,
       "hone completes a config from the model as Triton does, and its completed config is what it serves"},
      {"--strict-model-config", kNoEffect, "deprecated in Triton; hone completes configs from the model"},
      {"--rate-limit", kNoEffect, "hone has no rate limiter: instances take requests as they are free"},
      {"--response-cache-byte-size", kNoEffect, "hone has no response cache"},
      {"--cache-config", kNoEffect, "hone has no response cache"},
      {"--host-policy", kNoEffect, "hone has no host policies: --cores bounds its threads"},
      {"--id", kNoEffect, "the server metadata's name is hone's"},
      {"--trace-config", kNoEffect, "hone has no request tracing"},
      {"--trace-file", kNoEffect, "hone has no request tracing"},
      {"--trace-level", kNoEffect, "hone has no request tracing"},
      {"--trace-rate", kNoEffect, "hone has no request tracing"},
      {"--grpc-infer-allocation-pool-size", kNoEffect, "hone allocates gRPC responses per call"},
      {"--grpc-keepalive-time", kNoEffect, "hone's gRPC keep-alive is gRPC's default"},
      {"--grpc-keepalive-timeout", kNoEffect, "hone's gRPC keep-alive is gRPC's default"},
      {"--grpc-keepalive-permit-without-calls", kNoEffect, "hone's gRPC keep-alive is gRPC's default"},
      {"--grpc-http2-max-pings-without-data", kNoEffect, "hone's gRPC keep-alive is gRPC's default"},
      {"--http-header-forward-pattern", kNoEffect, "hone forwards no headers to models"},
      {"--grpc-header-forward-pattern", kNoEffect, "hone forwards no headers to models"},
      {"--allow-sagemaker", kOnlyWhenFalse, "hone serves no SageMaker endpoints"},
      {"--allow-vertex-ai", kOnlyWhenFalse, "hone serves no Vertex AI endpoints"},
      {"--grpc-use-ssl", kOnlyWhenFalse,
       "Triton's TLS is not available in hone serve: terminate TLS in front of it (a balancer, an ingress or a mesh)"},
      {"--grpc-use-ssl-mutual", kOnlyWhenFalse,
       "Triton's TLS is not available in hone serve: terminate TLS in front of it (a balancer, an ingress or a mesh)"},
      {"--reuse-http-port", kOnlyWhenFalse, "hone binds each port once"},
      {"--reuse-grpc-port", kOnlyWhenFalse, "hone binds each port once"},
      {"--model-namespacing", kOnlyWhenFalse, "hone's model names are one namespace"},
      {"--log-file", kRefused, "hone logs to standard error (redirect it, or let the container runtime collect it)"},
      {"--grpc-server-cert", kRefused, "Triton's TLS is not available in hone serve"},
      {"--grpc-server-key", kRefused, "Triton's TLS is not available in hone serve"},
      {"--grpc-root-cert", kRefused, "Triton's TLS is not available in hone serve"},
  };
  return flags;
}

void AddTritonFlags(CLI::App& sub, std::map<std::string, std::string>& given) {
  for (const TritonFlag& flag : TritonFlags()) {
    const std::string name = flag.name;
    const std::string help = flag.use == TritonFlagUse::kNoEffect ? fmt::format("accepted, no effect: {}", flag.why)
                             : flag.use == TritonFlagUse::kOnlyWhenFalse
                                 ? fmt::format("false only: {}", flag.why)
                                 : fmt::format("refused: {}", flag.why);
    // Triton takes some of them more than once (--backend-config): every value is kept.
    sub.add_option_function<std::vector<std::string>>(
           name,
           [&given, name](const std::vector<std::string>& values) {
             std::string joined;
             for (const std::string& v : values) joined += (joined.empty() ? "" : ",") + v;
             given[name] = joined;
           },
           help)
        ->take_all()
        ->group("Triton's flags that hone takes for compatibility");
  }
}

Result<std::string> CheckTritonFlags(const std::map<std::string, std::string>& given) {
  std::string accepted;
  for (const TritonFlag& flag : TritonFlags()) {
    auto it = given.find(flag.name);
    if (it == given.end()) continue;
    const std::string& value = it->second;
    const bool is_false = value == "false" || value == "0" || value == "off" || value == "no";
    if (flag.use == TritonFlagUse::kRefused || (flag.use == TritonFlagUse::kOnlyWhenFalse && !is_false)) {
      return Status::InvalidArgument(fmt::format("{}={}: {}", flag.name, value, flag.why));
    }
    if (flag.use == TritonFlagUse::kNoEffect) {
      accepted += fmt::format("{}{}={} ({})", accepted.empty() ? "" : "; ", flag.name, value, flag.why);
    }
  }
  if (accepted.empty()) return std::string();
  return "Triton's flags accepted without effect: " + accepted;
}

}  // namespace hone::cli
