#include "tune/report_html_parts.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "tune/svg_chart.h"

namespace hone::tune::html {
namespace {

const nlohmann::json kNull;
const nlohmann::json kEmptyArray = nlohmann::json::array();

// 5400 -> "5,400": throughputs and large latencies read better whole and grouped than as 5.4e+03.
std::string Grouped(double v) {
  const std::string digits = fmt::format("{:.0f}", std::abs(v));
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return (v < 0 && digits != "0" ? "-" : "") + out;
}

// Three significant digits below 1,000, whole and grouped above.
std::string Number(double v) { return std::abs(v) >= 1000 ? Grouped(v) : fmt::format("{:.3g}", v); }

}  // namespace

const nlohmann::json& Get(const nlohmann::json& j, std::string_view key) {
  if (!j.is_object()) return kNull;
  auto it = j.find(key);
  return it == j.end() ? kNull : *it;
}

const nlohmann::json& Items(const nlohmann::json& j, std::string_view key) {
  const nlohmann::json& v = Get(j, key);
  return v.is_array() ? v : kEmptyArray;
}

std::optional<double> Num(const nlohmann::json& j, std::string_view key) {
  const nlohmann::json& v = Get(j, key);
  if (!v.is_number()) return std::nullopt;
  const double d = v.get<double>();
  return std::isfinite(d) ? std::optional<double>(d) : std::nullopt;
}

std::optional<bool> Bool(const nlohmann::json& j, std::string_view key) {
  const nlohmann::json& v = Get(j, key);
  return v.is_boolean() ? std::optional<bool>(v.get<bool>()) : std::nullopt;
}

std::string Str(const nlohmann::json& j, std::string_view key) {
  const nlohmann::json& v = Get(j, key);
  return v.is_string() ? v.get<std::string>() : std::string();
}

std::string Esc(std::string_view text) { return XmlEscape(text); }

std::string NotMeasured() { return "<span class=\"na\">not measured</span>"; }

std::string TextOr(const nlohmann::json& j, std::string_view key) {
  const std::string s = Str(j, key);
  return s.empty() ? NotMeasured() : Esc(s);
}

std::string Scalar(const nlohmann::json& v) {
  if (v.is_null()) return NotMeasured();
  if (v.is_string()) return Esc(v.get<std::string>());
  if (v.is_number_float()) return Esc(Number(v.get<double>()));
  // The error handler keeps dump from throwing on a string that is not UTF-8 (a mangled file name).
  return Esc(v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

std::string Ms(std::optional<double> v) { return v ? Esc(Number(*v) + " ms") : NotMeasured(); }
std::string Sps(std::optional<double> v) { return v ? Esc(Number(*v) + " samples/s") : NotMeasured(); }
std::string Ratio(std::optional<double> v) { return v ? Esc(fmt::format("{:.2f}x", *v)) : NotMeasured(); }
std::string CostChange(std::optional<double> baseline, std::optional<double> final_cost) {
  if (!baseline || !final_cost || *baseline <= 0 || *final_cost <= 0) return NotMeasured();
  const double ratio = *baseline / *final_cost;
  // Rounded as printed: a ratio that prints as 1.00x is the same cost, whichever side of 1 it fell.
  if (std::abs(ratio - 1) < 0.005) return "the same cost";
  return ratio > 1 ? Esc(fmt::format("{:.2f}x cheaper", ratio)) : Esc(fmt::format("{:.2f}x dearer", 1 / ratio));
}
std::string Cost(std::optional<double> v) {
  if (!v) return NotMeasured();
  // Money reads in fixed point: two significant digits, "$0.000060" rather than "$6e-05", at least cents.
  const int decimals = *v > 0 ? std::clamp(1 - static_cast<int>(std::floor(std::log10(*v))), 2, 12) : 2;
  return Esc(fmt::format("${:.{}f}", *v, decimals));
}
std::string Percent(std::optional<double> s) { return s ? Esc(fmt::format("{:.1f}%", *s * 100)) : NotMeasured(); }
std::string Seconds(std::optional<double> v) { return v ? Esc(Number(*v) + " s") : NotMeasured(); }
std::string Plain(std::optional<double> v) { return v ? Esc(Number(*v)) : NotMeasured(); }

std::string YesNo(std::optional<bool> v, std::string_view yes, std::string_view no) {
  if (!v) return NotMeasured();
  return fmt::format("<span class=\"{}\">{}</span>", *v ? "ok" : "bad", Esc(*v ? yes : no));
}

HtmlTable::HtmlTable(std::vector<std::string> headers, std::string css_class)
    : headers_(std::move(headers)), css_class_(std::move(css_class)) {}

void HtmlTable::AddRow(std::vector<std::string> cells, std::string row_class) {
  std::string row = row_class.empty() ? "<tr>" : "<tr class=\"" + Esc(row_class) + "\">";
  for (const std::string& c : cells) row += "<td>" + c + "</td>";
  rows_.push_back(row + "</tr>\n");
}

std::string HtmlTable::Html(std::string_view when_empty) const {
  if (rows_.empty()) return std::string(when_empty);
  std::string s = css_class_.empty() ? "<table>" : "<table class=\"" + Esc(css_class_) + "\">";
  s += "<thead><tr>";
  for (const std::string& h : headers_) s += "<th>" + Esc(h) + "</th>";
  s += "</tr></thead><tbody>\n";
  for (const std::string& r : rows_) s += r;
  return s + "</tbody></table>\n";
}

std::string CommandLine(const nlohmann::json& argv) {
  if (!argv.is_array() || argv.empty()) return NotMeasured();
  std::string line;
  for (const nlohmann::json& a : argv) {
    const std::string arg = a.is_string() ? a.get<std::string>()
                                        : a.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    const bool plain = !arg.empty() && arg.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                             "0123456789_-+=/.,:@%") == std::string::npos;
    std::string quoted;
    if (plain) {
      quoted = arg;
    } else {
      quoted = "'";
      for (char c : arg) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
      quoted += "'";
    }
    line += (line.empty() ? "" : " ") + quoted;
  }
  return Esc(line);
}

// "1.12x (1.05-1.19x, 4 rounds)" from a paired ratio; "-" when not measured in pairs.
std::string Paired(const nlohmann::json& p) {
  if (!p.is_object()) return "<span class=\"na\">-</span>";
  const int rounds = static_cast<int>(Num(p, "rounds").value_or(0));
  if (rounds < 2) return Ratio(Num(p, "ratio")) + " (1 round)";
  return fmt::format("{} ({:.2f}-{:.2f}x, {} rounds)", Ratio(Num(p, "ratio")), Num(p, "low").value_or(0),
                     Num(p, "high").value_or(0), rounds);
}

// "p99 1.22 ms over 1,204 requests"
std::string P99Over(const nlohmann::json& load) {
  const auto requests = Num(load, "requests");
  if (!requests || *requests <= 0) return Ms(Num(load, "p99_ms"));
  return fmt::format("{} over {:.0f} requests", Ms(Num(load, "p99_ms")), *requests);
}


}  // namespace hone::tune::html
