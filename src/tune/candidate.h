// One way to serve the model that tune considers: a model file (the source or a variant of it) and the serving
// settings around it (batching, instances, ONNX Runtime threads, spinning, graph level). Each stage makes new
// candidates from the best so far by changing one thing, so a candidate's id says what it changed and its risk
// says how far it moved from the source (lower is safer: a tie within noise goes to the lower risk).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "runtime/model_metadata.h"
#include "runtime/session_options.h"

namespace hone::tune {

struct Candidate {
  std::string id;              // "baseline", "batch32-delay0", "graph-extended", "instances2-intra1", "int8-dynamic"
  std::string stage;           // the stage that made it
  std::string model_path;      // the ONNX file served
  std::string precision = "fp32";  // "fp32", "int8-dynamic", "int8-static", "fp16", "bf16", "int4-weight-only"
  std::string compression;         // "" (none), or the compression stage's variant: "prune-ffn-25"
  // ONNX Runtime's settings. threads_set false: the config sets no thread counts and hone serve splits the cores
  // between instances (what a user who writes no parameters gets).
  runtime::SessionOptions session;
  bool threads_set = false;
  bool spinning_set = false;   // the config says session.intra_op.allow_spinning
  bool graph_level_set = false;  // the config says optimization.graph.level
  int instances = 1;
  // 0: no batching (max_batch_size 0: requests run as they come, one by one).
  int64_t max_batch_size = 0;
  bool dynamic_batching = false;
  int64_t max_queue_delay_us = 0;
  std::vector<int64_t> preferred_batch_sizes;
  int risk = 0;

  // "max_batch_size 32, delay 0 us, 1 instance, intra 2, graph all, fp32"
  std::string Describe() const;
};

// The settings as report.json's trial "settings" object.
nlohmann::json CandidateSettingsJson(const Candidate& candidate);

// config.pbtxt for serving `candidate` as `model_name`: platform onnxruntime_onnx, max_batch_size, dynamic batching,
// one CPU instance group, ONNX Runtime parameters and graph level when set, and a warm-up of `warmup_batch` random
// samples per input when the model's inputs are all fixed apart from the batch (else hone serve's own warm-up).
std::string CandidateConfigText(const Candidate& candidate, const std::string& model_name,
                                const runtime::ModelMetadata& metadata);

// A model repository at `repository` holding `candidate` as `model_name` version 1 (the model file copied, with
// its external data file when it has one, and config.pbtxt). The repository folder must not exist yet.
Status WriteRepository(const Candidate& candidate, const std::string& model_name,
                       const runtime::ModelMetadata& metadata, const std::string& repository);

// A model name for the repository from the model file's name: "model.int8.onnx" -> "model_int8" (letters, digits,
// '_' and '-'; "model" when nothing is left).
std::string ModelNameFromPath(const std::string& path);

}  // namespace hone::tune
