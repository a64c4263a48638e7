// `hone tune`: the whole workflow under an SLO. Stages in order of risk, each starting from the best so far:
//   1 baseline   the model as a naive user serves it (no batching, one instance, ONNX Runtime's defaults), served
//                and in process, with its quality on the held-out rows;
//   2 profile    where the time goes (operators, the served path's split), which orders what follows;
//   3 batching   max_batch_size x max_queue_delay, served at the SLO loads;
//   4 graph      ONNX Runtime's graph optimization levels;
//   5 threads    instances x intra-op threads x spinning within the machine's cores;
//   6 precision  INT8 (dynamic, static calibrated on rows the gates never see), INT4 weight-only where MatMuls
//                dominate, FP16/BF16 where the CPU has the instructions; each variant verified (numerics, gates,
//                speed against its source) before it may compete;
// then the winner is written as a model repository, served from there, measured over the wire at every SLO load,
// and its outputs over the wire checked against the source. The verdict is that measurement.
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "bench/remote_client.h"
#include "check/gates.h"
#include "check/perturbation.h"
#include "check/tolerance.h"
#include "runtime/input_options.h"
#include "tune/search.h"
#include "tune/slo.h"

namespace hone::tune {

// How the serving and precision choices are searched.
enum class SearchMode {
  kStaged,      // the stages in order of risk, each from the best so far (the default)
  kExhaustive,  // every batching x graph x threads x precision combination the stages could reach, ranked and the
                // best confirmed in paired rounds: the yardstick for the staged search (slow: hundreds of trials)
};

struct TuneSettings {
  std::string model_path;
  // data_path: a .npz with the inputs (and labels for the quality gates); its first quarter (at most 512 rows)
  // calibrates static INT8 and the rest is held out for every trial and gate. Empty: inputs generated from the
  // model (shapes, ranges, seed as bench takes them).
  runtime::InputOptions inputs;
  std::vector<Slo> slos;
  std::vector<check::Gate> gates;  // empty: accuracy_drop<=0.01 when the data has labels
  // The output the gates evaluate (hone evaluate's --output-name); empty: the model's first. An encoder whose first
  // output is per token (last_hidden_state, padding included) is gated on its pooled embedding this way.
  std::string output;
  // How close every variant's outputs (and the served winner's) must stay to the source's: hone compare's rules,
  // its defaults unless the user loosens them (--min-cosine, --max-range-error, --atol/--rtol) for a lossy step
  // such as pruning.
  check::Tolerances tolerances;
  // Evaluated with every gate as `hone evaluate` takes them: the dataset array of group ids (worst_slice_drop) and
  // the input perturbations (accuracy_drop@gaussian:0.05 and the like, robustness).
  std::string slice_key;
  std::vector<check::Perturbation> perturbations;
  double budget_s = 600;
  bench::RemoteProtocol protocol = bench::RemoteProtocol::kHttp;
  double cost_per_hour = 0;
  // --expected-load: the traffic to size the deployment for (the replicas it needs, from each SLO's capacity).
  std::optional<Load> expected_load;
  std::string out_dir;
  std::vector<std::string> argv;  // for the report
  // Quicker trials (shorter windows, fewer candidates): for tests and demos on a small budget.
  bool quick = false;
  SearchMode search = SearchMode::kStaged;
  std::function<void(const std::string&)> progress;  // "stage 3 of 7 (batching): rank 2 of 5 ... best ... left"
  const std::atomic<bool>* stop = nullptr;
};

struct TuneOutcome {
  nlohmann::json report;  // the envelope, as written to OUT/report.json
  int exit_code = 1;      // 0 every SLO and gate met, 1 not, 130 interrupted
  std::string summary;    // the terminal's closing lines
};

// Usage errors (InvalidArgument: a model that does not load, data that does not fit, an OUT that holds a report
// already) before any measurement; afterwards the outcome says what failed.
Result<TuneOutcome> RunTune(const TuneSettings& settings);

}  // namespace hone::tune
