// Triton's flags that hone serve accepts so that a Triton command line runs unchanged, as KServe's
// kserve-tritonserver runtime writes one (`--model-store=/mnt/models --grpc-port=9000 --http-port=8080
// --allow-grpc=true --allow-http=true`, with an InferenceService's own args appended) and as users append to it.
//
// The flags hone has itself (--model-repository and its alias --model-store, the ports, --allow-*,
// --strict-readiness, --exit-timeout-secs, --model-control-mode, --load-model, the log flags) are its own options.
// This table holds the rest of Triton's: those that change nothing on a CPU server of ONNX models are accepted and
// named in one warning; those whose meaning hone cannot honour are refused by name with the reason, since a
// server that silently ignored `--grpc-use-ssl=true` would serve in the clear.
#pragma once

#include <CLI/CLI.hpp>

#include <map>
#include <string>
#include <vector>

#include "base/result.h"

namespace hone::cli {

enum class TritonFlagUse {
  kNoEffect,        // accepted whatever its value: GPU, backend, cache and tracing settings
  kOnlyWhenFalse,   // a switch: false (its default in Triton) is accepted, true is refused
  kRefused,         // refused whatever its value
};

struct TritonFlag {
  const char* name;  // "--backend-directory"
  TritonFlagUse use;
  const char* why;   // why it changes nothing here, or why hone cannot honour it
};

const std::vector<TritonFlag>& TritonFlags();

// Adds every flag of TritonFlags() to `sub` as an option taking one value (Triton's own syntax, `--name=value`),
// in a help group of its own; the values given land in `given` (flag name -> value).
void AddTritonFlags(CLI::App& sub, std::map<std::string, std::string>& given);

// The warning for the accepted flags among `given` ("" when none), or InvalidArgument naming the first refused one:
// "--grpc-use-ssl=true: Triton's TLS is not available in hone serve: terminate TLS in front of it (a balancer, an
// ingress or a mesh)".
Result<std::string> CheckTritonFlags(const std::map<std::string, std::string>& given);

}  // namespace hone::cli
