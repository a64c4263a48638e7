// Text generation over HTTP: OpenAI's API (/v1/models, /v1/completions, /v1/chat/completions, with Server-Sent
// Events when "stream" is true and usage counts, also in streams with stream_options.include_usage) and KServe's
// generate extension (/v2/models/{m}/generate and /generate_stream, as Triton answers them). Requests go to the
// model's generation engine (Server::Generative); replies come from the engine's thread.
//
// Errors use each API's own body: OpenAI's {"error": {"message", "type", "param", "code"}} (400 for a bad
// request or a prompt over the context, 404 for an unknown model, 503 when the queue is full or the model is
// unloading), KServe's {"error": "..."} on the generate extension. A stream that fails after it started ends with
// an error event, then (OpenAI) "data: [DONE]". A streaming client that disconnects cancels its generation, which
// frees its KV cache at the engine's next step.
#pragma once

#include <atomic>
#include <cstdint>

#include "serve/core/server.h"
#include "serve/http/api_handler.h"
#include "serve/http/route.h"

namespace hone::serve::http {

class GenerateHandler {
 public:
  explicit GenerateHandler(Server& server);

  // GET /v1/models: every ready text-generation model.
  HttpReply Models() const;
  // The completions, chat completions and generate endpoints; `reply` is called exactly once (a stream's reply
  // comes at once, its events after).
  void Handle(const Route& route, const ApiRequest& request, ReplyCallback reply);

 private:
  Server& server_;
  std::atomic<uint64_t> next_id_;  // starts at random: ids differ across restarts, as OpenAI's do
};

}  // namespace hone::serve::http
