// The verification flags `hone quantize` and `hone convert` share (--no-verify, --data, tolerances, gates, bench),
// and the step that turns them into a VariantCheck, runs it and prints the summary.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "cli/common_flags.h"
#include "cli/tolerance_flags.h"
#include "tune/variant_check.h"

namespace hone::cli {

struct VariantFlags {
  bool no_verify = false, no_bench = false, allow_slower = false;
  runtime::InputOptions data;
  InputFlags data_flags;
  int intra_op_threads = 0;
  ToleranceFlags tolerance;
  std::vector<std::string> gates;
  double max_accuracy_drop = 0.01;
  int bench_rounds = 3;
  int64_t bench_batch = 0;
  double bench_window_ms = 250;
};

void AddVariantFlags(CLI::App& app, VariantFlags& flags);

// Verifies `variant` against `source` with `flags` (check carries what the command already set, such as the
// held-out note), prints the summary and returns the exit code: 0 passed, 1 failed (the variant stays on disk),
// 2 for bad flags or data. `command` prefixes error messages ("hone quantize").
int VerifyVariant(const std::string& source, const std::string& variant, VariantFlags& flags,
                  tune::VariantCheck& check, const std::string& command);

// A path in the system temp dir for a file of this process, removed on destruction.
class ScratchFile {
 public:
  ScratchFile();
  ~ScratchFile();
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace hone::cli
