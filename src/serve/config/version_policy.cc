#include "serve/config/version_policy.h"

#include <algorithm>

namespace hone::serve {

Result<std::vector<int64_t>> SelectVersions(const inference::ModelVersionPolicy& policy,
                                            std::span<const int64_t> available, const std::string& where) {
  std::vector<int64_t> have(available.begin(), available.end());
  std::sort(have.begin(), have.end());
  have.erase(std::unique(have.begin(), have.end()), have.end());

  switch (policy.policy_choice_case()) {
    case inference::ModelVersionPolicy::kAll:
      return have;
    case inference::ModelVersionPolicy::kSpecific: {
      std::vector<int64_t> wanted(policy.specific().versions().begin(), policy.specific().versions().end());
      std::sort(wanted.begin(), wanted.end());
      wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
      for (int64_t v : wanted) {
        if (std::binary_search(have.begin(), have.end(), v)) continue;
        std::string list;
        for (int64_t h : have) list += (list.empty() ? "" : ", ") + std::to_string(h);
        return Status::NotFound(where + ": version_policy.specific: version " + std::to_string(v) +
                                " not found (available: " + (list.empty() ? "none" : list) + ")");
      }
      return wanted;
    }
    case inference::ModelVersionPolicy::kLatest:
    case inference::ModelVersionPolicy::POLICY_CHOICE_NOT_SET: {
      size_t n = policy.has_latest() ? policy.latest().num_versions() : 1;
      if (n == 0) n = 1;  // ValidateModelConfig rejects 0; treat it as the default here too
      if (have.size() > n) have.erase(have.begin(), have.end() - static_cast<std::ptrdiff_t>(n));
      return have;
    }
  }
  return have;
}

}  // namespace hone::serve
