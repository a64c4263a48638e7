// Parsing text-generation requests from their JSON bodies, for the three APIs hone serves them on:
//   OpenAI's /v1/completions and /v1/chat/completions, and KServe's generate extension
//   (/v2/models/{m}/generate[_stream], Triton's shape: {"text_input": "...", "parameters": {...}}).
//
// Supported (OpenAI names; the generate extension takes the same keys at the top level or in "parameters"):
//   model (OpenAI: required), prompt (a string, a one-string array, or an array of token ids), messages (chat:
//   role and content, content a string or an array of {"type": "text", "text": ...} parts), max_tokens
//   (max_completion_tokens for chat), temperature, top_p, top_k, seed, stop (a string or up to 4), stream,
//   stream_options.include_usage, response_format (text, json_object, or json_schema: structured output by
//   constrained decoding, generate/json_schema_grammar.h), ignore_eos (vLLM's extension, for benchmarks), n (1 only), echo (false only),
//   logprobs (none only), presence_penalty and frequency_penalty (0 only), best_of (1 only), user.
// A value hone cannot honour is an error naming it, never silently ignored; keys outside this list are ignored, as
// vLLM does, so that clients that send extras (benchmarks, SDKs) work.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "generate/chat_template.h"
#include "generate/engine.h"

namespace hone::serve::http {

enum class GenerateApi { kCompletions, kChatCompletions, kKServeGenerate };

struct ParsedGeneration {
  std::string model;  // OpenAI's "model"; empty for the generate extension (the path names it)
  generate::GenerationRequest request;  // prompt or prompt_ids; chat requests: messages below, prompt empty
  std::vector<generate::ChatMessage> messages;
  bool stream = false;
  bool include_usage = false;
};

// InvalidArgument naming the parameter (and setting `param_at_fault`) when the body is not what the API takes.
Result<ParsedGeneration> ParseGeneration(GenerateApi api, std::string_view body, std::string* param_at_fault);

}  // namespace hone::serve::http
