#include "check/compare_runner.h"

#include <fmt/format.h>

#include <memory>
#include <optional>

#include "check/model_outputs.h"
#include "runtime/session.h"

namespace hone::check {
namespace {

// One side of the comparison: a loaded model or saved outputs.
struct Side {
  std::string role;  // "reference" or "candidate"
  std::string path;
  std::unique_ptr<runtime::Session> session;  // null for saved outputs
  std::vector<NamedTensor> outputs;

  std::string Describe() const {
    return fmt::format("{} '{}'", session ? "model" : "saved outputs", path);
  }
  std::vector<std::string> OutputNames() const {
    std::vector<std::string> names;
    if (session)
      for (const auto& o : session->metadata().outputs) names.push_back(o.name);
    else
      for (const auto& o : outputs) names.push_back(o.name);
    return names;
  }
};

Status Open(Side& side, const runtime::SessionOptions& options) {
  if (IsSavedOutputs(side.path)) {
    HONE_ASSIGN_OR_RETURN(side.outputs, ReadSavedOutputs(side.path));
    return Status::Ok();
  }
  HONE_ASSIGN_OR_RETURN(side.session, runtime::Session::Open(side.path, options));
  return Status::Ok();
}

// A .npy's unnamed array takes the name of the other side's only output.
Status NameUnnamed(Side& saved, const Side& other) {
  if (saved.session || saved.outputs.size() != 1 || !saved.outputs[0].name.empty()) return Status::Ok();
  std::vector<std::string> names = other.OutputNames();
  if (names.size() != 1 || names[0].empty()) {
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    return Status::InvalidArgument(fmt::format(
        "{} '{}' holds one unnamed array, but the {} has {} outputs ({}): save the {} as a .npz with an array "
        "per output",
        saved.role, saved.path, other.role, names.size(), list, saved.role));
  }
  saved.outputs[0].name = names[0];
  return Status::Ok();
}

Status CheckRows(const Side& saved, const InputSet& inputs) {
  for (const NamedTensor& t : saved.outputs) {
    const int64_t rows = t.tensor.shape().empty() ? 1 : t.tensor.shape()[0];
    if (rows != inputs.pool.sample_count())
      return Status::InvalidArgument(fmt::format(
          "{} '{}': array '{}' has {} rows, but the inputs ({}) have {} samples: give the inputs these outputs were "
          "made from (--data, or the same --shape/--range/--seed)",
          saved.role, saved.path, t.name, rows, inputs.pool.description(), inputs.pool.sample_count()));
  }
  return Status::Ok();
}

}  // namespace

Result<CompareReport> RunCompare(const CompareJob& job) {
  Side reference, candidate;
  reference.role = "reference";
  reference.path = job.reference_path;
  candidate.role = "candidate";
  candidate.path = job.candidate_path;
  HONE_RETURN_IF_ERROR(Open(reference, job.session));
  HONE_RETURN_IF_ERROR(Open(candidate, job.session));
  HONE_RETURN_IF_ERROR(NameUnnamed(reference, candidate));
  HONE_RETURN_IF_ERROR(NameUnnamed(candidate, reference));

  std::optional<InputSet> inputs;
  const Side* first_model = reference.session ? &reference : candidate.session ? &candidate : nullptr;
  std::string input_description;
  if (first_model) {
    HONE_ASSIGN_OR_RETURN(InputSet loaded, LoadInputs(first_model->session->metadata(), job.inputs));
    inputs.emplace(std::move(loaded));
    RunOptions run{job.batch, nullptr};
    for (Side* side : {&reference, &candidate}) {
      if (side->session) {
        HONE_ASSIGN_OR_RETURN(side->outputs, RunOnAllSamples(*side->session, *inputs, run));
      } else {
        HONE_RETURN_IF_ERROR(CheckRows(*side, *inputs));
      }
    }
    const int64_t batch = job.batch > 0 ? job.batch : inputs->pool.default_batch();
    input_description = fmt::format("{}, {} sample{} per run", inputs->pool.description(), batch,
                                    batch == 1 ? "" : "s");
  }
  if (!job.save_reference_outputs.empty())
    HONE_RETURN_IF_ERROR(WriteSavedOutputs(job.save_reference_outputs, reference.outputs));
  if (!job.save_candidate_outputs.empty())
    HONE_RETURN_IF_ERROR(WriteSavedOutputs(job.save_candidate_outputs, candidate.outputs));

  HONE_ASSIGN_OR_RETURN(CompareReport report, CompareOutputs(reference.outputs, candidate.outputs, job.settings));
  report.reference = reference.Describe();
  report.candidate = candidate.Describe();
  report.inputs = input_description;
  if (first_model) {
    report.runtime = fmt::format("ONNX Runtime {}, {}", runtime::OrtVersion(), job.session.ToString());
    report.session = job.session;
  }
  return report;
}

}  // namespace hone::check
