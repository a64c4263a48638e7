// A bench::RemoteClient that calls a hone server in this process (serve::Server::Infer) instead of one over the
// network: `hone bench MODEL --model-repository DIR` measures a repository's model, an ensemble with its processing
// stages included, through the same scheduler, batcher and statistics as hone serve, without the wire.
#pragma once

#include <memory>
#include <string>

#include "bench/remote_client.h"
#include "bench/remote_runner.h"
#include "serve/core/server.h"

namespace hone::harness {

// A hone server in this process holding `model` of `repository` (with the models its steps run, for an ensemble)
// and nothing else: no network. FailedPrecondition with the server's reason when the model does not load.
Result<std::unique_ptr<serve::Server>> ServeInProcess(const std::string& repository, const std::string& model);

// `server` is shared by the clients Clone makes; `model` and `version` name what Infer runs.
std::unique_ptr<bench::RemoteClient> InProcessClient(std::shared_ptr<serve::Server> server, std::string model,
                                                     int64_t version, std::string description);

// Loads `model` of `repository` (with the models its steps run, for an ensemble) into a server in this process and
// benchmarks it there, as RunRemoteBench does a server over the network; the server stops when this returns.
// FailedPrecondition with the server's reason when the model does not load.
Result<bench::BenchReport> RunRepositoryBench(const bench::BenchSettings& settings, const std::string& repository,
                                              const std::string& model, int64_t version,
                                              const bench::RunnerHooks& hooks = {});

}  // namespace hone::harness
