#include "harness/in_process_client.h"

#include <chrono>
#include <future>

namespace hone::harness {
namespace {

class ServerClient final : public bench::RemoteClient {
 public:
  ServerClient(std::shared_ptr<serve::Server> server, std::string model, int64_t version, std::string description)
      : server_(std::move(server)), model_(std::move(model)), version_(version),
        description_(std::move(description)) {}

  Result<std::unique_ptr<bench::RemoteClient>> Clone() const override {
    return InProcessClient(server_, model_, version_, description_);
  }

  Status Infer(std::span<const NamedTensor> inputs, bench::RequestPhases*) override {
    serve::InferenceRequest request;
    request.model_name = model_;
    request.model_version = version_;
    request.inputs.assign(inputs.begin(), inputs.end());
    // The load generator's thread waits for the answer anyway: let the request run on it when it can.
    request.may_run_on_caller = true;
    std::promise<Status> done;
    std::future<Status> answer = done.get_future();
    server_->Infer(std::move(request), [&done](Result<serve::InferenceResponse> r) { done.set_value(r.status()); });
    return answer.get();
  }

  Result<client::ModelMetadataInfo> Metadata() override { return server_->ModelMetadata(model_, version_); }

  Result<client::ModelStatsSnapshot> Statistics() override { return StatisticsOf(model_, version_); }
  Result<client::ModelStatsSnapshot> StatisticsOf(const std::string& model) override { return StatisticsOf(model, 0); }

  Result<std::vector<std::string>> EnsembleSteps() override {
    HONE_ASSIGN_OR_RETURN(inference::ModelConfig config, server_->ModelConfig(model_, version_));
    return bench::EnsembleStepsOf(config);
  }

  Result<bool> IsModelReady() override { return server_->IsModelReady(model_, version_); }
  std::string Describe() const override { return description_ + ", model '" + model_ + "'"; }

 private:
  Result<client::ModelStatsSnapshot> StatisticsOf(const std::string& model, int64_t version) {
    HONE_ASSIGN_OR_RETURN(auto all, server_->Statistics(model, version));
    if (all.empty()) return Status::NotFound("no statistics for model '" + model + "'");
    return all.back();
  }

  std::shared_ptr<serve::Server> server_;
  std::string model_;
  int64_t version_;
  std::string description_;
};

}  // namespace

std::unique_ptr<bench::RemoteClient> InProcessClient(std::shared_ptr<serve::Server> server, std::string model,
                                                     int64_t version, std::string description) {
  return std::make_unique<ServerClient>(std::move(server), std::move(model), version, std::move(description));
}

Result<std::unique_ptr<serve::Server>> ServeInProcess(const std::string& repository, const std::string& model) {
  serve::ServerOptions options;
  options.model_repository = repository;
  options.control_mode = serve::ModelControlMode::kExplicit;
  options.startup_models = {model};
  HONE_ASSIGN_OR_RETURN(std::unique_ptr<serve::Server> server, serve::Server::Open(options));
  if (Status s = server->Start(); !s.ok())
    return Status::FailedPrecondition("repository '" + repository + "': " + s.message());
  return server;
}

Result<bench::BenchReport> RunRepositoryBench(const bench::BenchSettings& settings, const std::string& repository,
                                              const std::string& model, int64_t version,
                                              const bench::RunnerHooks& hooks) {
  if (hooks.status) hooks.status("loading '" + model + "' from " + repository);
  HONE_ASSIGN_OR_RETURN(std::unique_ptr<serve::Server> created, ServeInProcess(repository, model));
  std::shared_ptr<serve::Server> server(std::move(created));
  bench::RemoteSettings where;
  where.model = model;
  where.version = version;
  where.url = "hone serve in this process, repository '" + repository + "'";
  auto control = InProcessClient(server, model, version, "in-process hone serve (no network)");
  Result<bench::BenchReport> report = bench::RunRemoteBench(settings, where, std::move(control), hooks);
  server->Shutdown(std::chrono::steady_clock::now() + std::chrono::seconds(10));
  return report;
}

}  // namespace hone::harness
