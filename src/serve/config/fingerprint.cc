#include "serve/config/fingerprint.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "serve/config/model_name.h"
#include "serve/config/repository.h"

namespace hone::serve {
namespace fs = std::filesystem;

namespace {

// Adds `entry` to `out` when it is still there.
void Stamp(const fs::path& root, const fs::directory_entry& entry, std::vector<FileStamp>* out) {
  std::error_code ec;
  fs::file_status st = entry.status(ec);
  if (ec) return;
  FileStamp stamp;
  stamp.path = fs::relative(entry.path(), root, ec).generic_string();
  if (ec) return;
  if (fs::is_regular_file(st)) {
    stamp.size = entry.file_size(ec);
    if (ec) return;
  } else if (fs::is_directory(st)) {
    out->push_back(std::move(stamp));  // presence only: a directory's time changes with editors' temporary files
    return;
  } else {
    return;  // sockets, fifos, dangling links: nothing a load reads
  }
  auto mtime = entry.last_write_time(ec);
  if (ec) return;
  stamp.mtime_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(mtime.time_since_epoch()).count();
  out->push_back(std::move(stamp));
}

// Everything under `dir`, recursively.
void StampTree(const fs::path& root, const fs::path& dir, std::vector<FileStamp>* out) {
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
  for (; !ec && it != end; it.increment(ec)) Stamp(root, *it, out);
}

}  // namespace

std::string ModelFingerprint::ToString() const {
  std::string s;
  for (const FileStamp& f : files)
    s += f.path + " " + std::to_string(f.size) + " " + std::to_string(f.mtime_ns) + "\n";
  return s;
}

Result<ModelFingerprint> FingerprintModel(const std::string& model_dir) {
  std::error_code ec;
  const fs::path root(model_dir);
  if (!fs::is_directory(root, ec)) return Status::NotFound("model directory '" + model_dir + "': not found");
  ModelFingerprint fp;
  fs::directory_iterator it(root, ec), end;
  if (ec) return Status::NotFound("model directory '" + model_dir + "': " + ec.message());
  for (; it != end; it.increment(ec)) {
    if (ec) break;
    const std::string name = it->path().filename().string();
    std::error_code dir_ec;
    const bool is_dir = it->is_directory(dir_ec);
    if (!is_dir) {
      Stamp(root, *it, &fp.files);  // config.pbtxt, label files
    } else if (VersionFromDirectoryName(name) > 0 || name == kWarmupDirName) {
      Stamp(root, *it, &fp.files);  // the directory itself: a new or removed version shows even when empty
      StampTree(root, it->path(), &fp.files);
    }
  }
  std::sort(fp.files.begin(), fp.files.end(), [](const FileStamp& a, const FileStamp& b) { return a.path < b.path; });
  return fp;
}

Result<std::map<std::string, ModelFingerprint>> FingerprintRepository(const std::string& repository) {
  HONE_ASSIGN_OR_RETURN(std::vector<std::string> models, ListModels(repository));
  std::map<std::string, ModelFingerprint> result;
  for (const std::string& name : models) {
    auto fp = FingerprintModel((fs::path(repository) / name).string());
    if (fp.ok()) result.emplace(name, std::move(fp).value());  // a model removed meanwhile is simply absent
  }
  return result;
}

RepositoryChanges DiffRepository(const std::map<std::string, ModelFingerprint>& before,
                                 const std::map<std::string, ModelFingerprint>& after) {
  RepositoryChanges changes;
  for (const auto& [name, fp] : after) {
    auto it = before.find(name);
    if (it == before.end()) changes.added.push_back(name);
    else if (!(it->second == fp)) changes.changed.push_back(name);
  }
  for (const auto& [name, fp] : before)
    if (after.find(name) == after.end()) changes.removed.push_back(name);
  return changes;
}

}  // namespace hone::serve
