// Which of a model's versions to serve, by its version_policy (Triton's semantics).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/result.h"
#include "client/model_config.pb.h"

namespace hone::serve {

// The versions to serve among `available` (any order; duplicates ignored), ascending:
//   latest { num_versions: N }  the N highest (all of them when there are fewer); no policy means latest 1
//   all { }                     every available version
//   specific { versions: [..] } exactly those; one that is not available is NotFound naming it and what is there:
//                               "models/m: version_policy.specific: version 3 not found (available: 1, 2)"
// An empty result (no version directories) is not an error here; the caller decides what a model without
// versions means. `where` prefixes errors.
Result<std::vector<int64_t>> SelectVersions(const inference::ModelVersionPolicy& policy,
                                            std::span<const int64_t> available, const std::string& where);

}  // namespace hone::serve
