#include "report/report_envelope.h"

#include <fmt/format.h>

#include <cmath>

#include "base/utc_time.h"

namespace hone::report {
namespace {

// "nan", "inf", "-inf", or null for a finite number or anything else.
nlohmann::json NonFiniteName(const nlohmann::json& v) {
  if (!v.is_number_float()) return nullptr;
  const double d = v.get<double>();
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  return nullptr;
}

}  // namespace

nlohmann::json SystemJson(const SystemInfo& s) {
  return {{"cpu_model", s.cpu_model},
          {"logical_cores", s.logical_cores},
          {"cpu_features", s.cpu_features},
          {"memory_bytes", s.memory_bytes},
          {"kernel", s.kernel},
          {"hostname", s.hostname},
          {"onnxruntime_version", s.onnxruntime_version},
          {"hone_version", s.hone_version},
          {"compiler", s.compiler}};
}


void NullNonFinite(nlohmann::json& j) {
  if (j.is_object()) {
    std::vector<std::pair<std::string, nlohmann::json>> siblings;
    for (auto it = j.begin(); it != j.end(); ++it) {
      nlohmann::json name = NonFiniteName(it.value());
      if (!name.is_null()) {
        siblings.emplace_back(it.key() + "_non_finite", name);
        it.value() = nullptr;
      } else if (it.value().is_array()) {
        nlohmann::json names = nlohmann::json::array();
        bool any = false;
        for (auto& e : it.value()) {
          nlohmann::json n = NonFiniteName(e);
          any |= !n.is_null();
          if (!n.is_null()) e = nullptr;
          names.push_back(n);
        }
        if (any) siblings.emplace_back(it.key() + "_non_finite", names);
        NullNonFinite(it.value());
      } else {
        NullNonFinite(it.value());
      }
    }
    for (auto& [key, value] : siblings) j[key] = std::move(value);
  } else if (j.is_array()) {
    for (auto& e : j) {
      if (!NonFiniteName(e).is_null()) e = nullptr;  // no key to hang a sibling on: a bare array element
      NullNonFinite(e);
    }
  }
}

nlohmann::json MakeReport(std::string_view report, const ReportContext& context, nlohmann::json model,
                          nlohmann::json body) {
  nlohmann::json j = {{"tool", "hone"},
                      {"schema_version", kReportSchemaVersion},
                      {"report", std::string(report)},
                      {"started_at", UtcTimestamp(context.started_at)},
                      {"finished_at", UtcTimestamp(std::chrono::system_clock::now())},
                      {"command", context.argv},
                      {"system", SystemJson(ReadSystemInfo())},
                      {"model", std::move(model)},
                      {std::string(report), std::move(body)}};
  NullNonFinite(j);
  return j;
}

}  // namespace hone::report
