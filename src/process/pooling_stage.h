// hone_pooling: token embeddings to one vector per text, as sentence-transformers' Pooling and Normalize modules do.
//
//   inputs   token_embeddings FP32 [batch, sequence, hidden], attention_mask INT64 [batch, sequence]
//   output   embedding FP32 [batch, hidden]
//   parameters
//     mode        mean (default: the masked mean over the tokens whose mask is not 0), cls (the first token),
//                 max (the masked maximum)
//     normalize   true (default: L2-normalised, so that a dot product is the cosine) or false
#pragma once

#include <memory>

#include "process/stage.h"

namespace hone::process {

Result<std::unique_ptr<Stage>> CreatePoolingStage(const StageConfig& config);

}  // namespace hone::process
