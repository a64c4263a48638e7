#include "serve/config/repository.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "serve/config/config_text.h"
#include "serve/config/model_name.h"

namespace hone::serve {
namespace fs = std::filesystem;

namespace {

bool IsDirectory(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}

bool IsRegularFile(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

// The names of the entries of `dir`, or NotFound naming it.
Result<std::vector<std::string>> EntryNames(const std::string& dir, std::string_view what) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return Status::NotFound(std::string(what) + " '" + dir + "': " + (ec ? ec.message() : "not a directory"));
  std::vector<std::string> names;
  fs::directory_iterator it(dir, ec), end;
  if (ec) return Status::NotFound(std::string(what) + " '" + dir + "': " + ec.message());
  for (; it != end; it.increment(ec)) {
    if (ec) return Status::NotFound(std::string(what) + " '" + dir + "': " + ec.message());
    names.push_back(it->path().filename().string());
  }
  return names;
}

bool HasVersionDirectory(const fs::path& model_dir) {
  auto names = EntryNames(model_dir.string(), "model directory");
  if (!names.ok()) return false;
  for (const std::string& n : *names)
    if (VersionFromDirectoryName(n) > 0 && IsDirectory(model_dir / n)) return true;
  return false;
}

}  // namespace

Result<std::vector<std::string>> ListModels(const std::string& repository) {
  HONE_ASSIGN_OR_RETURN(std::vector<std::string> names, EntryNames(repository, "model repository"));
  std::vector<std::string> models;
  for (const std::string& name : names) {
    if (!ValidateModelName(name).ok()) continue;
    fs::path dir = fs::path(repository) / name;
    if (!IsDirectory(dir)) continue;
    if (IsRegularFile(dir / kConfigFileName) || HasVersionDirectory(dir)) models.push_back(name);
  }
  std::sort(models.begin(), models.end());
  return models;
}

Result<std::vector<int64_t>> ListVersions(const std::string& model_dir) {
  HONE_ASSIGN_OR_RETURN(std::vector<std::string> names, EntryNames(model_dir, "model directory"));
  std::vector<int64_t> versions;
  for (const std::string& name : names) {
    int64_t v = VersionFromDirectoryName(name);
    if (v > 0 && IsDirectory(fs::path(model_dir) / name)) versions.push_back(v);
  }
  std::sort(versions.begin(), versions.end());
  return versions;
}

Result<std::string> ModelDirectory(const std::string& repository, const std::string& name) {
  HONE_RETURN_IF_ERROR(ValidateModelName(name));
  return (fs::path(repository) / name).string();
}

std::string ModelFilePath(const std::string& model_dir, int64_t version, const inference::ModelConfig& config) {
  const std::string file =
      config.default_model_filename().empty() ? std::string(kDefaultModelFileName) : config.default_model_filename();
  return (fs::path(model_dir) / std::to_string(version) / file).string();
}

Result<RepositoryModelConfig> ReadRepositoryModelConfig(const std::string& repository, const std::string& name) {
  HONE_ASSIGN_OR_RETURN(std::string model_dir, ModelDirectory(repository, name));
  if (!IsDirectory(model_dir)) return Status::NotFound("model '" + name + "': no directory '" + model_dir + "'");
  RepositoryModelConfig result;
  const std::string config_path = (fs::path(model_dir) / kConfigFileName).string();
  result.has_config_file = IsRegularFile(config_path);
  result.source = {result.has_config_file ? config_path : model_dir, name};
  if (result.has_config_file) {
    HONE_ASSIGN_OR_RETURN(result.config, ReadModelConfig(config_path));
  }
  HONE_RETURN_IF_ERROR(ValidateModelConfig(result.config, result.source));
  for (const auto& out : result.config.output()) {
    if (out.label_filename().empty()) continue;
    if (!IsRegularFile(fs::path(model_dir) / out.label_filename()))
      return Status::NotFound(result.source.where + ": output '" + out.name() + "': label_filename '" +
                              out.label_filename() + "' not found in '" + model_dir + "'");
  }
  return result;
}

}  // namespace hone::serve
