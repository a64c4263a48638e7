#include "base/staged_output.h"

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <system_error>

namespace hone {
namespace fs = std::filesystem;

bool SamePath(const std::string& a, const std::string& b) {
  std::error_code ec;
  if (fs::equivalent(a, b, ec)) return true;
  fs::path ca = fs::weakly_canonical(fs::absolute(a, ec), ec);
  fs::path cb = fs::weakly_canonical(fs::absolute(b, ec), ec);
  return !ca.empty() && ca == cb;
}

Result<StagedOutput> StagedOutput::Create(const std::string& final_path, const std::string& input_path) {
  if (SamePath(final_path, input_path))
    return Status::InvalidArgument("output '" + final_path + "' is the input '" + input_path +
                                   "': hone never overwrites its input; choose another output path");
  if (SamePath(final_path + ".data", input_path + ".data") || SamePath(final_path + ".data", input_path))
    return Status::InvalidArgument("output '" + final_path + "' would replace the external data of the input '" +
                                   input_path + "'; choose another output path");
  fs::path final(final_path);
  if (final.filename().empty()) return Status::InvalidArgument("output '" + final_path + "': expected a file name");
  std::error_code ec;
  if (fs::is_directory(final, ec))
    return Status::InvalidArgument("output '" + final_path + "' is a directory; expected a file path");
  fs::path dir = final.parent_path().empty() ? fs::path(".") : final.parent_path();
  static std::atomic<int> counter{0};
  fs::path staging = dir / (".hone-staging-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
  if (!fs::create_directory(staging, ec) || ec)
    return Status::NotFound("cannot write to the output's directory '" + dir.string() + "'" +
                            (ec ? ": " + ec.message() : ""));
  StagedOutput out;
  out.final_path_ = final_path;
  out.staging_dir_ = staging.string();
  out.staged_path_ = (staging / final.filename()).string();
  return out;
}

StagedOutput::StagedOutput(StagedOutput&& other) noexcept { *this = std::move(other); }

StagedOutput& StagedOutput::operator=(StagedOutput&& other) noexcept {
  if (this != &other) {
    std::swap(final_path_, other.final_path_);
    std::swap(staging_dir_, other.staging_dir_);
    std::swap(staged_path_, other.staged_path_);
  }
  return *this;
}

StagedOutput::~StagedOutput() {
  if (staging_dir_.empty()) return;
  std::error_code ec;
  fs::remove_all(staging_dir_, ec);
}

Status StagedOutput::Commit() {
  std::error_code ec;
  if (!fs::exists(staged_path_, ec)) return Status::NotFound("nothing was written for '" + final_path_ + "'");
  const std::string data = staged_path_ + ".data";
  if (fs::exists(data, ec)) {
    fs::rename(data, final_path_ + ".data", ec);
    if (ec) return Status::NotFound("cannot move the output into '" + final_path_ + ".data': " + ec.message());
  } else {
    // A stale data file from an earlier output of the same name would no longer belong to the new model.
    fs::remove(final_path_ + ".data", ec);
  }
  fs::rename(staged_path_, final_path_, ec);
  if (ec) return Status::NotFound("cannot move the output into '" + final_path_ + "': " + ec.message());
  return Status::Ok();
}

std::string StagedOutput::NameFinal(std::string text) const {
  if (staged_path_.empty()) return text;
  for (size_t at = text.find(staged_path_); at != std::string::npos; at = text.find(staged_path_, at + final_path_.size()))
    text.replace(at, staged_path_.size(), final_path_);
  return text;
}

}  // namespace hone
