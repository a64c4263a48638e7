#include "tune/report_html.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/test_paths.h"
#include "tune/report_html_parts.h"
#include "tune/svg_chart.h"

namespace hone::tune {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using json = nlohmann::json;

const char* const kSections[] = {"verdict", "loads",    "curves",  "pareto",     "profile",
                                 "stages",  "rejected", "skipped", "repository", "system"};

json Fixture() {
  std::ifstream in(std::string(HONE_SOURCE_DIR) + "/src/tune/testdata/tune_report_fixture.json");
  std::stringstream text;
  text << in.rdbuf();
  json j = json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  EXPECT_TRUE(j.is_object()) << "cannot read the fixture";
  return j;
}

// Every section, in the page's order.
void ExpectEverySection(const std::string& html) {
  size_t last = 0;
  for (const char* id : kSections) {
    const size_t at = html.find(std::string("<section id=\"") + id + "\">");
    ASSERT_NE(at, std::string::npos) << "no section " << id;
    EXPECT_GT(at, last) << id << " is out of order";
    last = at;
  }
}

// A URL is allowed only as text the page shows: never inside a tag (src, href, xmlns, style url()).
void ExpectNoUrlOutsideText(const std::string& html) {
  for (const char* scheme : {"http://", "https://"}) {
    for (size_t at = html.find(scheme); at != std::string::npos; at = html.find(scheme, at + 1)) {
      const size_t open = html.rfind('<', at), close = html.rfind('>', at);
      EXPECT_TRUE(open == std::string::npos || (close != std::string::npos && close > open))
          << "a URL inside a tag: " << html.substr(open, at - open + 40);
    }
  }
  // Nothing the browser would fetch: no such element, no such attribute in any tag, no url() in the style.
  for (const char* element : {"<script", "<link", "<img", "<iframe", "<object", "<embed"})
    EXPECT_THAT(html, Not(HasSubstr(element)));
  for (size_t open = html.find('<'); open != std::string::npos; open = html.find('<', open + 1)) {
    const std::string tag = html.substr(open, html.find('>', open) - open);
    for (const char* attribute : {" src=", " href=", " xmlns", "url(", " style="})
      EXPECT_THAT(tag, Not(HasSubstr(attribute)));
  }
  const size_t style = html.find("<style>");
  ASSERT_NE(style, std::string::npos);
  const std::string css = html.substr(style, html.find("</style>") - style);
  EXPECT_THAT(css, Not(HasSubstr("url(")));
  EXPECT_THAT(css, Not(HasSubstr("@import")));
}

TEST(TuneReportToHtmlTest, TheFixtureHasEverySectionAndWritesItsPage) {
  const std::string html = TuneReportToHtml(Fixture());
  ExpectEverySection(html);
  ExpectNoUrlOutsideText(html);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_THAT(html, HasSubstr("<title>hone tune: models/fashion_mnist/model.onnx</title>"));
  EXPECT_THAT(html, HasSubstr("2026-12-03T17:32:31Z"));
  // The page the pytest renders in Chromium (tests/python/test_tune_report_html.py).
  const std::filesystem::path dir = std::filesystem::path(HONE_BINARY_DIR) / "test-reports";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "tune_report_fixture.html") << html;
  EXPECT_TRUE(std::filesystem::file_size(dir / "tune_report_fixture.html") == html.size());
}

TEST(TuneReportToHtmlTest, TheVerdictComesFirstWithItsFigures) {
  const std::string html = TuneReportToHtml(Fixture());
  EXPECT_LT(html.find("class=\"verdict met\""), html.find("<section id=\"loads\">"));
  EXPECT_THAT(html, HasSubstr("SLO met"));
  EXPECT_THAT(html, HasSubstr("every SLO and gate met: p99 2.1 ms at concurrency 8"));
  EXPECT_THAT(html, HasSubstr("<td>p99&lt;=5ms@concurrency=8</td><td>2.1 ms</td><td>5 ms</td><td>58% headroom</td>"
                              "<td>5,400 samples/s</td>"));
  EXPECT_THAT(html, HasSubstr("<td>accuracy_drop&lt;=0.01</td><td>0.002</td>"));
  EXPECT_THAT(html, HasSubstr("<td>$0.00020</td><td>$0.000060</td><td>3.33x cheaper</td>"));
  EXPECT_THAT(html, HasSubstr("<td>3.40x</td>"));
  EXPECT_THAT(html, HasSubstr("int8-dynamic+batch32"));
}

