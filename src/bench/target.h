// What a benchmark sends requests to. In-process targets here; remote ones (a server over HTTP or gRPC) later.
// Infer is called concurrently from the load generator's threads, so implementations must be thread-safe.
#pragma once

#include <chrono>
#include <span>
#include <string>

#include "base/status.h"
#include "runtime/session.h"
#include "tensor/tensor.h"

namespace hone::bench {

// Where a request's time went on the client's side, for perf_analyzer's "Client Send" and "Client Recv" columns:
// `send` from the start of serializing the request until its last byte is written, `recv` from the first byte of
// the response until it is parsed. `timed` stays false for a target that cannot tell (in process, or a client that
// does not time its phases); reports then leave those columns empty rather than print zeros.
struct RequestPhases {
  std::chrono::nanoseconds send{0};
  std::chrono::nanoseconds recv{0};
  bool timed = false;
};

class Target {
 public:
  virtual ~Target() = default;
  // Runs one request to completion. Errors are counted, not fatal.
  virtual Status Infer(std::span<const Tensor> inputs) = 0;
  // Infer, filling `phases` when the target can tell its client-side phases apart. The load generator calls this.
  virtual Status InferTimed(std::span<const Tensor> inputs, RequestPhases& phases) {
    (void)phases;
    return Infer(inputs);
  }
  // "in-process ONNX Runtime session" / "null target"
  virtual std::string Describe() const = 0;
};

// Runs requests on a runtime::Session in this process: the measurement of the model and runtime alone.
class SessionTarget : public Target {
 public:
  explicit SessionTarget(const runtime::Session& session) : session_(session) {}
  Status Infer(std::span<const Tensor> inputs) override { return session_.Run(inputs).status(); }
  std::string Describe() const override { return "in-process ONNX Runtime session"; }

 private:
  const runtime::Session& session_;
};

// Does nothing and succeeds: measures the load generator's own overhead (as LoadGen's null SUT does).
class NullTarget : public Target {
 public:
  Status Infer(std::span<const Tensor>) override { return Status::Ok(); }
  std::string Describe() const override { return "null target (load generator overhead)"; }
};

}  // namespace hone::bench
