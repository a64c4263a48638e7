// Writing an output file without ever losing the user's data: the file (and an external-data file "<name>.data"
// beside it, as ONNX models keep large weights) is written into a staging directory beside its final place, checked
// there, and renamed into place only once it is good. An output that would replace the input it was made from is
// refused before anything is written.
//
//   HONE_ASSIGN_OR_RETURN(StagedOutput out, StagedOutput::Create("out/model.int8.onnx", "model.onnx"));
//   HONE_RETURN_IF_ERROR(WriteTheModel(out.path()));   // out/.hone-staging-123-0/model.int8.onnx
//   HONE_RETURN_IF_ERROR(out.Commit());                // renamed to out/model.int8.onnx
//   // destroyed without Commit: the staged files are removed, and whatever was at the final path is untouched
#pragma once

#include <memory>
#include <string>

#include "base/result.h"

namespace hone {

class StagedOutput {
 public:
  // InvalidArgument naming both paths when `final_path` is `input_path` (the same file after resolving links and
  // relative parts, or the same path) or would replace its external-data file; NotFound when the staging
  // directory cannot be made (the output's directory missing or not writable).
  static Result<StagedOutput> Create(const std::string& final_path, const std::string& input_path);

  StagedOutput(StagedOutput&&) noexcept;
  StagedOutput& operator=(StagedOutput&&) noexcept;
  ~StagedOutput();  // removes the staging directory and whatever is still in it

  // Where to write: a file with the final file's name in the staging directory.
  const std::string& path() const { return staged_path_; }
  const std::string& final_path() const { return final_path_; }

  // Renames the staged file into its final place, the ".data" file first (when one was written) so that the model
  // never names a data file that is not there yet. NotFound when nothing was written at path().
  Status Commit();

  // `text` with the staged path replaced by the final one: messages (ONNX Runtime's among them) that name the
  // file should name the one the user asked for.
  std::string NameFinal(std::string text) const;

 private:
  StagedOutput() = default;
  std::string final_path_, staging_dir_, staged_path_;
};

// Whether two paths name the same file: the same existing file, or the same normalised absolute path.
bool SamePath(const std::string& a, const std::string& b);

}  // namespace hone