// The word follows the direction: a final that costs more than the baseline is dearer, never "0.96x cheaper".
TEST(TuneReportToHtmlTest, CostChangeSaysCheaperOrDearer) {
  EXPECT_EQ(html::CostChange(0.00020, 0.000060), "3.33x cheaper");
  EXPECT_EQ(html::CostChange(0.000100, 0.000104), "1.04x dearer");
  EXPECT_EQ(html::CostChange(0.000100, 0.0001004), "the same cost");
  EXPECT_EQ(html::CostChange(std::nullopt, 0.0001), html::NotMeasured());
  EXPECT_EQ(html::CostChange(0.0001, 0.0), html::NotMeasured());
}

TEST(TuneReportToHtmlTest, AFinalThatCostsMoreIsDearerInTheReport) {
  json report = Fixture();
  report["tune"]["verdict"]["final_cost_per_1000"] = 0.000208;  // the baseline's is 0.00020
  EXPECT_THAT(TuneReportToHtml(report), HasSubstr("<td>$0.00020</td><td>$0.00021</td><td>1.04x dearer</td>"));
  EXPECT_THAT(TuneReportToHtml(report), Not(HasSubstr("cheaper")));
}

TEST(TuneReportToHtmlTest, ANotMetVerdictIsRedAndListsTheMisses) {
  json report = Fixture();
  report["tune"]["verdict"]["met"] = false;
  report["tune"]["verdict"]["exit_code"] = 1;
  report["tune"]["verdict"]["slo_results"][0]["met"] = false;
  report["tune"]["verdict"]["slo_results"][0]["margin"] = -0.18;
  report["tune"]["verdict"]["misses"] = {"p99 5.9 ms > 5 ms at concurrency 8"};
  const std::string html = TuneReportToHtml(report);
  EXPECT_THAT(html, HasSubstr("class=\"verdict notmet\""));
  EXPECT_THAT(html, HasSubstr("SLO not met"));
  EXPECT_THAT(html, HasSubstr("18% over the bound"));
  EXPECT_THAT(html, HasSubstr("<li>p99 5.9 ms &gt; 5 ms at concurrency 8</li>"));
}

TEST(TuneReportToHtmlTest, EveryStageWithItsDeltasAndTrials) {
  const json report = Fixture();
  const std::string html = TuneReportToHtml(report);
  const std::string stages = html.substr(html.find("<section id=\"stages\">"));
  for (const json& s : report["tune"]["stages"]) {
    EXPECT_THAT(stages, HasSubstr("<td>" + s["name"].get<std::string>() + "</td>"));
    EXPECT_THAT(stages, HasSubstr(s["reason"].get<std::string>()));
  }
  // Which signal decided, in how many paired rounds; a stage that does not say shows a dash, never a blank.
  EXPECT_THAT(stages, HasSubstr("<td>batch32-delay0</td><td>throughput</td><td>4</td><td>2.10x</td><td>2.10x</td>"
                                "<td>41.2 s</td>"));
  EXPECT_THAT(stages, HasSubstr("<td>int8-dynamic+batch32</td><td><span class=\"na\">-</span></td><td><span "
                                "class=\"na\">-</span></td><td>3.40x</td><td>1.60x</td>"));
  // A trial's p99 with the requests it rests on, its CPU per sample and its paired ratios with their intervals.
  EXPECT_THAT(stages, HasSubstr("over 1204 requests"));
  EXPECT_THAT(stages, HasSubstr("118.4 us"));
  EXPECT_THAT(stages, HasSubstr("2.10x (1.90-2.30x, 4 rounds)"));
  EXPECT_THAT(stages, HasSubstr("<span class=\"ok\">improved</span>"));
  EXPECT_THAT(stages, HasSubstr("<td>graph</td><td>no gain</td><td><span class=\"na\">none</span></td><td><span "
                                "class=\"na\">-</span></td><td><span class=\"na\">-</span></td><td><span "
                                "class=\"na\">no change</span></td>"));
  size_t details = 0;
  for (size_t at = stages.find("<details>"); at != std::string::npos; at = stages.find("<details>", at + 1)) ++details;
  EXPECT_EQ(details, report["tune"]["stages"].size());
  EXPECT_THAT(stages, HasSubstr("max_batch_size=32, max_queue_delay_us=500"));
  EXPECT_THAT(stages, HasSubstr("<tr class=\"chosen\"><td>batch32-delay0</td>"));
  EXPECT_THAT(stages, HasSubstr("<td>accuracy 0.889</td>"));
}

