#include "tune/wire_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <functional>

#include "check/compare.h"
#include "check/model_outputs.h"
#include "client/grpc_infer_client.h"
#include "client/http_infer_client.h"
#include "runtime/session.h"
#include "tensor/npz.h"

namespace hone::tune {
namespace fs = std::filesystem;
namespace {

using InferFn = std::function<Result<std::vector<NamedTensor>>(std::span<const NamedTensor>)>;

// One client of the protocol the trials used: the final check goes through the same front end.
Result<InferFn> Connect(const WireCheckSettings& s) {
  std::string host;
  int port = 0;
  HONE_RETURN_IF_ERROR(bench::ParseUrl(s.url, &host, &port));
  if (s.protocol == bench::RemoteProtocol::kGrpc) {
    HONE_ASSIGN_OR_RETURN(std::unique_ptr<client::GrpcInferClient> grpc, client::GrpcInferClient::Connect(host, port));
    std::shared_ptr<client::GrpcInferClient> client = std::move(grpc);
    return InferFn([client, model = s.model_name](std::span<const NamedTensor> inputs) {
      return client->Infer(model, 0, inputs);
    });
  }
  HONE_ASSIGN_OR_RETURN(std::unique_ptr<client::HttpInferClient> http,
                        client::HttpInferClient::Connect(host, static_cast<uint16_t>(port)));
  std::shared_ptr<client::HttpInferClient> client = std::move(http);
  return InferFn([client, model = s.model_name](std::span<const NamedTensor> inputs)
                     -> Result<std::vector<NamedTensor>> {
    client::ClientInferOptions binary;
    binary.binary_inputs = binary.binary_outputs = true;
    HONE_ASSIGN_OR_RETURN(client::InferenceResponse response, client->Infer(model, 0, inputs, binary));
    return std::move(response.outputs);
  });
}

// The outputs in the model's order, named as the model names them (a server may answer in another order).
Result<std::vector<NamedTensor>> InModelOrder(const runtime::ModelMetadata& md, std::vector<NamedTensor> outputs) {
  std::vector<NamedTensor> ordered;
  for (const runtime::IoSpec& spec : md.outputs) {
    auto it = std::find_if(outputs.begin(), outputs.end(), [&](const NamedTensor& t) { return t.name == spec.name; });
    if (it == outputs.end()) return Status::Internal(fmt::format("the server's answer has no output '{}'", spec.name));
    ordered.push_back(std::move(*it));
  }
  return ordered;
}

// Rows appended along the first axis, for the wire's outputs of every request as one array per output.
struct RowStack {
  std::vector<NamedTensor> first;  // the first request's outputs: names, types, trailing dimensions
  std::vector<std::vector<std::byte>> bytes;
  std::vector<int64_t> rows;

