// Triton's classification extension: a request asks for an output's top-k classes instead of its tensor
// ("classification": k in the output's parameters), and gets BYTES [batch, k] (or [k] without a batch dimension)
// of "<value>:<index>" strings, "<value>:<index>:<label>" when the config names a label_filename for the output.
// Values compare as the output's type; ties keep class order; the value is written with six decimals, as Triton
// writes it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/result.h"
#include "client/model_config.pb.h"
#include "tensor/tensor.h"

namespace hone::serve {

// The top `k` classes of each row of `scores` (rows along dimension 0 when `batched`, else one row of every
// element). InvalidArgument naming `output` when k is 0 or more than a row's classes, or the type is not numeric.
Result<Tensor> ClassifyOutput(const Tensor& scores, uint32_t k, bool batched, const std::vector<std::string>* labels,
                              const std::string& output);

// The label files the config's outputs name (label_filename, in the model's directory, one label a line), by
// output. NotFound naming the file when one cannot be read.
Result<std::map<std::string, std::vector<std::string>>> ReadOutputLabels(const inference::ModelConfig& config,
                                                                         const std::string& model_dir);

}  // namespace hone::serve