TEST(TuneReportToHtmlTest, EveryRejectedCandidateWithItsReason) {
  const json report = Fixture();
  const std::string html = TuneReportToHtml(report);
  const std::string rejected = html.substr(html.find("<section id=\"rejected\">"));
  for (const json& r : report["tune"]["rejected"]) {
    EXPECT_THAT(rejected, HasSubstr("<td>" + XmlEscape(r["candidate"].get<std::string>()) + "</td><td>" +
                                    XmlEscape(r["stage"].get<std::string>()) + "</td><td>" +
                                    XmlEscape(r["reason"].get<std::string>())));
  }
  EXPECT_THAT(html, HasSubstr("budget: 12 s left, needs ~40 s"));
}

TEST(TuneReportToHtmlTest, ChartsProfileRepositoryAndMachine) {
  const std::string html = TuneReportToHtml(Fixture());
  EXPECT_EQ(html.find("<svg", html.find("<section id=\"curves\">")) < html.find("<section id=\"pareto\">"), true);
  EXPECT_THAT(html, HasSubstr(">SLO: p99&lt;=5ms@concurrency=8</text>"));
  EXPECT_THAT(html, HasSubstr("Not plotted (no throughput or quality figure): fp16+batch32"));
  EXPECT_THAT(html, HasSubstr("Conv takes 71% of the kernel time"));
  EXPECT_THAT(html, HasSubstr("71.0% · 30.1 us/run · 2 nodes"));
  EXPECT_THAT(html, HasSubstr("<td>server: inference</td><td>40.0 us</td><td>32.8%</td>"));
  EXPECT_THAT(html, HasSubstr("<pre>hone serve --model-repository out/fashion/repository</pre>"));
  EXPECT_THAT(html, HasSubstr("name: &quot;fashion&quot;\nbackend"));
  EXPECT_THAT(html, HasSubstr("<td>ONNX Runtime</td><td>1.30.0</td>"));
  EXPECT_THAT(html, HasSubstr("sse4_2 avx avx2 fma avx512f avx512_vnni"));
  // The SLO argument holds shell syntax: quoted as a user would type it, then escaped.
  EXPECT_THAT(html, HasSubstr("--slo &#39;p99&lt;=5ms@concurrency=8&#39; --gate"));
}

TEST(TuneReportToHtmlTest, EscapesEveryStringFromTheReport) {
  json report = Fixture();
  report["model"]["path"] = "/tmp/<script>alert('x')</script>.onnx";
  report["tune"]["stages"][2]["reason"] = "<b>bold</b> & \"quoted\"";
  report["tune"]["rejected"][0]["candidate"] = "<img src=x onerror=alert(1)>";
  report["tune"]["pareto"][0]["candidate"] = "</svg><script>";
  report["tune"]["profile"]["op_types"][0]["op_type"] = "<Conv>";
  report["tune"]["skipped"][0]["reason"] = "see https://example.com/why for details";
  report["command"][2] = "<script>";
  const std::string html = TuneReportToHtml(report);
  EXPECT_THAT(html, Not(HasSubstr("<script")));
  EXPECT_THAT(html, Not(HasSubstr("<b>bold")));
  EXPECT_THAT(html, Not(HasSubstr("<img")));
  EXPECT_THAT(html, Not(HasSubstr("<Conv>")));
  EXPECT_THAT(html, HasSubstr("/tmp/&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;.onnx"));
  EXPECT_THAT(html, HasSubstr("&lt;b&gt;bold&lt;/b&gt; &amp; &quot;quoted&quot;"));
  EXPECT_THAT(html, HasSubstr("see https://example.com/why for details"));
  ExpectNoUrlOutsideText(html);
  ExpectEverySection(html);
}

