// The benchmark against a running KServe v2 server (`hone bench MODEL --url HOST:PORT`): the same load modes,
// windows and metrics as in process, with inputs built from the server's model metadata, plus the server-side
// breakdown (queue, compute input, infer, output) from the statistics extension's deltas over each point.
#pragma once

#include "base/result.h"
#include "bench/bench_runner.h"
#include "bench/remote_client.h"
#include <memory>

#include "runtime/model_metadata.h"

namespace hone::bench {

// settings.model_path is unused (the model is remote.model); runtime sweeps do not apply (the server decides).
// FailedPrecondition when the model is not ready on the server; Unavailable when nothing answers at the URL.
Result<BenchReport> RunRemoteBench(const BenchSettings& settings, const RemoteSettings& remote,
                                   const RunnerHooks& hooks = {});
// The same through `control`, a client already made (one that calls a server in this process, say): remote.url
// only names where it is for the report; Clone gives the load generator's clients.
Result<BenchReport> RunRemoteBench(const BenchSettings& settings, const RemoteSettings& remote,
                                   std::unique_ptr<RemoteClient> control, const RunnerHooks& hooks = {});

// The server's model metadata in the runtime's terms, so that InputPool builds inputs exactly as for a local model.
// A model served with max_batch_size > 0 shows -1 as every input's dimension 0 (the batch); one served with
// max_batch_size 0 shows its inputs' own shapes, so a scalar or a state tensor there makes the inputs whole
// tensors, as for the model file (ModelMetadata::SharedBatchAxis). The server names no dimensions.
runtime::ModelMetadata ToRuntimeMetadata(const client::ModelMetadataInfo& info);

// The breakdown between two statistics snapshots of one model version.
ServerBreakdown BreakdownBetween(const client::ModelStatsSnapshot& before, const client::ModelStatsSnapshot& after);

}  // namespace hone::bench
