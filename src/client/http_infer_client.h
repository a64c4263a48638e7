// A synchronous KServe v2 HTTP client over one keep-alive connection, for `hone bench --url` (one client per
// worker thread) and for tests. Cheap per call: the request's JSON buffer and the reply buffer are reused, input
// tensors are sent from their own memory (gather write), and nothing is re-resolved or reconnected while the
// connection lives.
//
//   auto client = HttpInferClient::Connect("127.0.0.1", 8000);
//   auto reply = (*client)->Infer("fashion", 0, inputs, {.binary_inputs = true, .binary_outputs = true});
//
// Not thread-safe: one client per thread. If the server closed the kept-alive connection in between (its idle
// timeout), a call reconnects and sends again once, before any of the reply has been read.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/result.h"
#include "client/http_client_codec.h"
#include "client/inference_response.h"
#include "client/model_metadata.h"
#include "client/model_stats.h"

namespace hone::client {

class HttpInferClient {
 public:
  // Resolves and connects. Unavailable when nothing listens there; DeadlineExceeded when `timeout` passes.
  // `timeout` also bounds every later call (send plus reply).
  static Result<std::unique_ptr<HttpInferClient>> Connect(const std::string& host, uint16_t port,
                                                          std::chrono::milliseconds timeout = std::chrono::seconds(60));
  HttpInferClient(const HttpInferClient&) = delete;
  HttpInferClient& operator=(const HttpInferClient&) = delete;
  ~HttpInferClient();

  // POST /v2/models/{model}[/versions/{version}]/infer. version 0: the server picks. The server's error comes back
  // as a Status (ErrorFromReply); transport failures as Unavailable or DeadlineExceeded.
  Result<InferenceResponse> Infer(const std::string& model, int64_t version, std::span<const NamedTensor> inputs,
                                  const ClientInferOptions& options = {});

  // Where the last Infer's time went on this side, for perf_analyzer's Client Send / Client Recv: `send` from the
  // start of encoding until the request's last byte was written, `recv` from the reply's header having arrived
  // until the response was decoded. Zero before the first call.
  struct CallTimes {
    std::chrono::nanoseconds send{0}, recv{0};
  };
  const CallTimes& last_call_times() const;

  // GET /v2/models/{model}[/versions/{version}]/stats; model "": every model.
  Result<std::vector<ModelStatsSnapshot>> GetStatistics(const std::string& model, int64_t version = 0);
  Result<ModelMetadataInfo> GetModelMetadata(const std::string& model, int64_t version = 0);
  // GET /v2/models/{model}[/versions/{version}]/config: the model's config as the server's JSON.
  Result<std::string> GetModelConfigJson(const std::string& model, int64_t version = 0);
  Result<bool> IsServerLive();
  Result<bool> IsServerReady();
  Result<bool> IsModelReady(const std::string& model, int64_t version = 0);

 private:
  struct Impl;
  explicit HttpInferClient(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace hone::client
