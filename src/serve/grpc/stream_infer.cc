#include "serve/grpc/stream_infer.h"

#include <utility>

#include "base/log.h"
#include "client/grpc_status.h"
#include "serve/grpc/infer_exchange.h"

namespace hone::serve::grpc_front {

namespace {

// The answer to `request` that failed with `status`: its id, model and version, and the error's message.
inference::ModelStreamInferResponse ErrorAnswer(const inference::ModelInferRequest& request, const Status& status) {
  inference::ModelStreamInferResponse answer;
  answer.set_error_message(status.message());
  inference::ModelInferResponse* response = answer.mutable_infer_response();
  response->set_model_name(request.model_name());
  response->set_model_version(request.model_version());
  response->set_id(request.id());
  return answer;
}

}  // namespace

StreamInferReactor::StreamInferReactor(StreamInferDeps deps) : deps_(std::move(deps)) { ReadNext(); }

void StreamInferReactor::ReadNext() {
  reading_ = std::make_shared<InferCallMessages>();
  StartRead(&reading_->request);
}

void StreamInferReactor::OnReadDone(bool ok) {
  if (!ok) {  // the client closed its side, or the call was cancelled
    std::unique_lock lock(mu_);
    reads_done_ = true;
    const Action action = NextLocked();
    lock.unlock();
    return Do(action);
  }
  std::shared_ptr<InferCallMessages> messages = std::move(reading_);
  {
    // Counted before the next read can fail and find nothing pending, which would end the stream under this one.
    std::lock_guard lock(mu_);
    ++pending_;
  }
  ReadNext();  // the next request is read while this one runs
  Handle(std::move(messages));
}

void StreamInferReactor::Handle(std::shared_ptr<InferCallMessages> messages) {
  const inference::ModelInferRequest& message = messages->request;
  LogVerbose(2, "gRPC: ModelStreamInfer model '{}' version '{}' ({} input(s))", message.model_name(),
             message.model_version(), message.inputs_size());
  Result<InferenceRequest> request = ToServerRequest(messages, deps_.max_message_bytes);
  if (!request.ok()) {
    Answer(ErrorAnswer(message, request.status()));
    return;
  }
  deps_.in_flight->Begin();
  CallerRunSlots::Held slot(deps_.caller_runs);
  request->may_run_on_caller = slot.held();
  // Runs once, on whichever thread the server completes the request on (or inline here).
  // `messages` (the request's id and model, for an error's answer) is shared with the request's keep_alive.
  deps_.server.Infer(std::move(request).value(), [this, messages = std::move(messages), in_flight = deps_.in_flight](
                                                     Result<InferenceResponse> result) {
    Response response;
    const Status status =
        FillInferResponse(deps_.server, deps_.max_message_bytes, result, response.mutable_infer_response());
    if (!status.ok()) response = ErrorAnswer(messages->request, status);
    Server& server = deps_.server;  // Answer may end the stream, and with it this reactor
    const bool queued = Answer(std::move(response));
    if (!queued && result.ok() && status.ok()) server.RecordUndelivered(result->model_name, result->model_version);
    in_flight->End();
  });
}

bool StreamInferReactor::Answer(Response response) {
  std::unique_lock lock(mu_);
  --pending_;
  const bool queued = !broken_;
  if (queued) writes_.push_back(std::move(response));
  const Action action = NextLocked();
  lock.unlock();
  Do(action);
  return queued;
}

void StreamInferReactor::OnWriteDone(bool ok) {
  std::unique_lock lock(mu_);
  writing_ = false;
  writes_.pop_front();
  if (!ok && !broken_) {
    broken_ = true;
    LogVerbose(1, "gRPC: ModelStreamInfer: the client is gone; {} response(s) not sent", writes_.size() + 1);
    writes_.clear();
  }
  const Action action = NextLocked();
  lock.unlock();
  Do(action);
}

StreamInferReactor::Action StreamInferReactor::NextLocked() {
  Action action;
  if (finished_ || writing_) return action;
  if (!writes_.empty()) {
    writing_ = true;
    action.write = &writes_.front();  // stays put: the deque only grows at the back until OnWriteDone pops it
    return action;
  }
  if (reads_done_ && pending_ == 0) {
    finished_ = true;
    action.finish = true;
    action.broken = broken_;
  }
  return action;
}

void StreamInferReactor::Do(const Action& action) {
  if (action.write) {
    StartWrite(action.write);
  } else if (action.finish) {
    Finish(action.broken ? ::grpc::Status(::grpc::StatusCode::CANCELLED, "the client stopped reading responses")
                  : ::grpc::Status::OK);
  }
}

}  // namespace hone::serve::grpc_front
