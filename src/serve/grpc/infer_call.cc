#include "serve/grpc/infer_call.h"

namespace hone::serve::grpc_front {
namespace {

using Holder = ::grpc::MessageHolder<inference::ModelInferRequest, inference::ModelInferResponse>;

class SharedHolder : public Holder {
 public:
  SharedHolder() : messages_(std::make_shared<InferCallMessages>()) {
    set_request(&messages_->request);
    set_response(&messages_->response);
  }
  // gRPC is done with the call: drop its reference; the server's keep_alive may still hold the messages.
  void Release() override { delete this; }

  const std::shared_ptr<InferCallMessages>& messages() const { return messages_; }

 private:
  std::shared_ptr<InferCallMessages> messages_;
};

}  // namespace

Holder* InferCallAllocator::AllocateMessages() { return new SharedHolder(); }

std::shared_ptr<InferCallMessages> MessagesOf(::grpc::CallbackServerContext* context) {
  auto* holder = dynamic_cast<SharedHolder*>(context->GetRpcAllocatorState());
  return holder ? holder->messages() : nullptr;
}

void InFlightCalls::Begin() {
  std::lock_guard lock(mu_);
  ++count_;
}

void InFlightCalls::End() {
  std::lock_guard lock(mu_);
  if (--count_ == 0) none_.notify_all();
}

void InFlightCalls::WaitForNone() {
  std::unique_lock lock(mu_);
  none_.wait(lock, [this] { return count_ == 0; });
}

int64_t InFlightCalls::count() const {
  std::lock_guard lock(mu_);
  return count_;
}

}  // namespace hone::serve::grpc_front
