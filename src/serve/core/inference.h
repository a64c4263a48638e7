// One inference request and its response, as every front end hands them to the server and gets them back.
//
// A front end parses the wire format into an InferenceRequest whose input tensors are views over the received
// bytes (`keep_alive` owns them), calls Server::Infer with a callback, and serializes whatever the callback gets.
// The callback runs exactly once per request, on any thread, with the response or the error that ended it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "client/inference_response.h"
#include "tensor/npz.h"  // NamedTensor

namespace hone::serve {

struct InferenceRequest {
  std::string model_name;
  int64_t model_version = 0;  // 0: the server picks (the highest ready version)
  std::string id;             // echoed in the response; may be empty
  std::vector<NamedTensor> inputs;
  // Outputs to return, by name, in the order the client asked; empty: every model output in model order.
  std::vector<std::string> requested_outputs;
  // Triton's classification extension: outputs to return as their top k classes (classification.h), by name.
  std::vector<std::pair<std::string, uint32_t>> classifications;
  uint32_t priority = 0;    // 0: the model's default priority level; 1 is the highest
  uint64_t timeout_us = 0;  // 0: the model's default queue policy decides
  // The most output bytes the front end can send back (gRPC's message limit, less room for the message's own
  // fields); 0: no limit. A response over it fails with ResourceExhausted, counted and logged as a failure,
  // instead of running into the transport's limit after the server counted it as a success.
  uint64_t max_response_bytes = 0;
  std::shared_ptr<const void> keep_alive;  // owns the bytes the input tensors borrow; released after the callback
  // The calling thread may run the request's batch itself, inside Server::Infer, when the request can start at
  // once (an instance idle, nothing queued before it): one thread hand-off less each way. A front end sets it only
  // for a thread it can spare for as long as the model takes (it keeps at least one thread free for health checks
  // and other connections); the callback then runs on this thread before Infer returns.
  bool may_run_on_caller = false;
};

// The response is the protocol's type (client/inference_response.h), which the HTTP client decodes too. Named here
// without its namespace because some thirty files of serve (scheduler, front ends, their tests) use it; a
// using-declaration spares them the churn.
using client::InferenceResponse;

// Error codes the front ends map to HTTP and gRPC: InvalidArgument (bad request), NotFound (unknown model,
// version, input or output), Unavailable (queue full, model not ready, server shutting down), DeadlineExceeded
// (the request's queue timeout expired), Internal (ONNX Runtime failed on a valid request).
using ResponseCallback = std::function<void(Result<InferenceResponse>)>;

}  // namespace hone::serve
