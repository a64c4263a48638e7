// What `hone bench --url` needs from a KServe v2 server, over either protocol: model metadata, inference and the
// statistics extension. One client is one connection, used by one thread at a time; Clone opens another.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/result.h"
#include "bench/target.h"  // RequestPhases
#include "client/model_config.pb.h"
#include "client/model_metadata.h"
#include "client/model_stats.h"
#include "tensor/npz.h"  // NamedTensor

namespace hone::bench {

enum class RemoteProtocol { kHttp, kGrpc };

struct RemoteSettings {
  std::string url;  // "host:port" (an "http://" prefix is accepted)
  RemoteProtocol protocol = RemoteProtocol::kHttp;
  bool binary = true;  // HTTP: tensors in the binary data extension (false: JSON arrays); gRPC is always binary
  std::string model;   // the model's name on the server
  int64_t version = 0; // 0: the server picks
};

// The models an ensemble's config runs, in its steps' order; empty for any other model.
std::vector<std::string> EnsembleStepsOf(const inference::ModelConfig& config);

// "127.0.0.1:8000" -> host, port; InvalidArgument naming the text otherwise.
Status ParseUrl(const std::string& url, std::string* host, int* port);

class RemoteClient {
 public:
  static Result<std::unique_ptr<RemoteClient>> Connect(const RemoteSettings& settings);
  virtual ~RemoteClient() = default;

  virtual Result<std::unique_ptr<RemoteClient>> Clone() const = 0;
  // One inference. `phases` (may be null) gets the client-side send and receive times when the protocol client
  // reports them; it is left untouched (timed false) otherwise.
  virtual Status Infer(std::span<const NamedTensor> inputs, RequestPhases* phases = nullptr) = 0;
  virtual Result<client::ModelMetadataInfo> Metadata() = 0;
  virtual Result<client::ModelStatsSnapshot> Statistics() = 0;
  // Another model's statistics (an ensemble's step), the version the server picks.
  virtual Result<client::ModelStatsSnapshot> StatisticsOf(const std::string& model) = 0;
  // The models an ensemble's steps run, in its config's order; empty for a model that is not an ensemble.
  virtual Result<std::vector<std::string>> EnsembleSteps() = 0;
  virtual Result<bool> IsModelReady() = 0;
  // "KServe v2 HTTP (binary tensors) at 127.0.0.1:8000, model 'fashion'"
  virtual std::string Describe() const = 0;
};

}  // namespace hone::bench
