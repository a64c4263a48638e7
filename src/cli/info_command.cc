// hone info MODEL: what the model is, from its ONNX graph (no session is created).
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/report_output.h"
#include "onnx/model_info.h"
#include "onnx/model_info_format.h"
#include "onnx/model_json.h"

namespace hone::cli {

Command AddInfoCommand(CLI::App& app) {
  struct Flags {
    std::string model;
    std::string json_path;
  };
  auto flags = std::make_shared<Flags>();
  CLI::App* sub = app.add_subcommand("info", "describe a model: inputs, outputs, opsets, operators, parameters");
  sub->add_option("model", flags->model, "the .onnx file")->required();
  sub->add_option("--json", flags->json_path,
                  "write the report as JSON to FILE (-: standard output, the text report then going to standard "
                  "error)");
  sub->footer("Examples:\n"
              "  hone info models/fashion_mnist/model.onnx\n"
              "  hone info models/fashion_mnist/model.onnx --json - | jq .model.inputs");
  return [flags] {
    auto fail = [](const Status& s) {
      std::cerr << "hone info: " << s.message() << "\n";
      return kExitUsage;
    };
    if (Status s = RouteReports({{"--json", flags->json_path}}, {flags->model}); !s.ok()) return fail(s);
    auto info = onnx::ReadModelInfo(flags->model);
    if (!info.ok()) return fail(info.status());
    std::cout << onnx::ModelInfoToText(*info);
    if (!flags->json_path.empty()) {
      Result<nlohmann::json> model = onnx::ModelFileJson(flags->model);
      Status s = model.ok() ? WriteJsonReport(flags->json_path, "info", *model, onnx::ModelInfoToJson(*info))
                            : model.status();
      if (!s.ok()) return fail(s);
    }
    return kExitOk;
  };
}

}  // namespace hone::cli
