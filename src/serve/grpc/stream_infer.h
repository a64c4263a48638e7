// ModelStreamInfer: one bidirectional gRPC stream that carries any number of inference requests, each answered by
// exactly one ModelStreamInferResponse (its infer_response, or its error_message with the request's id) in the
// order the requests finish. tritonclient's start_stream / async_stream_infer and perf_analyzer --streaming use it.
//
// Requests are read one after another and handed to the server as they arrive, so several run (and batch) at
// once; responses are written one at a time, queued in between. A bad request gets its error on the stream and the
// stream goes on, as with Triton. The stream ends (OK) once the client has closed its side and every request has
// been answered; when the client goes away, the requests still running finish and their responses are dropped
// (counted by Server::RecordUndelivered).
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>

#include <grpcpp/support/server_callback.h>

#include "client/grpc_service.pb.h"
#include "serve/core/caller_run_slots.h"
#include "serve/core/server.h"
#include "serve/grpc/infer_call.h"

namespace hone::serve::grpc_front {

struct StreamInferDeps {
  Server& server;
  int64_t max_message_bytes;
  CallerRunSlots& caller_runs;
  std::shared_ptr<InFlightCalls> in_flight;  // one Begin/End per request handed to the server
};

// Owns itself: created per stream by the service, deleted by gRPC's OnDone.
class StreamInferReactor final
    : public ::grpc::ServerBidiReactor<inference::ModelInferRequest, inference::ModelStreamInferResponse> {
 public:
  explicit StreamInferReactor(StreamInferDeps deps);

  void OnReadDone(bool ok) override;
  void OnWriteDone(bool ok) override;
  void OnDone() override { delete this; }

 private:
  using Response = inference::ModelStreamInferResponse;
  // What to do once the lock is released: the gRPC call that may end the stream is always the last use of `this`.
  struct Action {
    const Response* write = nullptr;
    bool finish = false;
    bool broken = false;  // finish with CANCELLED: the client stopped reading
  };

  void ReadNext();
  void Handle(std::shared_ptr<InferCallMessages> messages);
  // Queues the answer to one request (any thread); false when the client is gone and it was dropped.
  bool Answer(Response response);
  Action NextLocked();
  void Do(const Action& action);

  const StreamInferDeps deps_;
  std::shared_ptr<InferCallMessages> reading_;  // the message the outstanding read fills (read path only)

  std::mutex mu_;
  std::deque<Response> writes_;  // guarded by mu_; the front is on the wire while writing_
  bool writing_ = false;         // guarded by mu_
  bool reads_done_ = false;      // guarded by mu_: the client closed its side (or the call was cancelled)
  bool broken_ = false;          // guarded by mu_: a write failed, the client is gone
  bool finished_ = false;        // guarded by mu_
  int64_t pending_ = 0;          // guarded by mu_: requests read and not yet answered
};

}  // namespace hone::serve::grpc_front
