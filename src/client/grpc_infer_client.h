// A KServe v2 gRPC client for `hone bench --url`: readiness, inference with raw tensors, and the statistics that
// give the server-side breakdown (queue, compute input, infer, output). Speaks the same protocol as tritonclient,
// so it works against Triton as well as hone.
//
//   auto client = GrpcInferClient::Connect("127.0.0.1", 8001);
//   auto outputs = (*client)->Infer("fashion", 0, inputs);
//
// One client is not thread-safe: it reuses its request and response messages between calls, so that steady-state
// requests allocate nothing for the messages. Give each load-generator thread its own Clone(); clones share the
// channel (one HTTP/2 connection, many concurrent streams).
#pragma once

#include <chrono>
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/result.h"
#include "client/model_config.pb.h"
#include "client/model_metadata.h"
#include "client/model_stats.h"
#include "tensor/npz.h"  // NamedTensor

namespace hone::client {

struct GrpcClientOptions {
  std::chrono::milliseconds connect_timeout{5000};  // Connect fails (Unavailable) if not connected by then
  std::chrono::milliseconds call_timeout{0};        // per call; 0: none (the server's own timeouts apply)
  // Largest request sent and response accepted: 2 GiB - 1, gRPC's most and what Triton's clients use.
  int max_message_bytes = std::numeric_limits<int32_t>::max();
};

class GrpcInferClient {
 public:
  // Opens a channel to host:port and waits until it is connected. Unavailable, naming the address, if it does not
  // connect within connect_timeout; InvalidArgument for a bad port.
  static Result<std::unique_ptr<GrpcInferClient>> Connect(const std::string& host, int port,
                                                          const GrpcClientOptions& options = {});
  ~GrpcInferClient();
  GrpcInferClient(const GrpcInferClient&) = delete;
  GrpcInferClient& operator=(const GrpcInferClient&) = delete;

  // A client on the same channel with messages of its own, for another thread.
  std::unique_ptr<GrpcInferClient> Clone() const;

  const std::string& address() const;

  Result<bool> IsServerLive();
  Result<bool> IsServerReady();
  // version 0: the server picks.
  Result<bool> IsModelReady(const std::string& model, int64_t version = 0);

  // Runs one inference of `model` (version 0: the server picks) with `inputs` sent as raw_input_contents, asking
  // for `outputs` (empty: all). Returns the outputs, owning their bytes, in the server's order. Errors carry the
  // server's code and message ("ModelInfer to 127.0.0.1:8001: input 'x': ..."); Internal for a response that does
  // not add up.
  Result<std::vector<NamedTensor>> Infer(const std::string& model, int64_t version,
                                         std::span<const NamedTensor> inputs,
                                         std::span<const std::string> outputs = {});

  // The model's metadata (name, versions, platform, inputs and outputs with KServe type names and -1 for dynamic
  // dimensions). InvalidArgument for a datatype hone does not know.
  Result<ModelMetadataInfo> GetModelMetadata(const std::string& model, int64_t version = 0);

  // The server's cumulative statistics for `model` (version 0: the one version it serves; FailedPrecondition if it
  // serves several, naming them). Subtract two snapshots for a window's figures.
  Result<ModelStatsSnapshot> Statistics(const std::string& model, int64_t version = 0);

  // The model's config as the server completed it (Triton's ModelConfig RPC).
  Result<inference::ModelConfig> GetModelConfig(const std::string& model, int64_t version = 0);

 private:
  struct Shared;  // the channel and stub, shared by clones
  struct Messages;
  GrpcInferClient(std::shared_ptr<const Shared> shared);
  std::shared_ptr<const Shared> shared_;
  std::unique_ptr<Messages> messages_;
};

}  // namespace hone::client
