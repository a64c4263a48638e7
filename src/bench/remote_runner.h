// The benchmark against a running KServe v2 server (`hone bench MODEL --url HOST:PORT`): the same load modes,
// windows and metrics as in process, with inputs built from the server's model metadata, plus the server-side
// breakdown (queue, compute input, infer, output) from the statistics extension's deltas over each point.
#pragma once

#include "base/result.h"
#include "bench/bench_runner.h"
#include "bench/remote_client.h"

namespace hone::bench {

// settings.model_path is unused (the model is remote.model); runtime sweeps do not apply (the server decides).
// FailedPrecondition when the model is not ready on the server; Unavailable when nothing answers at the URL.
Result<BenchReport> RunRemoteBench(const BenchSettings& settings, const RemoteSettings& remote,
                                   const RunnerHooks& hooks = {});

// The breakdown between two statistics snapshots of one model version.
ServerBreakdown BreakdownBetween(const serve::ModelStatsSnapshot& before, const serve::ModelStatsSnapshot& after);

}  // namespace hone::bench
