// Change detection for poll mode: a cheap fingerprint of each model's files (path, size and modification time;
// no file is read), and the difference between two snapshots of a repository.
//
// A model's fingerprint covers config.pbtxt, the other files at the top of the model directory (label files),
// warmup/ and everything under its version directories. Two equal fingerprints mean that, as far as sizes and
// modification times tell, nothing a load reads has changed. A file rewritten within the file system's timestamp
// resolution with the same size goes unnoticed (as in Triton's poll mode).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/result.h"

namespace hone::serve {

struct FileStamp {
  std::string path;        // relative to the model directory, '/'-separated: "config.pbtxt", "1/model.onnx"
  uint64_t size = 0;       // bytes; 0 for a directory
  int64_t mtime_ns = 0;    // last modification, ns since the file clock's epoch; 0 for a directory
  bool operator==(const FileStamp&) const = default;
};

struct ModelFingerprint {
  std::vector<FileStamp> files;  // sorted by path
  bool operator==(const ModelFingerprint&) const = default;
  // One "path size mtime_ns" line per file, for logs and tests.
  std::string ToString() const;
};

// The fingerprint of `model_dir`. NotFound when it is missing. Entries that vanish while it is read are skipped
// (the next poll sees the settled state).
Result<ModelFingerprint> FingerprintModel(const std::string& model_dir);

// Every model of the repository (ListModels) with its fingerprint. NotFound when the repository is missing.
Result<std::map<std::string, ModelFingerprint>> FingerprintRepository(const std::string& repository);

struct RepositoryChanges {
  std::vector<std::string> added;    // in `after` only
  std::vector<std::string> removed;  // in `before` only
  std::vector<std::string> changed;  // in both, with different fingerprints
  bool empty() const { return added.empty() && removed.empty() && changed.empty(); }
};

// What differs between two snapshots; each list sorted by name.
RepositoryChanges DiffRepository(const std::map<std::string, ModelFingerprint>& before,
                                 const std::map<std::string, ModelFingerprint>& after);

}  // namespace hone::serve
