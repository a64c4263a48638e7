#include "bench/remote_client.h"

#include <fmt/format.h>

#include <simdjson.h>

#include <charconv>

#include "client/grpc_infer_client.h"
#include "client/http_infer_client.h"

namespace hone::bench {
namespace {

// The step models of an ensemble's config, as the HTTP config endpoint writes it (Triton's JSON: platform, and
// ensemble_scheduling.step[].model_name); empty for any other model.
Result<std::vector<std::string>> StepsFromConfigJson(const std::string& json) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (parser.parse(json).get(root)) return Status::Internal("the model's config is not JSON");
  std::vector<std::string> steps;
  std::string_view platform;
  if (root["platform"].get_string().get(platform) || platform != "ensemble") return steps;
  simdjson::dom::array array;
  if (root["ensemble_scheduling"]["step"].get_array().get(array)) return steps;
  for (simdjson::dom::element step : array) {
    std::string_view name;
    if (!step["model_name"].get_string().get(name)) steps.emplace_back(name);
  }
  return steps;
}

class HttpClient final : public RemoteClient {
 public:
  HttpClient(RemoteSettings settings, std::string host, int port,
             std::unique_ptr<client::HttpInferClient> client)
      : settings_(std::move(settings)), host_(std::move(host)), port_(port), client_(std::move(client)) {
    options_.binary_inputs = settings_.binary;
    options_.binary_outputs = settings_.binary;
  }

  Result<std::unique_ptr<RemoteClient>> Clone() const override {
    HONE_ASSIGN_OR_RETURN(auto client, client::HttpInferClient::Connect(host_, static_cast<uint16_t>(port_)));
    return std::unique_ptr<RemoteClient>(new HttpClient(settings_, host_, port_, std::move(client)));
  }
  Status Infer(std::span<const NamedTensor> inputs, RequestPhases* phases) override {
    Status status = client_->Infer(settings_.model, settings_.version, inputs, options_).status();
    if (phases && status.ok()) {
      const auto& times = client_->last_call_times();
      phases->send = times.send;
      phases->recv = times.recv;
      phases->timed = true;
    }
    return status;
  }
  Result<client::ModelMetadataInfo> Metadata() override {
    return client_->GetModelMetadata(settings_.model, settings_.version);
  }
  Result<client::ModelStatsSnapshot> Statistics() override {
    HONE_ASSIGN_OR_RETURN(auto all, client_->GetStatistics(settings_.model, settings_.version));
    if (all.size() != 1) {
      return Status(StatusCode::kFailedPrecondition,
                    fmt::format("model '{}': the server reports {} versions; name one with --model-version",
                                settings_.model, all.size()));
    }
    return all.front();
  }
  Result<client::ModelStatsSnapshot> StatisticsOf(const std::string& model) override {
    HONE_ASSIGN_OR_RETURN(auto all, client_->GetStatistics(model, 0));
    if (all.empty()) return Status::NotFound("no statistics for model '" + model + "'");
    return all.back();  // the highest version: the one an ensemble step without a version runs
  }
  Result<std::vector<std::string>> EnsembleSteps() override {
    HONE_ASSIGN_OR_RETURN(std::string json, client_->GetModelConfigJson(settings_.model, settings_.version));
    return StepsFromConfigJson(json);
  }
  Result<bool> IsModelReady() override { return client_->IsModelReady(settings_.model, settings_.version); }
  std::string Describe() const override {
    return fmt::format("KServe v2 HTTP ({} tensors) at {}:{}, model '{}'", settings_.binary ? "binary" : "JSON",
                       host_, port_, settings_.model);
  }

 private:
  RemoteSettings settings_;
  std::string host_;
  int port_;
  std::unique_ptr<client::HttpInferClient> client_;
  client::ClientInferOptions options_;
};

class GrpcClient final : public RemoteClient {
 public:
  GrpcClient(RemoteSettings settings, std::unique_ptr<client::GrpcInferClient> client)
      : settings_(std::move(settings)), client_(std::move(client)) {}

  // A clone shares the channel (gRPC multiplexes calls over one HTTP/2 connection, as tritonclient does).
  Result<std::unique_ptr<RemoteClient>> Clone() const override {
    return std::unique_ptr<RemoteClient>(new GrpcClient(settings_, client_->Clone()));
  }
  // As for HTTP: the gRPC client's synchronous call does not split serialization from the wait.
  Status Infer(std::span<const NamedTensor> inputs, RequestPhases*) override {
    return client_->Infer(settings_.model, settings_.version, inputs).status();
  }
  Result<client::ModelMetadataInfo> Metadata() override {
    return client_->GetModelMetadata(settings_.model, settings_.version);
  }
  Result<client::ModelStatsSnapshot> Statistics() override {
    return client_->Statistics(settings_.model, settings_.version);
  }
  Result<client::ModelStatsSnapshot> StatisticsOf(const std::string& model) override {
    return client_->Statistics(model, 0);
  }
  Result<std::vector<std::string>> EnsembleSteps() override {
    HONE_ASSIGN_OR_RETURN(inference::ModelConfig config, client_->GetModelConfig(settings_.model, settings_.version));
    return EnsembleStepsOf(config);
  }
  Result<bool> IsModelReady() override { return client_->IsModelReady(settings_.model, settings_.version); }
  std::string Describe() const override {
    return fmt::format("KServe v2 gRPC at {}, model '{}'", client_->address(), settings_.model);
  }

 private:
  RemoteSettings settings_;
  std::unique_ptr<client::GrpcInferClient> client_;
};

}  // namespace

std::vector<std::string> EnsembleStepsOf(const inference::ModelConfig& config) {
  std::vector<std::string> steps;
  if (config.platform() != "ensemble") return steps;
  for (const auto& step : config.ensemble_scheduling().step()) steps.push_back(step.model_name());
  return steps;
}

Status ParseUrl(const std::string& url, std::string* host, int* port) {
  std::string_view text = url;
  for (std::string_view scheme : {"http://", "grpc://"}) {
    if (text.substr(0, scheme.size()) == scheme) text.remove_prefix(scheme.size());
  }
  while (!text.empty() && text.back() == '/') text.remove_suffix(1);
  size_t colon = text.rfind(':');
  auto bad = [&] {
    return Status::InvalidArgument(fmt::format("--url '{}': expected HOST:PORT, e.g. 127.0.0.1:8000", url));
  };
  if (colon == std::string_view::npos || colon == 0) return bad();
  std::string_view port_text = text.substr(colon + 1);
  int value = 0;
  auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), value);
  if (ec != std::errc() || end != port_text.data() + port_text.size() || value < 1 || value > 65535) return bad();
  *host = std::string(text.substr(0, colon));
  if (host->size() >= 2 && host->front() == '[' && host->back() == ']') *host = host->substr(1, host->size() - 2);
  *port = value;
  return Status::Ok();
}

Result<std::unique_ptr<RemoteClient>> RemoteClient::Connect(const RemoteSettings& settings) {
  std::string host;
  int port = 0;
  HONE_RETURN_IF_ERROR(ParseUrl(settings.url, &host, &port));
  if (settings.protocol == RemoteProtocol::kHttp) {
    HONE_ASSIGN_OR_RETURN(auto client, client::HttpInferClient::Connect(host, static_cast<uint16_t>(port)));
    return std::unique_ptr<RemoteClient>(new HttpClient(settings, host, port, std::move(client)));
  }
  HONE_ASSIGN_OR_RETURN(auto client, client::GrpcInferClient::Connect(host, port));
  return std::unique_ptr<RemoteClient>(new GrpcClient(settings, std::move(client)));
}

}  // namespace hone::bench
