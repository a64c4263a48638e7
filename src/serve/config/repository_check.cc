#include "serve/config/repository_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <system_error>
#include <vector>

#include "serve/config/model_name.h"
#include "serve/config/repository.h"

namespace hone::serve {
namespace fs = std::filesystem;

namespace {

// What the folder holds, sorted: model-like parts and the rest.
struct Contents {
  bool config = false;                 // config.pbtxt
  bool onnx = false;                   // model.onnx
  std::vector<std::string> versions;   // numbered folders
  std::vector<std::string> folders;    // other folders
  size_t files = 0;                    // other files
};

Contents Look(const fs::path& dir) {
  Contents c;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    std::error_code type_ec;
    if (it->is_directory(type_ec)) {
      (VersionFromDirectoryName(name) > 0 ? c.versions : c.folders).push_back(name);
    } else if (name == kConfigFileName) {
      c.config = true;
    } else if (name == kDefaultModelFileName) {
      c.onnx = true;
    } else {
      ++c.files;
    }
  }
  std::sort(c.versions.begin(), c.versions.end());
  std::sort(c.folders.begin(), c.folders.end());
  return c;
}

// "'a', 'b', 'c' and 2 more"
std::string Some(const std::vector<std::string>& names) {
  std::string out;
  const size_t shown = std::min<size_t>(names.size(), 3);
  for (size_t i = 0; i < shown; ++i) out += fmt::format("{}'{}'", i == 0 ? "" : ", ", names[i]);
  if (names.size() > shown) out += fmt::format(" and {} more", names.size() - shown);
  return out;
}

// The folder's parent as the user would type it ("." for a relative path with one part).
std::string ParentOf(const fs::path& dir) {
  fs::path p = dir.lexically_normal();
  if (!p.has_filename()) p = p.parent_path();  // "models/m/" -> "models/m"
  fs::path parent = p.parent_path();
  if (parent.empty()) return fs::absolute(p).parent_path().string();
  return parent.string();
}

// Why the folder holds no model, and the folder probably meant.
std::string Diagnose(const fs::path& dir) {
  const Contents c = Look(dir);
  if (c.config || !c.versions.empty()) {
    std::vector<std::string> has;
    if (c.config) has.push_back(std::string(kConfigFileName));
    if (!c.versions.empty())
      has.push_back(fmt::format("version folder{} {}", c.versions.size() > 1 ? "s" : "", Some(c.versions)));
    return fmt::format("it looks like a model's own folder (it has {}): did you mean its parent, '{}'?",
                       fmt::join(has, ", "), ParentOf(dir));
  }
  if (c.onnx) {
    fs::path p = dir.lexically_normal();
    if (!p.has_filename()) p = p.parent_path();  // "models/m/1/" -> "models/m/1"
    if (VersionFromDirectoryName(p.filename().string()) > 0)
      return fmt::format("it looks like a model's version folder (it has {}): did you mean '{}', two levels up?",
                         kDefaultModelFileName, ParentOf(ParentOf(dir)));
    return fmt::format("it has {} directly; a model's file goes in <repository>/<model>/1/{}",
                       kDefaultModelFileName, kDefaultModelFileName);
  }
  if (!c.folders.empty())
    return fmt::format("its folder{} {} hold{} no {} and no numbered version folder", c.folders.size() > 1 ? "s" : "",
                       Some(c.folders), c.folders.size() > 1 ? "" : "s", kConfigFileName);
  return c.files == 0 ? "it is empty" : "it holds files but no model folder";
}

}  // namespace

std::string RepositoryLayout() {
  return fmt::format("a model repository holds one folder per model: <repository>/<model>/{} (optional) and "
                     "<repository>/<model>/<version>/{}",
                     kConfigFileName, kDefaultModelFileName);
}

Status ExpectModels(const std::string& repository) {
  std::error_code ec;
  if (!fs::is_directory(repository, ec))
    return Status::NotFound(fmt::format("model repository '{}': {} ({})", repository,
                                        fs::exists(repository, ec) ? "not a directory" : "no such directory",
                                        RepositoryLayout()));
  HONE_ASSIGN_OR_RETURN(std::vector<std::string> models, ListModels(repository));
  if (!models.empty()) return Status::Ok();
  std::string why = Diagnose(repository);
  if (why.back() != '?') why += '.';
  std::string layout = RepositoryLayout();
  layout[0] = 'A';
  return Status::InvalidArgument(fmt::format("model repository '{}' holds no model: {} {}", repository, why, layout));
}

}  // namespace hone::serve