  void Append(const std::vector<NamedTensor>& outputs) {
    if (first.empty()) {
      first = outputs;
      bytes.resize(outputs.size());
      rows.assign(outputs.size(), 0);
    }
    for (size_t k = 0; k < outputs.size() && k < bytes.size(); ++k) {
      const Tensor& t = outputs[k].tensor;
      const std::byte* data = t.data();
      bytes[k].insert(bytes[k].end(), data, data + t.byte_size());
      rows[k] += t.shape().empty() ? 1 : t.shape()[0];
    }
  }
  Result<std::vector<NamedTensor>> Stacked() const {
    std::vector<NamedTensor> out;
    for (size_t k = 0; k < first.size(); ++k) {
      Shape shape = first[k].tensor.shape();
      if (shape.empty()) return Status::InvalidArgument(fmt::format("output '{}' is a scalar", first[k].name));
      shape[0] = rows[k];
      HONE_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(first[k].tensor.type(), shape));
      if (t.byte_size() != bytes[k].size())
        return Status::Internal(fmt::format("output '{}' changed its shape from one request to the next",
                                            first[k].name));
      if (!bytes[k].empty()) std::memcpy(t.mutable_data(), bytes[k].data(), bytes[k].size());
      out.push_back({first[k].name, std::move(t)});
    }
    return out;
  }
};

check::CompareSettings NearExact() {
  check::CompareSettings exact;
  exact.tolerances.defaults.rule = check::ToleranceRule::kAtolRtol;
  exact.tolerances.defaults.atol = 1e-5;
  exact.tolerances.defaults.rtol = 1e-4;
  return exact;
}

bool Matches(const std::vector<NamedTensor>& reference, const std::vector<NamedTensor>& candidate,
             const check::CompareSettings& settings, std::string* why) {
  auto r = check::CompareOutputs(reference, candidate, settings);
  if (!r.ok()) {
    *why = r.status().message();
    return false;
  }
  if (r->passed()) return true;
  *why = "outside the tolerances";
  for (const check::OutputComparison& o : r->outputs) {
    if (!o.failure.empty()) {
      *why = fmt::format("output '{}': {}", o.reference_name, o.failure);
      break;
    }
  }
  return false;
}

// Rows [row, row + count) of every output.
Result<std::vector<NamedTensor>> Rows(const std::vector<NamedTensor>& outputs, int64_t row, int64_t count) {
  std::vector<NamedTensor> out;
  for (const NamedTensor& t : outputs) {
    HONE_ASSIGN_OR_RETURN(Tensor slice, t.tensor.SliceRows(row, count));
    out.push_back({t.name, std::move(slice)});
  }
  return out;
}

Status EvaluateGates(const WireCheckSettings& s, const RowStack& stack, WireCheck& check) {
  std::vector<check::Gate> gates = s.gates;
  if (gates.empty() && s.has_labels) gates.push_back({"accuracy_drop", check::GateOp::kLessEqual, 0.01});
  if (gates.empty()) return Status::Ok();  // nothing to gate on: the outputs' match is the check
  HONE_ASSIGN_OR_RETURN(std::vector<NamedTensor> stacked, stack.Stacked());
  std::string path = (fs::path(s.work_dir) / "wire_outputs.npz").string();
  HONE_RETURN_IF_ERROR(check::WriteSavedOutputs(path, stacked));
  check::EvaluateSettings e;
  e.model_path = s.winner_path;
  e.session = s.winner_session;
  e.inputs.data_path = s.heldout_path;
  e.candidate_outputs_path = path;
  e.against_path = s.source_path;
  e.output = s.output;
  e.gates = gates;
  e.slice_key = s.slice_key;
  e.perturbations = s.perturbations;
  e.stability_epsilon = 0;
  HONE_ASSIGN_OR_RETURN(check.evaluation, check::Evaluate(e));
  return Status::Ok();
}

}  // namespace

std::string WireCheck::Describe(bench::RemoteProtocol protocol) const {
  if (rows == 0) return "no held-out row was sent";
  std::string text = fmt::format(
      "{} held-out row{} sent over {} in {} request{}: {} match the winner in process within 1e-5{}; together they "
      "{}",
      rows, rows == 1 ? "" : "s", protocol == bench::RemoteProtocol::kGrpc ? "gRPC" : "HTTP", requests,
      requests == 1 ? "" : "s", rows_match_winner, first_difference.empty() ? "" : " (first: " + first_difference + ")",
      source_match ? "match the source within " + source_rule
                   : "do NOT match the source within " + source_rule + ": " + source_detail);
  if (evaluation) {
    std::vector<std::string> gates;
    for (const check::GateResult& g : evaluation->gates)
      gates.push_back(fmt::format("{} ({:.4g}) {}", g.gate.ToString(), g.value, g.passed ? "passed" : "FAILED"));
    text += fmt::format("; gates on the wire's outputs: {}", fmt::join(gates, ", "));
  }
  if (!gates_error.empty()) text += "; gates not evaluated: " + gates_error;
  return text;
}

