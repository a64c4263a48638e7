#include "bench/remote_target.h"

namespace hone::bench {

RemoteTarget::RemoteTarget(std::unique_ptr<RemoteClient> prototype, std::vector<std::string> input_names)
    : input_names_(std::move(input_names)), description_(prototype->Describe()), prototype_(std::move(prototype)) {}

std::string RemoteTarget::Describe() const { return description_; }

Result<std::unique_ptr<RemoteTarget::Connection>> RemoteTarget::Acquire() {
  std::lock_guard lock(mu_);
  if (!idle_.empty()) {
    std::unique_ptr<Connection> connection = std::move(idle_.back());
    idle_.pop_back();
    return connection;
  }
  // Connecting happens under the lock: only while the pool grows (warm-up), never in steady state.
  HONE_ASSIGN_OR_RETURN(std::unique_ptr<RemoteClient> client, prototype_->Clone());
  auto connection = std::make_unique<Connection>();
  connection->client = std::move(client);
  for (const auto& name : input_names_) connection->named.push_back({name, Tensor()});
  return connection;
}

void RemoteTarget::Release(std::unique_ptr<Connection> connection) {
  std::lock_guard lock(mu_);
  idle_.push_back(std::move(connection));
}

Status RemoteTarget::Infer(std::span<const Tensor> inputs) {
  RequestPhases ignored;
  return InferTimed(inputs, ignored);
}

Status RemoteTarget::InferTimed(std::span<const Tensor> inputs, RequestPhases& phases) {
  if (inputs.size() != input_names_.size()) {
    return Status::InvalidArgument("request has " + std::to_string(inputs.size()) + " inputs, the model " +
                                   std::to_string(input_names_.size()));
  }
  HONE_ASSIGN_OR_RETURN(std::unique_ptr<Connection> connection, Acquire());
  for (size_t i = 0; i < inputs.size(); ++i) connection->named[i].tensor = inputs[i];
  Status status = connection->client->Infer(connection->named, &phases);
  for (auto& named : connection->named) named.tensor = Tensor();  // do not keep request bytes alive
  // A connection that failed at the transport level is dropped; the next request opens a fresh one.
  if (status.ok() || (status.code() != StatusCode::kUnavailable && status.code() != StatusCode::kDeadlineExceeded)) {
    Release(std::move(connection));
  }
  return status;
}

}  // namespace hone::bench
