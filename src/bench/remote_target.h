// A benchmark target that is a KServe v2 server: each request is one inference over HTTP or gRPC. Thread-safe:
// every load-generator thread borrows a connection of its own from a pool that grows to the concurrency the load
// needs (as perf_analyzer opens one connection per outstanding request).
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "bench/remote_client.h"
#include "bench/target.h"

namespace hone::bench {

class RemoteTarget : public Target {
 public:
  // `prototype` is a connected client; `input_names` the model's inputs in the order requests hold them.
  RemoteTarget(std::unique_ptr<RemoteClient> prototype, std::vector<std::string> input_names);
  Status Infer(std::span<const Tensor> inputs) override;
  Status InferTimed(std::span<const Tensor> inputs, RequestPhases& phases) override;
  std::string Describe() const override;

 private:
  struct Connection {
    std::unique_ptr<RemoteClient> client;
    std::vector<NamedTensor> named;  // reused per request: no allocation once the names are in place
  };
  Result<std::unique_ptr<Connection>> Acquire();
  void Release(std::unique_ptr<Connection> connection);

  const std::vector<std::string> input_names_;
  const std::string description_;
  std::mutex mu_;
  std::unique_ptr<RemoteClient> prototype_;  // guarded by mu_ (Clone is not assumed thread-safe)
  std::vector<std::unique_ptr<Connection>> idle_;
};

}  // namespace hone::bench