Result<WireCheck> CheckOverTheWire(const WireCheckSettings& s) {
  HONE_ASSIGN_OR_RETURN(std::vector<NamedTensor> data, ReadNpz(s.heldout_path));
  HONE_ASSIGN_OR_RETURN(auto winner, runtime::Session::Open(s.winner_path, s.winner_session));
  HONE_ASSIGN_OR_RETURN(auto source, runtime::Session::Open(s.source_path, runtime::SessionOptions{}));
  HONE_ASSIGN_OR_RETURN(InferFn infer, Connect(s));
  const runtime::ModelMetadata& md = winner->metadata();
  std::vector<const NamedTensor*> arrays;
  int64_t rows = 1;
  for (const runtime::IoSpec& in : md.inputs) {
    auto it = std::find_if(data.begin(), data.end(), [&](const NamedTensor& t) { return t.name == in.name; });
    if (it == data.end()) return Status::InvalidArgument(fmt::format("the held-out data has no input '{}'", in.name));
    arrays.push_back(&*it);
    if (s.batch_axis && !it->tensor.shape().empty()) rows = arrays.size() == 1 ? it->tensor.shape()[0]
                                                                               : std::min(rows, it->tensor.shape()[0]);
  }
  const int64_t step = s.batch_axis ? std::max<int64_t>(1, s.rows_per_request) : rows;
  const check::CompareSettings exact = NearExact();
  WireCheck check;
  RowStack stack, source_stack;
  for (int64_t row = 0; row < rows; row += step) {
    const int64_t count = std::min(step, rows - row);
    std::vector<NamedTensor> inputs;
    std::vector<Tensor> session_inputs;
    for (size_t k = 0; k < arrays.size(); ++k) {
      Tensor t = arrays[k]->tensor;
      if (s.batch_axis) {
        HONE_ASSIGN_OR_RETURN(t, t.SliceRows(row, count));
      }
      inputs.push_back({md.inputs[k].name, t});
      session_inputs.push_back(t);
    }
    auto wire = infer(inputs);
    if (!wire.ok()) {
      return Status(wire.status().code(),
                    fmt::format("rows {}..{}: the server answered: {}", row, row + count - 1, wire.status().message()));
    }
    HONE_ASSIGN_OR_RETURN(std::vector<NamedTensor> wire_outputs, InModelOrder(md, std::move(*wire)));
    HONE_ASSIGN_OR_RETURN(std::vector<Tensor> mine, winner->Run(session_inputs));
    HONE_ASSIGN_OR_RETURN(std::vector<Tensor> theirs, source->Run(session_inputs));
    std::vector<NamedTensor> mine_named, theirs_named;
    for (size_t k = 0; k < md.outputs.size(); ++k) {
      mine_named.push_back({md.outputs[k].name, mine[k]});
      theirs_named.push_back({md.outputs[k].name, theirs[k]});
    }
    ++check.requests;
    stack.Append(wire_outputs);
    source_stack.Append(theirs_named);
    // Row by row, so a difference is counted and named where it is.
    const int64_t per_row = s.batch_axis ? count : 1;
    for (int64_t r = 0; r < per_row; ++r) {
      const int64_t n = s.batch_axis ? 1 : count;
      std::vector<NamedTensor> w = wire_outputs, a = mine_named;
      if (s.batch_axis) {
        HONE_ASSIGN_OR_RETURN(w, Rows(wire_outputs, r, 1));
        HONE_ASSIGN_OR_RETURN(a, Rows(mine_named, r, 1));
      }
      std::string why;
      bool same = Matches(a, w, exact, &why);
      check.rows += n;
      check.rows_match_winner += same ? n : 0;
      if (check.first_difference.empty() && !same) check.first_difference = fmt::format("row {}: {}", row + r, why);
    }
  }
  auto wire_all = stack.Stacked();
  auto source_all = source_stack.Stacked();
  if (!wire_all.ok() || !source_all.ok()) {
    check.source_detail = (wire_all.ok() ? source_all.status() : wire_all.status()).message();
  } else {
    check::CompareSettings against_source;
    against_source.tolerances = s.source_tolerances;
    const check::Tolerance& rule = s.source_tolerances.defaults;
    if (rule.rule != check::ToleranceRule::kSimilarity || rule.min_cosine != check::kDefaultMinCosine ||
        rule.max_range_error != check::kDefaultMaxRangeError || !s.source_tolerances.NamedOutputs().empty())
      check.source_rule = "the run's tolerances (" + rule.Describe() + ")";
    check.source_match = Matches(*source_all, *wire_all, against_source, &check.source_detail);
  }
  if (s.batch_axis) {
    Status gated = EvaluateGates(s, stack, check);
    if (!gated.ok()) check.gates_error = gated.message();
  } else if (!s.gates.empty()) {
    check.gates_error = "the model has no batch dimension, so its outputs over the wire are not rows to evaluate";
  }
  return check;
}

}  // namespace hone::tune
