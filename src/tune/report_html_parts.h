// The pieces report_html.cc builds the `hone tune` page from: reading a report that may be partial without ever
// throwing (a tune stopped by Ctrl-C writes what it had, so any field may be absent, null or of another type), and
// turning figures into escaped HTML with their units. Every function here returns HTML that is safe to paste.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace hone::tune::html {

// j[key] when j is an object holding key, else a null value. Never throws, whatever j is.
const nlohmann::json& Get(const nlohmann::json& j, std::string_view key);
// j[key] when it is an array, else an empty array.
const nlohmann::json& Items(const nlohmann::json& j, std::string_view key);
// j[key] when it is a finite number.
std::optional<double> Num(const nlohmann::json& j, std::string_view key);
// j[key] when it is a boolean.
std::optional<bool> Bool(const nlohmann::json& j, std::string_view key);
// j[key] when it is a string, else "" (a number is not turned into text here: see Scalar).
std::string Str(const nlohmann::json& j, std::string_view key);

// Escaped text.
std::string Esc(std::string_view text);
// The marker of a figure the report lacks.
std::string NotMeasured();
// Escaped j[key] when it is a non-empty string, else NotMeasured().
std::string TextOr(const nlohmann::json& j, std::string_view key);
// Any JSON value as short escaped text: a string as is, a number as written, null as NotMeasured(), an object or
// array as compact JSON.
std::string Scalar(const nlohmann::json& v);

// Figures with their unit, NotMeasured() when absent: "2.1 ms", "5,400 samples/s", "3.40x", "$0.0002", "71.0%",
// "41.2 s", "0.891".
std::string Ms(std::optional<double> v);
std::string Sps(std::optional<double> v);
std::string Ratio(std::optional<double> v);
std::string Cost(std::optional<double> v);
// The final's cost against the baseline's in words that match the direction: "3.33x cheaper", "1.04x dearer",
// "the same cost" (within 0.5%); NotMeasured() when either is absent or not positive.
std::string CostChange(std::optional<double> baseline, std::optional<double> final_cost);
std::string Percent(std::optional<double> share);  // share in [0, 1]
std::string Seconds(std::optional<double> v);
std::string Plain(std::optional<double> v);
// "yes"/"no" with a colour class, NotMeasured() when absent.
std::string YesNo(std::optional<bool> v, std::string_view yes = "yes", std::string_view no = "no");

// A table: headers as text (escaped here), cells as HTML (the caller's).
class HtmlTable {
 public:
  explicit HtmlTable(std::vector<std::string> headers, std::string css_class = "");
  void AddRow(std::vector<std::string> cells, std::string row_class = "");
  bool empty() const { return rows_.empty(); }
  // The table, or `when_empty` (HTML) when it has no rows.
  std::string Html(std::string_view when_empty = "<p class=\"na\">none</p>") const;

 private:
  std::vector<std::string> headers_;
  std::string css_class_;
  std::vector<std::string> rows_;  // each a finished <tr>
};

// argv as one shell line, each argument quoted when the shell would otherwise split or interpret it; escaped.
std::string CommandLine(const nlohmann::json& argv);

// A paired ratio as report.json writes it ({ratio, low, high, rounds}): "1.12x (1.05-1.19x, 4 rounds)"; a dash
// when it is null (not measured in pairs).
std::string Paired(const nlohmann::json& paired);
// A load's p99 with the requests it rests on: "3 ms over 1204 requests" (just the p99 without the count).
std::string P99Over(const nlohmann::json& load);

}  // namespace hone::tune::html
