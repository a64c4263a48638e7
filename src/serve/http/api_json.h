// The JSON bodies of the non-inference endpoints, written straight from the server's structs (no DOM):
//   server metadata  {"name","version","extensions":[...]}                                  (KServe v2)
//   model metadata   {"name","versions":[...],"platform","inputs":[{"name","datatype","shape"}],"outputs":[...]}
//   statistics       {"model_stats":[{"name","version","last_inference","inference_count","execution_count",
//                     "inference_stats":{success,fail,queue,compute_input,compute_infer,compute_output,cache_hit,
//                     cache_miss: {"count","ns"}},"batch_stats":[{"batch_size",compute_input,compute_infer,
//                     compute_output}]}]}                                              (Triton's statistics extension)
//   repository index [{"name","version","state","reason"}]            (Triton's model repository extension)
// Versions are strings, as both protocols have them. cache_hit and cache_miss are always zero (hone has no
// response cache) but present, because perf_analyzer reads them unconditionally.
#pragma once

#include <string>
#include <vector>

#include "serve/core/server.h"

namespace hone::serve::http {

std::string ServerMetadataJson(const ServerMetadataInfo& info);
std::string ModelMetadataJson(const client::ModelMetadataInfo& info);
std::string StatisticsJson(const std::vector<client::ModelStatsSnapshot>& stats);
std::string RepositoryIndexJson(const std::vector<RepositoryEntry>& entries);

}  // namespace hone::serve::http
