// Loading a text-generation model (backend hone_llm, serve/config/llm_config.h): its engine, a warm-up
// generation, and the scheduler that answers /infer with Triton's LLM tensors. Called by LoadVersion.
//
// /infer takes `text_input` (BYTES, one element: the prompt) and optionally `max_tokens` (INT32 or INT64),
// `temperature` (FP32), `top_p` (FP32) and `seed` (INT64), one element each, as Triton's vLLM and TensorRT-LLM
// models do, and returns `text_output` (BYTES, one element: the generated text). The OpenAI endpoints and the
// generate extension reach the engine through LoadedVersion::generative.
#pragma once

#include "base/result.h"
#include "serve/core/loaded_version.h"

namespace hone::serve {

// Fills `loaded` (whose config is completed) with the engine, metadata, statistics and scheduler. Errors name the
// config file or the model's files.
Status LoadGenerator(const LoadVersionRequest& request, LoadedVersion& loaded);

}  // namespace hone::serve
