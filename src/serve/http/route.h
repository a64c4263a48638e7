// Matching a request's method and target to a KServe v2 / Triton endpoint. Pure: no server, no sockets.
//
//   GET  /v2/health/live | /v2/health/ready | /v2 | /metrics | /v2/models/stats
//   GET  /v2/models/{m}[/versions/{v}][/ready | /config | /stats]
//   POST /v2/models/{m}[/versions/{v}]/infer | /generate | /generate_stream   (generate: KServe's extension)
//   GET  /v1/models;  POST /v1/completions | /v1/chat/completions               (OpenAI's API)
//   POST /v2/repository/index | /v2/repository/models/{m}/load | /v2/repository/models/{m}/unload
//
// Model names and versions are percent-decoded, then validated with the repository's own rules (a name must be a
// single ordinary directory entry: no '/', '\\', "..", leading '.', control characters; a version is a decimal
// integer >= 1), so that nothing a client puts in a path can reach outside the repository. The query string is
// ignored. As in Triton, /v2/models/stats means the statistics of every model, not the metadata of one named
// "stats".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace hone::serve::http {

enum class Method { kGet, kPost, kOther };

enum class Endpoint {
  kNone,  // no match: see Route::error_status
  kHealthLive,
  kHealthReady,
  kServerMetadata,
  kModelMetadata,
  kModelReady,
  kModelConfig,
  kModelStats,  // model "" means every model
  kInfer,
  kRepositoryIndex,
  kRepositoryLoad,
  kRepositoryUnload,
  kMetrics,
  kGenerate,
  kGenerateStream,
  kOpenAiModels,
  kOpenAiCompletions,
  kOpenAiChatCompletions,
};

struct Route {
  Endpoint endpoint = Endpoint::kNone;
  std::string model;
  int64_t version = 0;  // 0: none given (the server picks)
  // With kNone: 404 (no endpoint at this path), 405 (the endpoint takes another method; `allow` names it) or 400
  // (a malformed model name or version), and a message for the error body.
  int error_status = 0;
  std::string error;
  std::string_view allow;
};

Route MatchRoute(Method method, std::string_view target);

// Decodes %XX escapes; false for a malformed escape ('%' not followed by two hex digits). '+' stays '+' (it
// means a space only in query strings).
bool PercentDecode(std::string_view in, std::string& out);

}  // namespace hone::serve::http
