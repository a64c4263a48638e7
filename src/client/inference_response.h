// One inference's response as KServe v2 carries it: what serve's scheduler delivers to a front end
// (serve/core/inference.h) and what the HTTP client decodes from the wire.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tensor/npz.h"  // NamedTensor

namespace hone::client {

struct InferenceResponse {
  std::string model_name;
  int64_t model_version = 0;
  std::string id;
  std::vector<NamedTensor> outputs;  // each owns (shares) its bytes; in requested_outputs order
};

}  // namespace hone::client
