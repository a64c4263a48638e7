// The arrows between hone's parts, enforced: every `#include "part/..."` under src/ is checked against one table of
// what each part may use (docs/architecture.md, "The arrows"). A part never includes a part above it, nor a sibling
// beside it; when two parts need the same thing, it moves down. A failure names the file, the line, the include and
// the rule, e.g. `src/bench/foo.cc:12 includes "serve/x.h": bench may not use serve (bench and serve meet only
// through client)`.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "base/test_paths.h"

namespace hone {
namespace {

namespace fs = std::filesystem;

// A part, its level (higher sits above: cli at the top, base at the bottom) and the parts it may use. serve's
// folders are parts of their own (http, grpc -> core -> config). Written once, in the order of the arrows:
// cli -> tune -> harness -> {bench, check, onnx, serve} -> {client, generate, process, report} -> runtime -> tensor
// -> base.
struct Rule {
  int level;
  std::set<std::string> uses;
};

const std::map<std::string, Rule>& Table() {
  static const std::map<std::string, Rule> table = [] {
    std::map<std::string, Rule> t;
    t["base"] = {0, {}};
    t["tensor"] = {1, {"base"}};
    t["runtime"] = {2, {"tensor", "base"}};
    // report names the ONNX Runtime it loaded; client needs only tensor; generate runs the tokenizer of process.
    t["report"] = {3, {"runtime", "tensor", "base"}};
    t["client"] = {3, {"tensor", "base"}};
    t["process"] = {3, {"tensor", "base"}};
    t["generate"] = {3, {"process", "runtime", "tensor", "base"}};
    // The parts that write reports sit above report; bench and serve meet only through client.
    t["onnx"] = {4, {"report", "runtime", "tensor", "base"}};
    t["check"] = {4, {"report", "runtime", "tensor", "base"}};
    t["bench"] = {4, {"client", "process", "report", "runtime", "tensor", "base"}};
    t["serve/config"] = {4, {"client", "process", "report", "runtime", "tensor", "base"}};
    t["serve/core"] = {5, {"serve/config", "client", "generate", "process", "report", "runtime", "tensor", "base"}};
    const std::set<std::string> front_end = {"serve/core", "serve/config", "client", "generate", "process",
                                             "report",     "runtime",      "tensor", "base"};
    t["serve/http"] = {6, front_end};
    t["serve/grpc"] = {6, front_end};
    std::set<std::string> harness = {"bench", "check", "onnx", "serve/http", "serve/grpc"};
    harness.insert(front_end.begin(), front_end.end());
    t["harness"] = {7, harness};
    std::set<std::string> tune = harness;
    tune.insert("harness");
    t["tune"] = {8, tune};
    std::set<std::string> cli = tune;
    cli.insert("tune");
    t["cli"] = {9, cli};
    return t;
  }();
  return table;
}

// The part a path under src/ (or an include) belongs to: its first folder, or serve/<folder>.
std::string PartOf(const std::string& path) {
  const size_t slash = path.find('/');
  if (slash == std::string::npos) return "";
  std::string top = path.substr(0, slash);
  if (top != "serve") return top;
  const size_t second = path.find('/', slash + 1);
  return second == std::string::npos ? top : path.substr(0, second);
}

bool InServe(const std::string& part) { return part.rfind("serve", 0) == 0; }

// How a message names a part: serve's folders as "serve" unless both sides are in serve.
std::string Name(const std::string& part, const std::string& other) {
  if (InServe(part) && !InServe(other)) return "serve";
  return part;
}

// The rule an include breaks, in words.
std::string Why(const std::string& from, const std::string& to) {
  if ((from == "bench" && InServe(to)) || (InServe(from) && to == "bench"))
    return "bench and serve meet only through client";
  if (from == "check" && to == "onnx")
    return "check's tests build models through the ONNX protobuf schema, not the onnx part beside it";
  const Rule& a = Table().at(from);
  const Rule& b = Table().at(to);
  if (b.level > a.level) return to + " sits above " + from + ": the arrows point one way";
  return "a part does not use one beside it or one it does not need; what both need moves down";
}

// One violation a line, or "" when the include is allowed (or is not one of hone's parts).
std::string Check(const std::string& file, int line, const std::string& include, const fs::path& src) {
  const std::string from = PartOf(file);
  const std::string to = PartOf(include);
  const auto& table = Table();
  if (!table.count(to)) return "";  // a system header (<onnx/onnx_pb.h> as "onnx/onnx_pb.h") or none of ours
  // An include named like one of ours must be one of ours: a file under src/, or code generated from a .proto.
  fs::path target = src / include;
  const std::string stem = target.filename().string();
  const bool generated = stem.size() > 5 && stem.find(".pb.h") != std::string::npos &&
                         fs::exists(target.parent_path() / (stem.substr(0, stem.find('.')) + ".proto"));
  if (!fs::exists(target) && !generated) return "";
  if (!table.count(from)) return "src/" + file + ": part '" + from + "' is missing from the layering table";
  if (from == to || table.at(from).uses.count(to)) return "";
  return "src/" + file + ":" + std::to_string(line) + " includes \"" + include + "\": " + Name(from, to) +
         " may not use " + Name(to, from) + " (" + Why(from, to) + ")";
}

std::vector<std::string> Violations(const fs::path& src) {
  static const std::regex kInclude(R"re(^\s*#\s*include\s+"([^"]+)")re");
  std::vector<std::string> found;
  for (const auto& entry : fs::recursive_directory_iterator(src)) {
    const std::string ext = entry.path().extension().string();
    if (!entry.is_regular_file() || (ext != ".h" && ext != ".cc")) continue;
    const std::string file = fs::relative(entry.path(), src).generic_string();
    if (file.find('/') == std::string::npos) continue;
    std::ifstream in(entry.path());
    std::string text;
    int line = 0;
    std::smatch m;
    while (std::getline(in, text)) {
      ++line;
      if (!std::regex_search(text, m, kInclude)) continue;
      std::string v = Check(file, line, m[1].str(), src);
      if (!v.empty()) found.push_back(v);
    }
  }
  std::sort(found.begin(), found.end());
  return found;
}

fs::path Src() { return fs::path(HONE_SOURCE_DIR) / "src"; }

TEST(LayeringTest, EveryIncludeFollowsTheArrows) {
  const std::vector<std::string> violations = Violations(Src());
  std::string all;
  for (const std::string& v : violations) all += v + "\n";
  EXPECT_TRUE(violations.empty()) << violations.size() << " include(s) break the layering:\n" << all;
}

TEST(LayeringTest, EveryPartIsInTheTable) {
  for (const auto& entry : fs::directory_iterator(Src())) {
    if (!entry.is_directory()) continue;
    const std::string part = entry.path().filename().string();
    if (part == "serve") {
      for (const auto& sub : fs::directory_iterator(entry.path()))
        if (sub.is_directory()) EXPECT_TRUE(Table().count("serve/" + sub.path().filename().string()))
            << "serve/" << sub.path().filename().string() << " is missing from the layering table";
      continue;
    }
    EXPECT_TRUE(Table().count(part)) << part << " is missing from the layering table";
  }
}

TEST(LayeringTest, TheMessageNamesFileLineIncludeAndRule) {
  const fs::path src = Src();
  EXPECT_EQ(Check("bench/bench_runner.cc", 12, "serve/core/server.h", src),
            "src/bench/bench_runner.cc:12 includes \"serve/core/server.h\": bench may not use serve (bench and serve "
            "meet only through client)");
  EXPECT_EQ(Check("harness/served_model.h", 3, "tune/trial.h", src),
            "src/harness/served_model.h:3 includes \"tune/trial.h\": harness may not use tune (tune sits above "
            "harness: the arrows point one way)");
  EXPECT_EQ(Check("tune/trial.cc", 1, "harness/served_model.h", src), "");
  EXPECT_EQ(Check("check/test_models.h", 10, "onnx/onnx_pb.h", src), "");  // libonnx's header, not the part
}

}  // namespace
}  // namespace hone
