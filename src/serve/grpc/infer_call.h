// Ownership of one ModelInfer call's messages, and the count of calls still waiting for the server.
//
// hone's input tensors borrow the request message's bytes, and InferenceRequest::keep_alive must own them for as
// long as the server holds the request, which may be past the moment gRPC is done with the call. gRPC's default
// is to put the messages in the call's arena, freed when the call ends. InferCallAllocator instead puts them in one
// shared InferCallMessages: gRPC holds one reference until the call is done, the request's keep_alive another.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>

#include <grpcpp/server_context.h>
#include <grpcpp/support/message_allocator.h>

#include "client/grpc_service.pb.h"

namespace hone::serve::grpc_front {

struct InferCallMessages {
  inference::ModelInferRequest request;
  inference::ModelInferResponse response;
};

// Registered for ModelInfer with SetMessageAllocatorFor_ModelInfer. Stateless and thread-safe.
class InferCallAllocator
    : public ::grpc::MessageAllocator<inference::ModelInferRequest, inference::ModelInferResponse> {
 public:
  ::grpc::MessageHolder<inference::ModelInferRequest, inference::ModelInferResponse>* AllocateMessages() override;
};

// The shared messages of the ModelInfer call `context` belongs to; null if InferCallAllocator did not allocate them
// (it was not registered).
std::shared_ptr<InferCallMessages> MessagesOf(::grpc::CallbackServerContext* context);

// Calls handed to the server whose callback has not run yet. Shutdown waits for zero, so that nothing the callbacks
// touch (the calls' reactors) goes away under them. Shared (shared_ptr) by the callbacks themselves.
class InFlightCalls {
 public:
  void Begin();
  void End();
  // Blocks until no call is in flight.
  void WaitForNone();
  int64_t count() const;

 private:
  mutable std::mutex mu_;
  std::condition_variable none_;
  int64_t count_ = 0;  // guarded by mu_
};

}  // namespace hone::serve::grpc_front
