#include "tune/report_html.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "tune/report_html_parts.h"
#include "tune/svg_chart.h"

namespace hone::tune {
namespace {

using html::Bool;
using html::Esc;
using html::Get;
using html::HtmlTable;
using html::Items;
using html::NotMeasured;
using html::Num;
using html::Str;
using html::TextOr;
using json = nlohmann::json;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// System fonts only: a page that names no font file loads nothing.
constexpr const char* kStyle = R"(
body{font-family:system-ui,sans-serif;margin:24px auto;max-width:1180px;color:#222;line-height:1.4;padding:0 16px}
h1{font-size:24px;margin-bottom:4px}h2{font-size:19px;border-bottom:1px solid #ddd;padding-bottom:4px;margin-top:32px}
h3{font-size:15px;margin:18px 0 6px}.meta{color:#555;margin-top:0}
table{border-collapse:collapse;margin:8px 0;font-size:13px}th,td{border:1px solid #ccc;padding:4px 8px;
text-align:left;vertical-align:top}th{background:#f2f2f2}
.verdict{border:2px solid #888;border-radius:6px;padding:12px 18px;background:#f4f4f4}
.verdict.met{border-color:#2e7d32;background:#e8f5e9}.verdict.notmet{border-color:#c62828;background:#fdecea}
.verdict .headline{font-size:22px;font-weight:bold;margin:0 0 6px}.verdict.met .headline{color:#1b5e20}
.verdict.notmet .headline{color:#b71c1c}.ok{color:#1b5e20;font-weight:bold}.bad{color:#b71c1c;font-weight:bold}
.na{color:#888;font-style:italic}.banner{background:#fff3cd;border:1px solid #e0b000;padding:8px 12px;margin:8px 0}
pre{background:#f6f6f6;border:1px solid #ddd;padding:8px;white-space:pre-wrap;word-break:break-all;font-size:12px}
details{margin:6px 0}summary{cursor:pointer;font-weight:bold}tr.chosen td{background:#e8f5e9}
)";

std::string Section(std::string_view id, std::string_view title, std::string_view body) {
  return fmt::format("<section id=\"{}\">\n<h2>{}</h2>\n{}</section>\n", id, Esc(title), body);
}

std::string Paragraph(std::string_view html_text, std::string_view css_class = "") {
  return css_class.empty() ? fmt::format("<p>{}</p>\n", html_text)
                           : fmt::format("<p class=\"{}\">{}</p>\n", css_class, html_text);
}

std::string Margin(std::optional<double> m) {
  if (!m) return NotMeasured();
  return Esc(*m >= 0 ? fmt::format("{:.0f}% headroom", *m * 100) : fmt::format("{:.0f}% over the bound", -*m * 100));
}

std::string ModelName(const json& report, const json& tune) {
  const std::string path = Str(Get(report, "model"), "path");
  if (!path.empty()) return path;
  const std::string name = Str(Get(report, "model"), "name");
  return name.empty() ? Str(Get(tune, "repository"), "model") : name;
}

std::string HeaderHtml(const json& report, const json& tune) {
  const std::string model = ModelName(report, tune);
  std::string s = "<h1>hone tune: " + (model.empty() ? std::string("unknown model") : Esc(model)) + "</h1>\n";
  s += Paragraph(fmt::format("started {} · finished {} · wall time {}", TextOr(report, "started_at"),
                             TextOr(report, "finished_at"), html::Seconds(Num(tune, "wall_time_s"))),
                 "meta");
  if (Bool(tune, "interrupted").value_or(false))
    s += "<div class=\"banner\">Interrupted: this report holds what finished before the stop.</div>\n";
  if (!tune.is_object())
    s += "<div class=\"banner\">This report has no tune body: nothing was measured.</div>\n";
  return s;
}

std::string SloTable(const json& tune, const json& verdict) {
  HtmlTable t({"SLO", "measured", "bound", "margin", "throughput", "met", "detail"});
  for (const json& r : Items(verdict, "slo_results")) {
    t.AddRow({TextOr(r, "slo"), html::Ms(Num(r, "measured_ms")), html::Ms(Num(r, "bound_ms")), Margin(Num(r, "margin")),
              html::Sps(Num(r, "throughput_sps")), html::YesNo(Bool(r, "met"), "met", "not met"), TextOr(r, "detail")});
  }
  if (t.empty()) {  // no final check: the objective, unmeasured
    for (const json& slo : Items(Get(tune, "objective"), "slos")) {
      t.AddRow({TextOr(slo, "text"), NotMeasured(), html::Ms(Num(slo, "bound_ms")), NotMeasured(), NotMeasured(),
                NotMeasured(), ""});
    }
  }
  return "<h3>Service-level objectives</h3>\n" + t.Html("<p class=\"na\">no SLO in this report</p>");
}

std::string GateTable(const json& tune, const json& verdict) {
  HtmlTable t({"gate", "value", "passed"});
  for (const json& g : Items(verdict, "gates")) {
    if (g.is_string()) t.AddRow({Esc(g.get<std::string>()), NotMeasured(), NotMeasured()});
    else t.AddRow({TextOr(g, "gate"), html::Scalar(Get(g, "value")), html::YesNo(Bool(g, "passed"), "passed", "failed")});
  }
  if (t.empty()) {
    for (const json& g : Items(Get(tune, "objective"), "gates"))
      t.AddRow({html::Scalar(g), NotMeasured(), NotMeasured()});
  }
  std::string s = "<h3>Quality gates</h3>\n" + t.Html("<p class=\"na\">no quality gate measured</p>");
  const std::string outputs = Str(verdict, "outputs");
  if (!outputs.empty()) s += Paragraph("Outputs over the wire: " + Esc(outputs));
  return s;
}

std::string CostTable(const json& tune, const json& verdict) {
  const auto baseline = Num(verdict, "baseline_cost_per_1000"), final_cost = Num(verdict, "final_cost_per_1000");
  HtmlTable t({"", "baseline", "final", "ratio"});
  t.AddRow({"cost per 1,000 predictions", html::Cost(baseline), html::Cost(final_cost),
            html::CostChange(baseline, final_cost)});
  const json& paired = Get(verdict, "vs_baseline");
  t.AddRow({"score (the SLO's: throughput, or latency in an open loop)", "1.00x",
            html::Ratio(Num(verdict, "throughput_ratio")),
            paired.is_object() ? html::Paired(paired) + ", both served in turn"
                               : html::Ratio(Num(verdict, "throughput_ratio")) + ", measured apart"});
  if (const json& cpu = Get(verdict, "cpu_vs_baseline"); cpu.is_object())
    t.AddRow({"CPU per sample (baseline's over final's)", "1.00x", html::Ratio(Num(cpu, "ratio")), html::Paired(cpu)});
  std::string s = "<h3>Cost and speed against the baseline</h3>\n" + t.Html();
  if (!Num(Get(tune, "objective"), "cost_per_hour"))
    s += Paragraph("No --cost-per-hour was given: cost is not measured.", "na");
  return s;
}

std::string VerdictHtml(const json& tune) {
  const json& verdict = Get(tune, "verdict");
  const std::optional<bool> met = Bool(verdict, "met");
  std::string s = fmt::format("<div class=\"verdict {}\">\n<p class=\"headline\">{}</p>\n",
                              met ? (*met ? "met" : "notmet") : "unknown",
                              met ? (*met ? "SLO met" : "SLO not met") : "Verdict not measured");
  const std::string summary = Str(verdict, "summary");
  s += Paragraph(summary.empty() ? NotMeasured() + " (the run ended before the final check)" : Esc(summary));
  s += Paragraph(fmt::format("Best candidate: <b>{}</b> · exit code {}", TextOr(verdict, "best_candidate"),
                             html::Scalar(Get(verdict, "exit_code"))));
  s += SloTable(tune, verdict) + GateTable(tune, verdict) + CostTable(tune, verdict);
  std::string misses;
  for (const json& m : Items(verdict, "misses")) misses += "<li>" + html::Scalar(m) + "</li>";
  if (!misses.empty()) s += "<h3>What was missed</h3>\n<ul>" + misses + "</ul>\n";
  // What one replica holds, and the replicas the expected load needs (the deployment in OUT/deploy/ asks for them).
  std::string capacity;
  for (const json& c : Items(tune, "capacity")) capacity += "<li>" + Esc(Str(c, "sentence")) + "</li>";
  if (const json& r = Get(tune, "replicas"); r.is_object()) {
    capacity += "<li>Replicas for the expected load: <b>" + html::Scalar(Get(r, "replicas")) + "</b> (" +
                Esc(Str(r, "arithmetic")) + ")</li>";
  }
  if (!capacity.empty()) s += "<h3>Capacity of one replica</h3>\n<ul>" + capacity + "</ul>\n";
  const json& objective = Get(tune, "objective");
  s += Paragraph(fmt::format("Objective: protocol {} · budget {} · cost per hour {}{}", TextOr(objective, "protocol"),
                             html::Seconds(Num(objective, "budget_s")), html::Cost(Num(objective, "cost_per_hour")),
                             Str(objective, "note").empty() ? "" : " · " + Esc(Str(objective, "note"))),
                 "meta");
  return Section("verdict", "Verdict", s + "</div>\n");
}

void AddLoadRows(HtmlTable& t, const json& who, std::string_view label) {
  for (const json& l : Items(who, "loads")) {
    t.AddRow({Esc(label), TextOr(l, "load"), html::Sps(Num(l, "throughput_sps")), html::Ms(Num(l, "p50_ms")),
              html::Ms(Num(l, "p95_ms")), html::Ms(Num(l, "p99_ms")), html::Percent(Num(l, "throughput_spread")),
              html::Plain(Num(l, "errors")), html::YesNo(Bool(l, "stable")), html::Cost(Num(l, "cost_per_1000"))});
  }
}

std::string LoadsHtml(const json& tune) {
  HtmlTable t({"candidate", "load", "throughput", "p50", "p95", "p99", "throughput spread", "errors", "stable",
               "cost / 1,000"});
  const json &baseline = Get(tune, "baseline"), &final_ = Get(tune, "final");
  AddLoadRows(t, baseline, "baseline");
  const std::string final_id = Str(final_, "candidate");
  AddLoadRows(t, final_, "final" + (final_id.empty() ? "" : " (" + final_id + ")"));
  std::string s = t.Html("<p class=\"na\">not measured</p>");
  if (!Str(final_, "through").empty()) s += Paragraph("The final figures were measured through " + Esc(Str(final_, "through")) + ".", "meta");
  if (!Str(final_, "error").empty()) s += Paragraph("Final check error: " + Esc(Str(final_, "error")), "bad");
  return Section("loads", "Baseline and final", s);
}

std::string CurvesHtml(const json& tune) {
  std::vector<LineSeries> series;
  HtmlTable points({"candidate", "concurrency", "throughput", "p50", "p99"});
  for (const json& c : Items(tune, "curves")) {
    LineSeries& s = series.emplace_back();
    s.name = Str(c, "candidate").empty() ? "unnamed" : Str(c, "candidate");
    for (const json& p : Items(c, "points")) {
      s.points.push_back({Num(p, "throughput_sps").value_or(kNaN), Num(p, "p99_ms").value_or(kNaN)});
      points.AddRow({Esc(s.name), html::Plain(Num(p, "concurrency")), html::Sps(Num(p, "throughput_sps")),
                     html::Ms(Num(p, "p50_ms")), html::Ms(Num(p, "p99_ms"))});
    }
  }
  ChartFrame f;
  f.width = 760;
  f.title = "p99 latency against throughput, one curve per finalist";
  f.x_label = "throughput (samples/s)";
  f.y_label = "p99 latency (ms)";
  f.x_from_zero = f.y_from_zero = true;
  // The first SLO's bound as a line, when it is on this chart's percentile.
  const json& slos = Items(Get(tune, "objective"), "slos");
  if (!slos.empty() && Num(slos[0], "percentile") == 99.0 && Num(slos[0], "bound_ms")) {
    f.y_reference = *Num(slos[0], "bound_ms");
    f.y_reference_label = "SLO: " + (Str(slos[0], "text").empty() ? "p99 bound" : Str(slos[0], "text"));
  }
  return Section("curves", "Latency against throughput",
                 LineChartSvg(f, series) + "\n<details><summary>The points</summary>\n" + points.Html() +
                     "</details>\n");
}

std::string ParetoHtml(const json& tune) {
  std::vector<ScatterPoint> points;
  std::string metric, unplotted;
  for (const json& p : Items(tune, "pareto")) {
    const std::string name = Str(p, "candidate");
    if (metric.empty()) metric = Str(p, "quality_metric");
    const auto x = Num(p, "throughput_sps"), y = Num(p, "quality");
    if (!x || !y) unplotted += (unplotted.empty() ? "" : ", ") + Esc(name);
    points.push_back({x.value_or(kNaN), y.value_or(kNaN), name, Bool(p, "chosen").value_or(false)});
  }
  ChartFrame f;
  f.width = 760;
  f.title = "Throughput against quality";
  f.x_label = "throughput (samples/s)";
  f.y_label = "quality (" + (metric.empty() ? std::string("not measured") : metric) + ", higher is better)";
  f.x_from_zero = true;
  std::string s = ScatterChartSvg(f, points, /*pareto_front=*/true) + "\n";
  if (!unplotted.empty()) s += Paragraph("Not plotted (no throughput or quality figure): " + unplotted, "na");
  return Section("pareto", "Throughput against quality (Pareto)", s);
}

std::string ServedSplitHtml(const json& split) {
  if (!split.is_object()) return Paragraph("Served split: " + NotMeasured());
  static const std::pair<const char*, const char*> kParts[] = {
      {"client_send_us", "client: send"},          {"queue_us", "server: queue"},
      {"compute_input_us", "server: input copy"},  {"compute_infer_us", "server: inference"},
      {"compute_output_us", "server: output copy"}, {"other_us", "other (parsing, serialisation, network)"},
      {"client_recv_us", "client: receive"}};
  const auto total = html::Num(split, "total_us");
  HtmlTable t({"part of a request", "time", "share"});
  std::vector<Bar> bars;
  for (const auto& [key, label] : kParts) {
    const auto us = Num(split, key);
    if (!Get(split, key).is_null() || us) {
      t.AddRow({Esc(label), us ? Esc(fmt::format("{:.1f} us", *us)) : NotMeasured(),
                us && total && *total > 0 ? html::Percent(*us / *total) : NotMeasured()});
      bars.push_back({label, us.value_or(kNaN), us ? fmt::format("{:.1f} us", *us) : ""});
    }
  }
  t.AddRow({"<b>total</b>", total ? Esc(fmt::format("{:.1f} us", *total)) : NotMeasured(), ""});
  std::string s = "<h3>Where a served request spends its time</h3>\n";
  if (!Str(split, "summary").empty()) s += Paragraph(Esc(Str(split, "summary")));
  if (!Str(split, "dominant").empty()) s += Paragraph("Dominant: <b>" + Esc(Str(split, "dominant")) + "</b>");
  BarChartOptions o;
  o.title = "Served request, by part (us)";
  o.full_scale = total.value_or(0);
  return s + BarChartSvg(o, bars) + "\n" + t.Html();
}

std::string ProfileHtml(const json& tune) {
  const json& profile = Get(tune, "profile");
  std::string s = Paragraph(TextOr(profile, "summary"));
  std::vector<Bar> bars;
  for (const json& op : Items(profile, "op_types")) {
    const auto share = Num(op, "share");
    std::string text = share ? fmt::format("{:.1f}%", *share * 100) : "";
    if (auto mean = Num(op, "mean_us_per_run")) text += fmt::format(" · {:.1f} us/run", *mean);
    if (auto nodes = Num(op, "nodes")) text += fmt::format(" · {:g} node{}", *nodes, *nodes == 1 ? "" : "s");
    bars.push_back({Str(op, "op_type"), share.value_or(kNaN), text});
  }
  BarChartOptions o;
  o.width = 760;
  o.title = "Kernel time by operator type (share of a run)";
  o.full_scale = 1;
  s += BarChartSvg(o, bars) + "\n";
  HtmlTable nodes({"node", "op type", "mean per run", "share"});
  for (const json& n : Items(profile, "top_nodes")) {
    const auto mean = Num(n, "mean_us");
    nodes.AddRow({TextOr(n, "node"), TextOr(n, "op_type"), mean ? Esc(fmt::format("{:.1f} us", *mean)) : NotMeasured(),
                  html::Percent(Num(n, "share"))});
  }
  if (!nodes.empty()) s += "<h3>Slowest nodes</h3>\n" + nodes.Html();
  return Section("profile", "Profile", s + ServedSplitHtml(Get(profile, "served_split")));
}

std::string Settings(const json& settings) {
  if (!settings.is_object()) return html::Scalar(settings);
  std::string s;
  for (auto it = settings.begin(); it != settings.end(); ++it)
    s += (s.empty() ? "" : ", ") + Esc(it.key()) + "=" + html::Scalar(it.value());
  return s.empty() ? "defaults" : s;
}

std::string Quality(const json& q) {
  if (q.is_number() || q.is_null() || q.is_string()) return html::Scalar(q);
  const std::string metric = Str(q, "metric");
  return (metric.empty() ? "" : Esc(metric) + " ") + html::Plain(Num(q, "value"));
}

std::string TrialsHtml(const json& stage) {
  HtmlTable t({"trial", "settings", "throughput", "p99", "CPU/sample", "vs incumbent (paired)", "CPU vs incumbent",
               "quality", "outcome", "reason"});
  for (const json& trial : Items(stage, "trials")) {
    const json& first_load = Items(trial, "loads").empty() ? json() : Items(trial, "loads")[0];
    const std::string outcome = Str(trial, "outcome");
    const auto cpu = Num(first_load, "cpu_us_per_sample");
    t.AddRow({TextOr(trial, "id"), Settings(Get(trial, "settings")), html::Sps(Num(first_load, "throughput_sps")),
              html::P99Over(first_load), cpu ? fmt::format("{:.1f} us", *cpu) : NotMeasured(),
              html::Paired(Get(trial, "paired")), html::Paired(Get(trial, "cpu_paired")), Quality(Get(trial, "quality")),
              TextOr(trial, "outcome"), TextOr(trial, "reason")},
             outcome == "chosen" ? "chosen" : "");
  }
  return fmt::format("<details><summary>{}: {} trial{}</summary>\n{}</details>\n", TextOr(stage, "name"),
                     Items(stage, "trials").size(), Items(stage, "trials").size() == 1 ? "" : "s",
                     t.Html("<p class=\"na\">no trial ran</p>"));
}

// The runner leaves a delta null when the stage changed nothing: that is a fact, not a missing figure.
std::string Delta(const json& stage, std::string_view key) {
  const std::string status = Str(stage, "status");
  if (!Num(stage, key) && (status == "no gain" || status == "skipped" || status == "failed"))
    return "<span class=\"na\">no change</span>";
  return html::Ratio(Num(stage, key));
}

std::string StagesHtml(const json& tune) {
  HtmlTable t({"stage", "status", "winner", "decided by", "rounds", "vs baseline", "vs previous", "wall time",
               "reason"});
  std::string trials;
  for (const json& stage : Items(tune, "stages")) {
    const std::string status = Str(stage, "status");
    const char* status_class = status == "improved" ? "ok" : status == "failed" ? "bad" : "";
    t.AddRow({TextOr(stage, "name"),
              status.empty()     ? NotMeasured()
              : *status_class == 0 ? Esc(status)
                                   : fmt::format("<span class=\"{}\">{}</span>", status_class, Esc(status)),
              Get(stage, "winner").is_string() ? Esc(Str(stage, "winner")) : "<span class=\"na\">none</span>",
              Get(stage, "decided_by").is_string() ? Esc(Str(stage, "decided_by")) : "<span class=\"na\">-</span>",
              Num(stage, "rounds").value_or(0) > 0 ? fmt::format("{:.0f}", *Num(stage, "rounds"))
                                                  : "<span class=\"na\">-</span>",
              Delta(stage, "delta_vs_baseline"), Delta(stage, "delta_vs_previous"),
              html::Seconds(Num(stage, "wall_s")), TextOr(stage, "reason")});
    trials += TrialsHtml(stage);
  }
  return Section("stages", "Stages", t.Html("<p class=\"na\">no stage ran</p>") + trials);
}

std::string RejectedHtml(const json& tune) {
  HtmlTable t({"candidate", "stage", "reason"});
  for (const json& r : Items(tune, "rejected"))
    t.AddRow({TextOr(r, "candidate"), TextOr(r, "stage"), TextOr(r, "reason")});
  return Section("rejected", "Rejected candidates", t.Html());
}

std::string SkippedHtml(const json& tune) {
  HtmlTable t({"stage", "what", "reason"});
  for (const json& r : Items(tune, "skipped")) t.AddRow({TextOr(r, "stage"), TextOr(r, "what"), TextOr(r, "reason")});
  return Section("skipped", "Skipped", t.Html());
}

std::string Pre(const json& j, std::string_view key) {
  const std::string s = Str(j, key);
  return s.empty() ? Paragraph(NotMeasured()) : "<pre>" + Esc(s) + "</pre>\n";
}

std::string RepositoryHtml(const json& tune) {
  const json &repo = Get(tune, "repository"), &reproduce = Get(tune, "reproduce");
  std::string s = Paragraph(fmt::format("Model repository: <code>{}</code>, model <code>{}</code>",
                                        TextOr(repo, "path"), TextOr(repo, "model")));
  s += "<h3>config.pbtxt</h3>\n" + Pre(repo, "config_pbtxt");
  s += "<h3>Reproduce</h3>\n<p>Serve the repository:</p>\n" + Pre(reproduce, "serve");
  s += "<p>Measure it again:</p>\n" + Pre(reproduce, "bench");
  return Section("repository", "Repository and how to reproduce", s);
}

std::string SystemHtml(const json& report) {
  const json &system = Get(report, "system"), &model = Get(report, "model");
  std::string features;
  const json& f = Get(system, "cpu_features");
  if (f.is_array()) {
    for (const json& x : f) features += (features.empty() ? "" : " ") + html::Scalar(x);
  } else {
    features = f.is_string() ? Esc(f.get<std::string>()) : NotMeasured();
  }
  HtmlTable t({"", ""});
  t.AddRow({"CPU", TextOr(system, "cpu_model")});
  t.AddRow({"logical cores", html::Plain(Num(system, "logical_cores"))});
  t.AddRow({"CPU features", features.empty() ? NotMeasured() : features});
  const auto memory = Num(system, "memory_bytes");
  t.AddRow({"memory", memory ? Esc(fmt::format("{:.1f} GiB", *memory / (1ull << 30))) : NotMeasured()});
  t.AddRow({"ONNX Runtime", TextOr(system, "onnxruntime_version")});
  t.AddRow({"hone", TextOr(system, "hone_version")});
  t.AddRow({"compiler", TextOr(system, "compiler")});
  t.AddRow({"kernel", TextOr(system, "kernel")});
  t.AddRow({"model file", TextOr(model, "path")});
  t.AddRow({"model sha256", TextOr(model, "sha256")});
  return Section("system", "Machine and command", t.Html() + "<h3>Command line</h3>\n<pre>" +
                                                      html::CommandLine(Get(report, "command")) + "</pre>\n");
}

}  // namespace

std::string TuneReportToHtml(const nlohmann::json& report) {
  const json& tune = Get(report, "tune");
  const std::string model = ModelName(report, tune);
  std::string page = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  page += "<title>hone tune: " + Esc(model.empty() ? std::string("unknown model") : model) + "</title>\n";
  page += std::string("<style>") + kStyle + "</style>\n</head>\n<body>\n";
  page += HeaderHtml(report, tune) + VerdictHtml(tune) + LoadsHtml(tune) + CurvesHtml(tune) + ParetoHtml(tune) +
          ProfileHtml(tune) + StagesHtml(tune) + RejectedHtml(tune) + SkippedHtml(tune) + RepositoryHtml(tune) +
          SystemHtml(report);
  return page + "</body>\n</html>\n";
}

}  // namespace hone::tune
