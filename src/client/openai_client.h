// A synchronous client for OpenAI-compatible completion servers (hone serve, vLLM, llama.cpp's server, ...), for
// `hone bench --protocol openai`: it sends one streamed completion and timestamps every Server-Sent Event as it
// arrives, so that time to first token and the gaps between tokens are measured where the user sees them.
//
//   auto client = OpenAiClient::Connect("127.0.0.1", 8000);
//   auto done = (*client)->Stream({.model = "smollm2", .prompt = "Hello", .max_tokens = 64});
//
// One keep-alive connection; not thread-safe (one client per thread). Token counts come from the server's `usage`
// (asked for with stream_options.include_usage), never from re-tokenizing the text.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"

namespace hone::client {

struct CompletionCall {
  std::string model;
  bool chat = false;          // /v1/chat/completions (prompt as one user message) instead of /v1/completions
  std::string prompt;
  int64_t max_tokens = 64;
  bool ignore_eos = true;     // vLLM's and llama.cpp's extension: generate exactly max_tokens
  double temperature = 0;
  std::optional<uint64_t> seed;
};

struct StreamedCompletion {
  using Clock = std::chrono::steady_clock;
  Clock::time_point sent;                   // the request's first byte went out
  std::vector<Clock::time_point> chunks;    // each event that carried generated text, as it arrived
  Clock::time_point done;                   // the stream ended ([DONE] or its last chunk)
  int64_t prompt_tokens = -1;               // from usage; -1 when the server sent none
  int64_t completion_tokens = -1;
  std::string text;
  std::string finish_reason;
};

class OpenAiClient {
 public:
  // Resolves and connects. Unavailable when nothing listens; `timeout` bounds each later call too.
  static Result<std::unique_ptr<OpenAiClient>> Connect(const std::string& host, uint16_t port,
                                                      std::chrono::milliseconds timeout = std::chrono::minutes(5));
  ~OpenAiClient();
  OpenAiClient(const OpenAiClient&) = delete;
  OpenAiClient& operator=(const OpenAiClient&) = delete;

  // A streamed completion. The server's error (a 4xx/5xx body, or an error event in the stream) comes back as a
  // Status with its message; transport failures as Unavailable or DeadlineExceeded.
  Result<StreamedCompletion> Stream(const CompletionCall& call);
  // GET /v1/models: the ids.
  Result<std::vector<std::string>> Models();

 private:
  struct Impl;
  explicit OpenAiClient(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace hone::client
