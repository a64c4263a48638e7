#include "check/compare_report.h"
#include "check/report_format.h"
#include "runtime/session_options_json.h"

namespace hone::check {
namespace {

nlohmann::json SideJson(DataType type, const Shape& shape, const NonFiniteCounts& counts) {
  return {{"datatype", DataTypeName(type)}, {"shape", shape}, {"nan", counts.nan}, {"inf", counts.inf}};
}

const char* RuleName(ToleranceRule rule) {
  switch (rule) {
    case ToleranceRule::kSimilarity: return "similarity";
    case ToleranceRule::kExact: return "exact";
    case ToleranceRule::kAtolRtol: break;
  }
  return "atol_rtol";
}

nlohmann::json ToleranceJson(const Tolerance& t) {
  nlohmann::json j = {{"rule", RuleName(t.rule)}, {"description", t.Describe()}};
  if (t.rule == ToleranceRule::kSimilarity) {
    j["min_cosine"] = t.min_cosine;
    j["max_range_error"] = t.max_range_error;
  } else if (t.rule == ToleranceRule::kAtolRtol) {
    j["atol"] = t.atol;
    j["rtol"] = t.rtol;
    j["statistic"] = t.statistic.Name();
  }
  return j;
}

nlohmann::json OutputJson(const OutputComparison& o) {
  nlohmann::json j = {
      {"reference_name", o.reference_name},
      {"candidate_name", o.candidate_name},
      {"reference", SideJson(o.reference_type, o.reference_shape, o.reference_non_finite)},
      {"candidate", SideJson(o.candidate_type, o.candidate_shape, o.candidate_non_finite)},
      {"shapes_match", o.shapes_match},
      {"tolerance", ToleranceJson(o.tolerance)},
      {"passed", o.passed},
      {"failure", o.failure},
  };
  if (!o.shapes_match) return j;
  const ErrorStats& e = o.errors;
  const MatchResult& m = o.match;
  j["elements"] = e.elements;
  j["finite_pairs"] = e.finite_pairs;
  j["abs_error"] = {{"max", nlohmann::json(e.max_abs)}, {"mean", nlohmann::json(e.mean_abs)}, {"p99", nlohmann::json(e.p99_abs)}};
  j["rel_error"] = {{"max", nlohmann::json(e.max_rel)}, {"mean", nlohmann::json(e.mean_rel)}, {"p99", nlohmann::json(e.p99_rel)}};
  j["cosine_similarity"] = nlohmann::json(e.cosine_similarity);
  j["mismatched"] = m.mismatched;
  j["non_finite_mismatches"] = m.non_finite_mismatches;
  j["reference_range"] = {nlohmann::json(e.reference_min), nlohmann::json(e.reference_max)};
  j["range_error"] = nlohmann::json(m.range_error);
  j["unjudged"] = m.unjudged;
  j["statistic_value"] = {{"abs", nlohmann::json(m.statistic_abs)}, {"rel", nlohmann::json(m.statistic_rel)}};
  j["min_passing"] = {{"atol", nlohmann::json(m.min_atol)}, {"rtol", nlohmann::json(m.min_rtol)}};
  if (e.worst_index >= 0)
    j["largest_error"] = {{"index", ElementIndexVector(e.worst_index, o.reference_shape)},
                          {"reference", nlohmann::json(o.worst_reference)},
                          {"candidate", nlohmann::json(o.worst_candidate)}};
  if (const auto& c = o.classifier)
    j["classifier"] = {{"rows", c->rows},
                       {"classes", c->classes},
                       {"argmax_agreements", c->argmax_agreements},
                       {"argmax_agreement", c->argmax_agreement},
                       {"top_k", c->k},
                       {"top_k_overlap", c->topk_overlap}};
  return j;
}

}  // namespace

nlohmann::json CompareReportToJson(const CompareReport& r) {
  nlohmann::json outputs = nlohmann::json::array();
  for (const auto& o : r.outputs) outputs.push_back(OutputJson(o));
  return {
      {"reference", r.reference},
      {"candidate", r.candidate},
      {"input_source", r.inputs},
      {"runtime", r.session ? runtime::SessionOptionsToJson(*r.session) : nlohmann::json(nullptr)},
      {"rule", kCompareRule},
      {"units",
       {{"abs_error", "the output's own units"},
        {"rel_error", "ratio to |reference|"},
        {"cosine_similarity", "ratio"},
        {"argmax_agreement", "ratio"},
        {"non_finite_numbers", "null, with a sibling <key>_non_finite: nan, inf or -inf"}}},
      {"outputs", outputs},
      {"reference_only", r.reference_only},
      {"candidate_only", r.candidate_only},
      {"validate", r.validate},
      {"validation_failures", r.validation_failures},
      {"passed", r.passed()},
  };
}

}  // namespace hone::check
