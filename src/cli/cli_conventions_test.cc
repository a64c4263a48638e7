// The command line as an interface: version and help, suggestions for mistyped commands and flags, value options
// that never swallow the next flag, lists without empty items, and the report contract (`--json FILE|-`, one
// envelope, never written over an input).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "base/temp_dir_test_util.h"
#include "cli/run_hone_test_util.h"

namespace hone {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using test::ExpectUsage;
using test::ReadAll;
using test::RunResult;

const std::string kModel = std::string(HONE_SOURCE_DIR) + "/models/fashion_mnist/model.onnx";
const std::string kData = std::string(HONE_SOURCE_DIR) + "/models/fashion_mnist/test.npz";

class CliConventionsTest : public ::testing::Test {
 protected:
  std::string Path(const std::string& name) const { return dir_.File(name); }
  RunResult Hone(std::vector<std::string> args) { return test::RunHone(std::move(args), dir_.path(), 60); }
  // Nothing but the scratch files hone's runner writes.
  std::vector<std::string> FilesWritten() const {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(dir_.path()))
      if (e.path().filename().string()[0] != '.') names.push_back(e.path().filename().string());
    return names;
  }
  testing_util::TempDir dir_;
};

TEST_F(CliConventionsTest, VersionNamesHoneOnnxRuntimeAndTheCpu) {
  for (const char* form : {"--version", "version"}) {
    RunResult r = Hone({form});
    ASSERT_EQ(r.exit_code, 0) << r.Describe();
    EXPECT_THAT(r.out, AllOf(HasSubstr("hone 0."), HasSubstr("ONNX Runtime 1."), HasSubstr("CPU: "),
                             HasSubstr("features: ")));
  }
}

TEST_F(CliConventionsTest, HelpListsCommandsAndExplainsOne) {
  RunResult all = Hone({"help"});
  ASSERT_EQ(all.exit_code, 0) << all.Describe();
  EXPECT_THAT(all.out, AllOf(HasSubstr("bench"), HasSubstr("quantize"), HasSubstr("serve"), HasSubstr("Examples:")));
  RunResult bench = Hone({"help", "bench"});
  ASSERT_EQ(bench.exit_code, 0) << bench.Describe();
  EXPECT_THAT(bench.out, AllOf(HasSubstr("Usage: hone bench"), HasSubstr("--concurrency"), HasSubstr("Examples:")));
  // Every command's --help ends with examples.
  for (const char* c : {"info", "bench", "compare", "evaluate", "serve", "quantize", "prune", "convert"}) {
    RunResult r = Hone({c, "--help"});
    EXPECT_EQ(r.exit_code, 0) << c;
    EXPECT_THAT(r.out, HasSubstr("Examples:\n  hone " + std::string(c))) << c;
  }
  ExpectUsage(Hone({}), {"Subcommands:"});
}

TEST_F(CliConventionsTest, MistypedCommandsAndFlagsGetTheNearestName) {
  ExpectUsage(Hone({"bnech"}), {"unknown command 'bnech'", "did you mean 'bench'?"});
  ExpectUsage(Hone({"help", "quantise"}), {"unknown command 'quantise'", "did you mean 'quantize'?"});
  ExpectUsage(Hone({"xyzzy"}), {"unknown command 'xyzzy'", "'hone help'"});
  RunResult flag = Hone({"bench", kModel, "--concurency", "2"});
  ExpectUsage(flag, {"hone bench: unknown flag '--concurency'", "did you mean '--concurrency'?"});
  ExpectUsage(Hone({"evaluate", kModel, "--output", "logits"}),
              {"unknown flag '--output'", "did you mean '--output-name'?"});
}

TEST_F(CliConventionsTest, AValueOptionNeverSwallowsTheNextFlag) {
  ExpectUsage(Hone({"bench", kModel, "--json", "--quiet"}), {"--json needs a value", "'--quiet'"});
  ExpectUsage(Hone({"compare", kModel, kModel, "--atol", "-o"}), {"--atol needs a value"});
  EXPECT_TRUE(FilesWritten().empty());
  // Negative numbers and "-" are values.
  RunResult negative = Hone({"compare", kModel, kModel, "--range", "image:-1:1", "--json", "-"});
  EXPECT_EQ(negative.exit_code, 0) << negative.Describe();
}

TEST_F(CliConventionsTest, ShortOptionsTakeAttachedValuesAndBooleansTakeTritonsSpellings) {
  RunResult attached = Hone({"convert", kModel, "-o" + Path("h.onnx"), "--to", "fp16", "--no-verify"});
  EXPECT_EQ(attached.exit_code, 0) << attached.Describe();
  EXPECT_TRUE(std::filesystem::exists(Path("h.onnx")));
  // `--no-verify 1` is Triton's way of writing --no-verify=1.
  RunResult spelled = Hone({"convert", kModel, "-o", Path("h2.onnx"), "--to", "fp16", "--no-verify", "1"});
  EXPECT_EQ(spelled.exit_code, 0) << spelled.Describe();
}

