// The outputs that come back over the wire, checked: every held-out row is sent to the served winner (binary
// tensors over the protocol the trials used, as many rows a request as its max_batch_size allows), and what comes
// back is compared row by row with the winner run in process on the same rows (close to bit-exact: the server must
// not change the numbers), as a whole with the source model on every row (hone compare's default rules, as a
// variant's verification applies them), and, when the data has labels or the user gave
// gates, gated like `hone evaluate` would gate the winner (check/evaluate.h with the wire's outputs standing for its
// clean run). This is what tune's verdict on quality rests on.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "bench/remote_client.h"
#include "check/evaluate.h"
#include "check/gates.h"
#include "check/tolerance.h"
#include "runtime/session_options.h"

namespace hone::tune {

struct WireCheckSettings {
  std::string url;  // "127.0.0.1:PORT"
  bench::RemoteProtocol protocol = bench::RemoteProtocol::kHttp;
  std::string model_name;
  std::string winner_path;  // the served model file, run in process beside
  runtime::SessionOptions winner_session;
  std::string source_path;  // the user's model
  check::Tolerances source_tolerances;  // how close to the source's outputs the wire's must be (tune's --min-cosine...)
  std::string heldout_path;  // .npz of the held-out rows (inputs, labels)
  bool batch_axis = true;    // rows along dimension 0; false: the arrays are sent whole, once
  int64_t rows_per_request = 1;
  std::vector<check::Gate> gates;  // empty with labels: accuracy_drop<=0.01
  std::string output;              // the output the gates evaluate; empty: the model's first
  std::string slice_key;
  std::vector<check::Perturbation> perturbations;  // run on the winner in process (the wire carries the clean rows)
  bool has_labels = false;
  std::string work_dir;  // where the wire's outputs are written for the evaluation
};

struct WireCheck {
  int64_t rows = 0, requests = 0;
  int64_t rows_match_winner = 0;  // within 1e-5 absolute + 1e-4 relative of the winner in process
  std::string first_difference;   // "row 17: ..." (empty when every row matched the winner)
  bool source_match = false;      // every row together within the run's tolerances of the source
  // Which tolerances: "hone compare's defaults", or "the run's tolerances (similarity: ..., cosine >= 0.95, ...)".
  std::string source_rule = "hone compare's defaults";
  std::string source_detail;      // why not, when not
  std::optional<check::EvaluateReport> evaluation;  // the gates on the wire's outputs, when there were any
  std::string gates_error;        // why the gates could not be evaluated (empty when they were, or none applied)

  bool outputs_match() const { return rows > 0 && rows_match_winner == rows; }
  bool gates_passed() const { return gates_error.empty() && (!evaluation || evaluation->passed()); }
  // "1500 held-out rows sent over HTTP in 188 requests: 1500 match the winner in process within 1e-5; together they
  // match the source within hone compare's defaults; gates on the wire's outputs: accuracy_drop<=0.01 (0) passed"
  std::string Describe(bench::RemoteProtocol protocol) const;
};

// Errors: the server does not answer, the data has no input the model needs, or the models do not open; each
// names what is at fault. A row that differs is not an error but a count in the result.
Result<WireCheck> CheckOverTheWire(const WireCheckSettings& settings);

}  // namespace hone::tune
