#include "serve/http/api_handler.h"

#include "serve/http/generate_handler.h"

#include <simdjson.h>

#include "serve/config/config_json.h"
#include "serve/http/api_json.h"

namespace hone::serve::http {
namespace {

constexpr std::string_view kMetricsContentType = "text/plain; version=0.0.4; charset=utf-8";

std::string Describe(const std::string& model, int64_t version) {
  std::string s = "model '" + model + "'";
  if (version > 0) s += " version " + std::to_string(version);
  return s;
}

// Parses an optional JSON object body (the repository endpoints'); an empty body is an empty object.
Result<simdjson::dom::object> OptionalJsonObject(const client::BodyBuffer& body, simdjson::dom::parser& parser,
                                                 std::string_view what) {
  static constexpr std::string_view kEmpty = "{}";
  simdjson::dom::element root;
  auto error = body.size() == 0 ? parser.parse(kEmpty.data(), kEmpty.size()).get(root)
                                : parser.parse(reinterpret_cast<const char*>(body.data()), body.size(), false).get(root);
  if (error)
    return Status::InvalidArgument("malformed JSON in the " + std::string(what) + " request: " +
                                   simdjson::error_message(error));
  simdjson::dom::object obj;
  if (root.get_object().get(obj))
    return Status::InvalidArgument("the " + std::string(what) + " request must be a JSON object");
  return obj;
}

Result<bool> ReadyOnly(const client::BodyBuffer& body) {
  simdjson::dom::parser parser;
  HONE_ASSIGN_OR_RETURN(auto obj, OptionalJsonObject(body, parser, "repository index"));
  simdjson::dom::element ready;
  if (obj["ready"].get(ready) != simdjson::SUCCESS) return false;
  bool value = false;
  if (ready.get_bool().get(value)) return Status::InvalidArgument("'ready' must be true or false");
  return value;
}

// Load parameters that would change what is loaded (a config override, model files in the request) are refused
// rather than ignored; anything else (unload_dependents, ...) has no meaning without ensembles and is ignored.
Status CheckControlParameters(const client::BodyBuffer& body) {
  simdjson::dom::parser parser;
  HONE_ASSIGN_OR_RETURN(auto obj, OptionalJsonObject(body, parser, "model control"));
  simdjson::dom::element params;
  if (obj["parameters"].get(params) != simdjson::SUCCESS) return Status::Ok();
  simdjson::dom::object pobj;
  if (params.get_object().get(pobj)) return Status::InvalidArgument("'parameters' must be an object");
  for (auto [key, value] : pobj) {
    if (key == "config" || key.starts_with("file:"))
      return Status::InvalidArgument("parameter '" + std::string(key) +
                                     "': loading with an overriding config or files is not supported; put them "
                                     "in the model repository");
  }
  return Status::Ok();
}

}  // namespace

ApiHandler::ApiHandler(Server& server, ApiOptions options, std::function<void(std::function<void()>)> run_blocking)
    : server_(server),
      options_(options),
      run_blocking_(std::move(run_blocking)),
      caller_runs_(options.caller_runs),
      generate_(std::make_unique<GenerateHandler>(server)) {}

ApiHandler::~ApiHandler() = default;

bool ApiHandler::Track(ReplyCallback& reply) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return false;
    ++in_flight_;
  }
  reply = [this, inner = std::move(reply)](HttpReply r) {
    inner(std::move(r));
    std::lock_guard<std::mutex> lock(mu_);
    if (--in_flight_ == 0) idle_.notify_all();
  };
  return true;
}

void ApiHandler::StopAccepting() {
  std::lock_guard<std::mutex> lock(mu_);
  stopping_ = true;
}

void ApiHandler::WaitIdle() {
  std::unique_lock<std::mutex> lock(mu_);
  idle_.wait(lock, [&] { return in_flight_ == 0; });
}

