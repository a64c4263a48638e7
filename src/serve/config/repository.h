// The model repository on disk, Triton's layout:
//
//   <repository>/<model>/config.pbtxt            optional
//   <repository>/<model>/<version>/model.onnx    or config.default_model_filename; version: 1, 2, ...
//   <repository>/<model>/warmup/<file>           model_warmup input_data_file
//
// Pure scanning: nothing here loads a model or keeps state between calls. Directory entries whose names are not
// valid model names (hidden entries such as ".git", control characters) are skipped.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"
#include "client/model_config.pb.h"
#include "serve/config/config_validate.h"

namespace hone::serve {

inline constexpr std::string_view kConfigFileName = "config.pbtxt";
inline constexpr std::string_view kDefaultModelFileName = "model.onnx";
inline constexpr std::string_view kWarmupDirName = "warmup";

// The models in `repository`, sorted by name: directories that hold a config.pbtxt or at least one version
// directory. NotFound (naming the path) when the repository is missing or not a directory.
Result<std::vector<std::string>> ListModels(const std::string& repository);

// The version directories of `model_dir` (positive decimal integers without leading zeros: "1", "12"), ascending.
// Other entries ("0", "01", "v2", files) are ignored. NotFound when `model_dir` is missing.
Result<std::vector<int64_t>> ListVersions(const std::string& model_dir);

// "<repository>/<name>" after ValidateModelName(name) (InvalidArgument for a bad name, so a client's name can
// never leave the repository).
Result<std::string> ModelDirectory(const std::string& repository, const std::string& name);

// "<model_dir>/<version>/<default_model_filename, or model.onnx>".
std::string ModelFilePath(const std::string& model_dir, int64_t version, const inference::ModelConfig& config);

struct RepositoryModelConfig {
  inference::ModelConfig config;  // as written (empty without a config file); not completed
  bool has_config_file = false;
  ConfigSource source;            // where: the config file, or the model directory without one
};

// Reads <repository>/<name>/config.pbtxt when there is one and runs ValidateModelConfig on it (the name must match
// the directory), and checks that each output's label_filename exists in the model directory. NotFound when the
// model directory is missing; the parser's and validator's errors otherwise.
Result<RepositoryModelConfig> ReadRepositoryModelConfig(const std::string& repository, const std::string& name);

}  // namespace hone::serve