TEST_F(CliConventionsTest, AListWithAnEmptyItemIsAnError) {
  ExpectUsage(Hone({"bench", kModel, "--concurrency", "1,,2"}), {"--concurrency '1,,2'", "empty item"});
  ExpectUsage(Hone({"bench", kModel, "--rate=100,"}), {"--rate '100,'", "empty item"});
}

TEST_F(CliConventionsTest, JsonToStandardOutputSendsTheTextToStandardError) {
  RunResult r = Hone({"info", kModel, "--json", "-"});
  ASSERT_EQ(r.exit_code, 0) << r.Describe();
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_EQ(j["report"], "info");
  EXPECT_THAT(r.err, HasSubstr("[batch, 1, 28, 28]"));  // the text report
  ExpectUsage(Hone({"bench", kModel, "--json", "-", "--csv", "-"}), {"--csv -", "already taken by --json"});
}

TEST_F(CliConventionsTest, AReportNeverReplacesAnInput) {
  ExpectUsage(Hone({"info", kModel, "--json", kModel}), {"is the input", kModel});
  ExpectUsage(Hone({"evaluate", kModel, "--data", kData, "--json", kData}), {"is the input", kData});
  // Nor a model or dataset it does not read, a folder, or two reports in one file.
  ExpectUsage(Hone({"info", kModel, "--json", Path("other.onnx")}), {"never written to a .onnx file"});
  ExpectUsage(Hone({"info", kModel, "--json", dir_.path().string()}), {"is a folder"});
  ExpectUsage(Hone({"bench", kModel, "--json", Path("r.txt"), "--csv", Path("r.txt")}),
              {"--csv", "is also --json's file"});
  // Saved outputs never replace the model they come from.
  ExpectUsage(Hone({"compare", kModel, kModel, "--save-outputs", kModel}), {"--save-outputs", "is the input"});
  EXPECT_TRUE(FilesWritten().empty());
  // A folder that is not there is said before any work, not after minutes of measuring.
  ExpectUsage(Hone({"bench", kModel, "--json", Path("missing/r.json")}), {"missing", "does not exist"});
}

TEST_F(CliConventionsTest, QuantizeReportsWhatChangedAndTheVerdict) {
  RunResult r = Hone({"quantize", kModel, "-o", Path("q.onnx"), "--mode", "dynamic", "--no-bench", "--json",
                      Path("q.json"), "--quiet"});
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.Describe();
  nlohmann::json body = test::ReadReport(Path("q.json"), "quantize");
  EXPECT_EQ(body["verdict"], r.exit_code == 0 ? "passed" : "failed");
  EXPECT_GT(body["transform"]["quantized_nodes"].get<int>(), 0);
  EXPECT_EQ(body["variant_model"]["sha256"].get<std::string>().size(), 64u);
  EXPECT_TRUE(body["verification"]["compare"]["outputs"].is_array());
  EXPECT_TRUE(body["verification"]["speed"].is_null());  // --no-bench

  // Nothing to quantize: no model written, the report says so.
  RunResult none = Hone({"quantize", kModel, "-o", Path("wo.onnx"), "--mode", "weight-only", "--json",
                         Path("wo.json")});
  EXPECT_EQ(none.exit_code, 1) << none.Describe();
  EXPECT_FALSE(std::filesystem::exists(Path("wo.onnx")));
  nlohmann::json nothing = test::ReadReport(Path("wo.json"), "quantize");
  EXPECT_EQ(nothing["verdict"], "nothing changed");
  EXPECT_TRUE(nothing["variant_model"].is_null());
}

TEST_F(CliConventionsTest, ConvertReportsWhatChangedAndTheVerdict) {
  RunResult r = Hone({"convert", kModel, "-o", Path("h.onnx"), "--to", "fp16", "--no-verify", "--json",
                      Path("h.json")});
  ASSERT_EQ(r.exit_code, 0) << r.Describe();
  nlohmann::json body = test::ReadReport(Path("h.json"), "convert");
  EXPECT_EQ(body["verdict"], "not verified");
  EXPECT_EQ(body["transform"]["target"], "fp16");
  EXPECT_GT(body["transform"]["converted_nodes"].get<int>(), 0);
  EXPECT_TRUE(body["verification"].is_null());
  EXPECT_EQ(body["variant_model"]["path"], Path("h.onnx"));
}

}  // namespace
}  // namespace hone
