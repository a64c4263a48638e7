#include "check/evaluate_report.h"
#include "check/report_format.h"
#include "runtime/session_options_json.h"

namespace hone::check {
namespace {

std::string_view BetterName(Better b) {
  return b == Better::kHigher ? "higher" : b == Better::kLower ? "lower" : "neither";
}

nlohmann::json MetricsJson(const std::vector<Metric>& metrics) {
  nlohmann::json j = nlohmann::json::object();
  for (const Metric& m : metrics)
    j[m.name] = {{"value", nlohmann::json(m.value)}, {"unit", m.unit}, {"better", BetterName(m.better)}};
  return j;
}

nlohmann::json ClassificationJson(const ClassificationMetrics& c) {
  nlohmann::json recall = nlohmann::json::array(), bins = nlohmann::json::array();
  for (size_t k = 0; k < c.recall.size(); ++k)
    recall.push_back({{"class", k}, {"samples", c.support[k]},
                      {"recall", c.recall[k] ? nlohmann::json(*c.recall[k]) : nlohmann::json(nullptr)}});
  for (const ReliabilityBin& b : c.calibration.reliability)
    bins.push_back({{"lower", b.lower}, {"upper", b.upper}, {"samples", b.count},
                    {"mean_confidence", nlohmann::json(b.mean_confidence)}, {"accuracy", nlohmann::json(b.accuracy)}});
  return {{"samples", c.samples},
          {"classes", c.classes},
          {"scores", ScoreKindName(c.scores)},
          {"top_k", c.k},
          {"accuracy", nlohmann::json(c.accuracy)},
          {"top_k_accuracy", nlohmann::json(c.top_k_accuracy)},
          {"macro_f1", nlohmann::json(c.macro_f1)},
          {"nll_nats", nlohmann::json(c.nll)},
          {"ece", nlohmann::json(c.calibration.ece)},
          {"ece_bins", c.calibration.bins},
          {"calibration_max_gap", nlohmann::json(c.calibration.max_gap)},
          {"per_class_recall", recall},
          {"reliability", bins},
          {"non_finite_rows", c.non_finite_rows}};
}

nlohmann::json TaskJson(const TaskMetrics& m) {
  nlohmann::json j = {{"task", TaskName(m.task)}, {"samples", m.samples}, {"metrics", MetricsJson(m.Flat())}};
  if (m.classification) j["classification"] = ClassificationJson(*m.classification);
  if (const auto& e = m.embedding)
    j["embedding"] = {{"dims", e->dims},
                      {"cosine_mean", nlohmann::json(e->cosine_mean)},
                      {"cosine_min", nlohmann::json(e->cosine_min)},
                      {"k", e->k},
                      {"retrieval_samples", e->retrieval_samples},
                      {"recall_at_k", nlohmann::json(e->recall_at_k)},
                      {"pairwise_similarity",
                       {{"reference_mean", nlohmann::json(e->similarity_mean_reference)},
                        {"candidate_mean", nlohmann::json(e->similarity_mean_candidate)},
                        {"reference_std", nlohmann::json(e->similarity_std_reference)},
                        {"candidate_std", nlohmann::json(e->similarity_std_candidate)},
                        {"mean_abs_change", nlohmann::json(e->similarity_mean_abs_change)},
                        {"wasserstein_1", nlohmann::json(e->similarity_wasserstein)}}}};
  if (const auto& r = m.regression)
    j["regression"] = {{"elements", r->elements}, {"non_finite", r->non_finite}, {"mae", nlohmann::json(r->mae)},
                       {"rmse", nlohmann::json(r->rmse)}, {"max_abs_error", nlohmann::json(r->max_abs_error)}};
  return j;
}

nlohmann::json ModelJson(const ModelEvaluation& e) {
  nlohmann::json j = {{"source", e.source}, {"quality", TaskJson(e.metrics)}};
  nlohmann::json perturbations = nlohmann::json::array();
  for (const PerturbationResult& p : e.perturbations)
    perturbations.push_back({{"perturbation", p.perturbation.Name()}, {"primary", nlohmann::json(p.primary)},
                             {"drop", nlohmann::json(p.drop)}, {"quality", TaskJson(p.metrics)}});
  j["perturbations"] = perturbations;
  if (const auto& s = e.stability) {
    j["stability"] = {{"nan", s->non_finite.nan},
                      {"inf", s->non_finite.inf},
                      {"min", nlohmann::json(s->min)},
                      {"max", nlohmann::json(s->max)},
                      {"epsilon", s->epsilon},
                      {"max_change", nlohmann::json(s->max_change)},
                      {"mean_change", nlohmann::json(s->mean_change)},
                      {"max_change_ratio_of_range", nlohmann::json(s->max_change_ratio)}};
    if (s->argmax_flips) {
      j["stability"]["argmax_flips"] = *s->argmax_flips;
      j["stability"]["rows"] = s->rows;
      j["stability"]["flip_rate"] = nlohmann::json(s->flip_rate);
    }
  }
  return j;
}

nlohmann::json SlicesJson(const SliceReport& s) {
  nlohmann::json slices = nlohmann::json::array();
  for (const SliceResult& r : s.slices) {
    nlohmann::json j = {{"id", r.id}, {"samples", r.samples}, {"value", nlohmann::json(r.value)},
                        {"gap", nlohmann::json(Worsening(s.metric.better, s.metric.value, r.value))}};
    if (r.reference_value) {
      j["reference_value"] = nlohmann::json(*r.reference_value);
      j["drop"] = nlohmann::json(Worsening(s.metric.better, *r.reference_value, r.value));
    }
    slices.push_back(j);
  }
  nlohmann::json j = {{"key", s.key},       {"metric", s.metric.name},          {"unit", s.metric.unit},
                      {"overall", nlohmann::json(s.metric.value)}, {"slices", slices}, {"worst_id", s.worst_id},
                      {"worst_value", nlohmann::json(s.worst_value)}, {"worst_gap", nlohmann::json(s.worst_gap)}};
  if (s.worst_drop) {
    j["worst_drop_id"] = *s.worst_drop_id;
    j["worst_drop"] = nlohmann::json(*s.worst_drop);
  }
  return j;
}

}  // namespace

nlohmann::json EvaluateReportToJson(const EvaluateReport& r) {
  nlohmann::json gates = nlohmann::json::array();
  for (const GateResult& g : r.gates)
    gates.push_back({{"gate", g.gate.ToString()}, {"metric", g.gate.metric}, {"threshold", g.gate.threshold},
                     {"value", nlohmann::json(g.value)}, {"passed", g.passed}});
  // The machine is the envelope's (report/report_envelope.h).
  nlohmann::json j = {{"input_source", r.inputs},
                      {"runtime", runtime::SessionOptionsToJson(r.session)},
                      {"task", TaskName(r.task)},
                      {"output", r.output},
                      {"output_shape", r.output_shape},
                      {"truth", r.truth},
                      {"input_bounds", r.input_bounds},
                      {"perturb_seed", r.perturb_seed},
                      {"candidate", ModelJson(r.candidate)},
                      {"metrics", MetricsJson(r.metrics)},
                      {"gates", gates},
                      {"passed", r.passed()},
                      {"units", {{"ratio", "a fraction in [0, 1]"}, {"nats", "natural-log units"},
                                 {"output units", "the evaluated output's own units"},
                                 {"non_finite_numbers", "null, with a sibling <key>_non_finite: nan, inf or -inf"}}}};
  if (r.reference) j["reference"] = ModelJson(*r.reference);
  if (r.prediction_agreement) j["prediction_agreement"] = *r.prediction_agreement;
  if (r.slices) j["slices"] = SlicesJson(*r.slices);
  return j;
}

}  // namespace hone::check
