// hone info MODEL: what the model is, from its ONNX graph (no session is created).
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "onnx/model_info.h"
#include "onnx/model_info_format.h"

namespace hone::cli {

Command AddInfoCommand(CLI::App& app) {
  struct Flags {
    std::string model;
    bool json = false;
  };
  auto flags = std::make_shared<Flags>();
  CLI::App* sub = app.add_subcommand("info", "describe a model: inputs, outputs, opsets, operators, parameters");
  sub->add_option("model", flags->model, "the .onnx file")->required();
  sub->add_flag("--json", flags->json, "print JSON instead of text");
  return [flags] {
    auto info = onnx::ReadModelInfo(flags->model);
    if (!info.ok()) {
      std::cerr << "hone info: " << info.status().message() << "\n";
      return kExitUsage;
    }
    if (flags->json)
      std::cout << onnx::ModelInfoToJson(*info).dump(2) << "\n";
    else
      std::cout << onnx::ModelInfoToText(*info);
    return kExitOk;
  };
}

}  // namespace hone::cli