TEST(TuneReportToHtmlTest, AnInterruptedRunShowsWhatItHas) {
  json report = Fixture();
  json& tune = report["tune"];
  tune["interrupted"] = true;
  for (const char* gone : {"verdict", "final", "curves", "pareto", "repository", "reproduce"}) tune.erase(gone);
  json first_stages = json::array();  // the run stopped during the batching stage
  for (size_t i = 0; i < 3; ++i) first_stages.push_back(tune["stages"][i]);
  tune["stages"] = first_stages;
  report.erase("finished_at");
  const std::string html = TuneReportToHtml(report);
  ExpectEverySection(html);
  EXPECT_THAT(html, HasSubstr("Interrupted: this report holds what finished"));
  EXPECT_THAT(html, HasSubstr("Verdict not measured"));
  EXPECT_THAT(html, HasSubstr("not measured"));
  // The objective still says what was asked for.
  EXPECT_THAT(html, HasSubstr("<td>p99&lt;=5ms@concurrency=8</td><td><span class=\"na\">not measured</span></td>"
                              "<td>5 ms</td>"));
  EXPECT_THAT(html, HasSubstr("no data"));
}

// Every field of the fixture in turn null, of the wrong type, or absent: a page, never an exception.
void VisitAndBreak(json& root, json& node, int& pages) {
  auto render = [&] {
    std::string html;
    EXPECT_NO_THROW(html = TuneReportToHtml(root));
    ++pages;
    ASSERT_THAT(html, HasSubstr("<section id=\"system\">"));
  };
  if (node.is_object()) {
    for (auto& [key, value] : node.items()) {
      const json saved = value;
      for (const json& replacement : {json(), json("text"), json(-7.5), json::array(), json::object(), json(true)}) {
        value = replacement;
        render();
      }
      value = saved;
      VisitAndBreak(root, value, pages);
    }
  } else if (node.is_array() && !node.empty()) {
    const json saved = node[0];
    node[0] = json();
    render();
    node[0] = saved;
    VisitAndBreak(root, node[0], pages);
  }
}

TEST(TuneReportToHtmlTest, NoFieldCanMakeItThrow) {
  json report = Fixture();
  int pages = 0;
  VisitAndBreak(report, report, pages);
  EXPECT_GT(pages, 500);
  for (const json& whole : {json(), json::object(), json::array(), json("tune"), json(3), json{{"tune", nullptr}},
                            json{{"tune", "x"}}, json{{"tune", json::object()}}}) {
    std::string html;
    EXPECT_NO_THROW(html = TuneReportToHtml(whole)) << whole.dump();
    ExpectEverySection(html);
    EXPECT_THAT(html, HasSubstr("hone tune: unknown model"));
  }
}

TEST(TuneReportToHtmlTest, NoCostWhenNoPriceWasGiven) {
  json report = Fixture();
  report["tune"]["objective"]["cost_per_hour"] = nullptr;
  report["tune"]["verdict"]["baseline_cost_per_1000"] = nullptr;
  report["tune"]["verdict"]["final_cost_per_1000"] = nullptr;
  const std::string html = TuneReportToHtml(report);
  EXPECT_THAT(html, HasSubstr("No --cost-per-hour was given: cost is not measured."));
  EXPECT_THAT(html, HasSubstr("<td>cost per 1,000 predictions</td><td><span class=\"na\">not measured</span>"));
}

}  // namespace
}  // namespace hone::tune