void ApiHandler::Handle(ApiRequest request, ReplyCallback reply) {
  Route route = MatchRoute(request.method, request.target);
  const bool is_metrics = route.endpoint == Endpoint::kMetrics;
  if (route.endpoint != Endpoint::kNone && !(is_metrics ? options_.serve_metrics : options_.serve_api))
    route = Route{Endpoint::kNone, "", 0, 404, "no endpoint at '" + request.target + "' on this port", ""};
  if (route.endpoint == Endpoint::kNone) {
    HttpReply r = HttpReply::Error(route.error_status, route.error);
    if (!route.allow.empty()) r.headers.emplace_back("Allow", std::string(route.allow));
    reply(std::move(r));
    return;
  }
  switch (route.endpoint) {
    case Endpoint::kInfer: HandleInfer(route, std::move(request), std::move(reply)); return;
    case Endpoint::kRepositoryLoad:
    case Endpoint::kRepositoryUnload: HandleRepositoryControl(route, request, std::move(reply)); return;
    case Endpoint::kGenerate:
    case Endpoint::kGenerateStream:
    case Endpoint::kOpenAiCompletions:
    case Endpoint::kOpenAiChatCompletions: {
      ReplyCallback done = std::move(reply);
      if (!Track(done)) return done(HttpReply::Error(503, "the server is shutting down"));
      generate_->Handle(route, request, std::move(done));
      return;
    }
    default: reply(HandleSync(route, request)); return;
  }
}

HttpReply ApiHandler::HandleSync(const Route& route, const ApiRequest& request) {
  switch (route.endpoint) {
    // 200 or 503 with an empty body: 503 (Service Unavailable) is what KServe's own model server answers when not
    // ready, and what balancers and probes read as "send nothing here for now"; Triton's 400 reads as a malformed
    // check (HAProxy logs "400 Bad Request" for a replica that is only draining).
    case Endpoint::kHealthLive: return HttpReply::Empty(server_.IsLive() ? 200 : 503);
    case Endpoint::kHealthReady: return HttpReply::Empty(server_.IsReady() ? 200 : 503);
    case Endpoint::kServerMetadata: return HttpReply::Json(200, ServerMetadataJson(server_.Metadata()));
    case Endpoint::kModelReady: {
      auto ready = server_.IsModelReady(route.model, route.version);
      if (!ready.ok()) return HttpReply::FromStatus(ready.status());
      return *ready ? HttpReply::Empty(200)
                    : HttpReply::Error(503, Describe(route.model, route.version) + " is not ready");
    }
    case Endpoint::kModelMetadata: {
      auto meta = server_.ModelMetadata(route.model, route.version);
      if (!meta.ok()) return HttpReply::FromStatus(meta.status());
      return HttpReply::Json(200, ModelMetadataJson(*meta));
    }
    case Endpoint::kModelConfig: {
      auto config = server_.ModelConfig(route.model, route.version);
      if (!config.ok()) return HttpReply::FromStatus(config.status());
      return HttpReply::Json(200, ModelConfigToJson(*config));
    }
    case Endpoint::kModelStats: {
      auto stats = server_.Statistics(route.model, route.version);
      if (!stats.ok()) return HttpReply::FromStatus(stats.status());
      return HttpReply::Json(200, StatisticsJson(*stats));
    }
    case Endpoint::kRepositoryIndex: {
      if (!options_.repository_api || !server_.options().repository_api)
        return HttpReply::Error(403, "the model repository API is disabled on this server");
      auto ready_only = ReadyOnly(*request.body);
      if (!ready_only.ok()) return HttpReply::FromStatus(ready_only.status());
      return HttpReply::Json(200, RepositoryIndexJson(server_.RepositoryIndex(*ready_only)));
    }
    case Endpoint::kOpenAiModels: return generate_->Models();
    case Endpoint::kMetrics: {
      HttpReply r;
      r.content_type = std::string(kMetricsContentType);
      r.body = server_.MetricsText();
      return r;
    }
    default: return HttpReply::Error(500, "unhandled endpoint");
  }
}

void ApiHandler::HandleRepositoryControl(const Route& route, const ApiRequest& request, ReplyCallback reply) {
  if (!options_.repository_api || !server_.options().repository_api)
    return reply(HttpReply::Error(403, "the model repository API is disabled on this server"));
  if (Status s = CheckControlParameters(*request.body); !s.ok()) return reply(HttpReply::FromStatus(s));
  ReplyCallback done = std::move(reply);
  if (!Track(done)) return done(HttpReply::Error(503, "the server is shutting down"));
  const bool load = route.endpoint == Endpoint::kRepositoryLoad;
  run_blocking_([this, load, model = route.model, done = std::move(done)] {
    Status s = load ? server_.LoadModel(model) : server_.UnloadModel(model);
    // Triton answers a successful load or unload with 200 and an empty body.
    done(s.ok() ? HttpReply::Json(200, "") : HttpReply::FromStatus(s));
  });
}

}  // namespace hone::serve::http
