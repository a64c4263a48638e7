#include "serve/http/generate_handler.h"

#include <chrono>
#include <mutex>
#include <random>

#include <fmt/format.h>

#include "client/http_status.h"
#include "client/json_writer.h"
#include "serve/core/generative_model.h"
#include "serve/http/content_coding.h"
#include "serve/http/generate_request.h"
#include "serve/http/reply_stream.h"

namespace hone::serve::http {
namespace {

using client::JsonWriter;

bool IsOpenAi(Endpoint e) { return e == Endpoint::kOpenAiCompletions || e == Endpoint::kOpenAiChatCompletions; }

int HttpStatusOf(const Status& s) {
  switch (s.code()) {
    case StatusCode::kInvalidArgument:
    case StatusCode::kOutOfRange:
    case StatusCode::kUnimplemented: return 400;
    case StatusCode::kNotFound: return 404;
    case StatusCode::kUnavailable:
    case StatusCode::kResourceExhausted: return 503;
    default: return 500;
  }
}

std::string OpenAiErrorJson(const Status& s, std::string_view param) {
  const int status = HttpStatusOf(s);
  std::string out;
  JsonWriter w(out);
  w.BeginObject();
  w.Key("error");
  w.BeginObject();
  w.Field("message", s.message());
  w.Field("type", status == 404 || status == 400 ? "invalid_request_error" : status == 503 ? "server_overloaded"
                                                                                          : "server_error");
  w.Key("param");
  if (param.empty()) w.Null(); else w.String(param);
  w.Key("code");
  if (status == 404) w.String("model_not_found"); else w.Null();
  w.EndObject();
  w.EndObject();
  return out;
}

HttpReply ErrorReply(Endpoint endpoint, const Status& s, std::string_view param = {}) {
  if (IsOpenAi(endpoint)) return HttpReply::Json(HttpStatusOf(s), OpenAiErrorJson(s, param));
  return HttpReply::FromStatus(s);
}

int64_t UnixNow() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// OpenAI's usage object; prompt_tokens_details.cached_tokens as OpenAI's prompt caching reports it (vLLM too).
void Usage(JsonWriter& w, const generate::GenerationUpdate& u) {
  w.Key("usage");
  w.BeginObject();
  w.Field("prompt_tokens", u.prompt_tokens);
  w.Field("completion_tokens", u.completion_tokens);
  w.Field("total_tokens", u.prompt_tokens + u.completion_tokens);
  w.Key("prompt_tokens_details");
  w.BeginObject();
  w.Field("cached_tokens", u.cached_tokens);
  w.EndObject();
  w.EndObject();
}

// What every reply of one request shares.
struct RequestState {
  Endpoint endpoint;
  std::string id;
  std::string model;
  int64_t version = 0;
  int64_t created = 0;
  bool stream = false;
  bool include_usage = false;
  std::string text;          // non-streamed: everything generated
  bool sent_role = false;    // chat streams: the first chunk carries the role
  ReplyCallback reply;       // non-streamed: the one reply
  std::shared_ptr<ReplyStream> events;

  std::mutex mu;  // guards generation and gone (the client can leave before Submit returns)
  std::shared_ptr<generate::Generation> generation;
  bool gone = false;

  bool chat() const { return endpoint == Endpoint::kOpenAiChatCompletions; }
  const char* object() const {
    if (chat()) return stream ? "chat.completion.chunk" : "chat.completion";
    return "text_completion";
  }

  void Head(JsonWriter& w) const {
    w.Field("id", id);
    w.Field("object", object());
    w.Field("created", created);
    w.Field("model", model);
  }

  // The choices array of an OpenAI reply: one choice, whose text is a chat message (whole), a chat delta (stream;
  // the first delta carries the role) or plain text. A null finish reason while a stream goes on.
  void Choices(JsonWriter& w, std::string_view choice_text, const char* finish) {
    w.Key("choices");
    w.BeginArray();
    w.BeginObject();
    w.Field("index", int64_t{0});
    if (chat()) {
      w.Key(stream ? "delta" : "message");
      w.BeginObject();
      if (!stream || !sent_role) {
        w.Field("role", "assistant");
        sent_role = true;
      }
      if (!stream || !finish || !choice_text.empty()) w.Field("content", choice_text);
      w.EndObject();
    } else {
      w.Field("text", choice_text);
    }
    w.Key("logprobs");
    w.Null();
    w.Key("finish_reason");
    if (finish) w.String(finish); else w.Null();
    w.EndObject();
    w.EndArray();
  }

  // One Server-Sent Event: "data: <json>" and a blank line.
  static std::string Event(const std::string& json) { return "data: " + json + "\n\n"; }

  // One streamed OpenAI chunk: a text delta and/or a finish reason.
  std::string Chunk(std::string_view piece, const char* finish) {
    std::string out;
    JsonWriter w(out);
    w.BeginObject();
    Head(w);
    Choices(w, piece, finish);
    if (include_usage) {
      w.Key("usage");
      w.Null();
    }
    w.EndObject();
    return Event(out);
  }

  // The last event with stream_options.include_usage: no choices, the usage.
  std::string UsageChunk(const generate::GenerationUpdate& u) const {
    std::string out;
    JsonWriter w(out);
    w.BeginObject();
    Head(w);
    w.Key("choices");
    w.BeginArray();
    w.EndArray();
    Usage(w, u);
    w.EndObject();
    return Event(out);
  }

  // The whole reply of a request that did not stream.
  std::string Whole(const char* finish, const generate::GenerationUpdate& u) {
    std::string out;
    JsonWriter w(out);
    w.BeginObject();
    Head(w);
    Choices(w, text, finish);
    Usage(w, u);
    w.EndObject();
    return out;
  }

  // KServe generate: {"model_name", "model_version", "text_output"} (+ finish_reason and usage on the last).
  std::string KServe(std::string_view text, const char* finish, const generate::GenerationUpdate& u) const {
    std::string out;
    JsonWriter w(out);
    w.BeginObject();
    w.Field("model_name", model);
    w.Field("model_version", std::to_string(version));
    w.Field("text_output", text);
    if (finish) {
      w.Field("finish_reason", finish);
      Usage(w, u);
    }
    w.EndObject();
    return out;
  }

  void OnUpdate(const generate::GenerationUpdate& u) {
    const bool openai = IsOpenAi(endpoint);
    const char* finish = nullptr;
    if (u.finish) finish = *u.finish == generate::FinishReason::kLength ? "length" : "stop";
    const bool failed = u.finish && (*u.finish == generate::FinishReason::kError ||
                                     *u.finish == generate::FinishReason::kCancelled);
    if (!stream) {
      text += u.text;
      if (!u.finish) return;
      if (failed) {
        const Status s = u.error.ok() ? Status::Unavailable("the generation was cancelled") : u.error;
        reply(ErrorReply(endpoint, s));
      } else {
        reply(HttpReply::Json(200, openai ? Whole(finish, u)
                                          : KServe(text, finish, u)));
      }
      return;
    }
    if (failed) {
      if (*u.finish == generate::FinishReason::kCancelled) {
        events->Close();  // the client is gone: nobody reads an error event
        return;
      }
      std::string out = Event(openai ? OpenAiErrorJson(u.error, {}) : HttpReply::FromStatus(u.error).body);
      if (openai) out += "data: [DONE]\n\n";
      events->Write(std::move(out));
      events->Close();
      return;
    }
    if (!openai) {
      if (!u.text.empty() || u.finish)
        events->Write(Event(KServe(u.text, finish, u)));
      if (u.finish) events->Close();
      return;
    }
    std::string out;
    if (!u.text.empty() || (chat() && !sent_role)) out += Chunk(u.text, nullptr);
    if (u.finish) {
      out += Chunk("", finish);
      if (include_usage) out += UsageChunk(u);
      out += "data: [DONE]\n\n";
    }
    events->Write(std::move(out));
    if (u.finish) events->Close();
  }
};

}  // namespace

GenerateHandler::GenerateHandler(Server& server)
    : server_(server), next_id_((uint64_t{std::random_device{}()} << 32) ^ std::random_device{}()) {}

HttpReply GenerateHandler::Models() const {
  std::string out;
  JsonWriter w(out);
  w.BeginObject();
  w.Field("object", "list");
  w.Key("data");
  w.BeginArray();
  for (const auto& m : server_.GenerativeModels()) {
    w.BeginObject();
    w.Field("id", m->name());
    w.Field("object", "model");
    w.Field("created", m->created_unix_seconds());
    w.Field("owned_by", "hone");
    w.Field("max_model_len", m->engine().context_length());
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return HttpReply::Json(200, std::move(out));
}

void GenerateHandler::Handle(const Route& route, const ApiRequest& request, ReplyCallback reply) {
  const Endpoint endpoint = route.endpoint;
  if (RequestCoding(request.content_encoding) != ContentCoding::kIdentity)
    return reply(HttpReply::Error(415, "Content-Encoding '" + request.content_encoding +
                                           "' is not supported on the generation endpoints"));
  const GenerateApi api = endpoint == Endpoint::kOpenAiCompletions       ? GenerateApi::kCompletions
                          : endpoint == Endpoint::kOpenAiChatCompletions ? GenerateApi::kChatCompletions
                                                                         : GenerateApi::kKServeGenerate;
  const auto bytes = request.body->bytes();
  std::string param;
  Result<ParsedGeneration> parsed =
      ParseGeneration(api, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), &param);
  if (!parsed.ok()) return reply(ErrorReply(endpoint, parsed.status(), param));
  if (endpoint == Endpoint::kGenerate) parsed->stream = false;
  if (endpoint == Endpoint::kGenerateStream) parsed->stream = true;

  const std::string model_name = IsOpenAi(endpoint) ? parsed->model : route.model;
  Result<std::shared_ptr<GenerativeModel>> model =
      server_.Generative(model_name, IsOpenAi(endpoint) ? 0 : route.version);
  if (!model.ok()) return reply(ErrorReply(endpoint, model.status(), IsOpenAi(endpoint) ? "model" : ""));

  generate::GenerationRequest& g = parsed->request;
  if (api == GenerateApi::kChatCompletions) {
    Result<std::string> prompt = (*model)->engine().chat_template().Render(parsed->messages);
    if (!prompt.ok()) return reply(ErrorReply(endpoint, prompt.status(), "messages"));
    g.prompt = std::move(*prompt);
  }

  auto state = std::make_shared<RequestState>();
  state->endpoint = endpoint;
  const uint64_t n = next_id_.fetch_add(1);
  state->id = fmt::format("{}-{:016x}", api == GenerateApi::kChatCompletions ? "chatcmpl" : "cmpl", n);
  state->model = (*model)->name();
  state->version = (*model)->version();
  state->created = UnixNow();
  state->stream = parsed->stream;
  state->include_usage = parsed->include_usage;
  if (state->stream) {
    std::weak_ptr<RequestState> weak = state;
    state->events = std::make_shared<ReplyStream>([weak] {
      auto s = weak.lock();
      if (!s) return;
      std::lock_guard lock(s->mu);
      s->gone = true;
      if (s->generation) s->generation->Cancel();
    });
  } else {
    state->reply = std::move(reply);
  }
  Result<std::shared_ptr<generate::Generation>> submitted =
      (*model)->Submit(std::move(g), [state](const generate::GenerationUpdate& u) { state->OnUpdate(u); });
  if (!submitted.ok()) {
    HttpReply error = ErrorReply(endpoint, submitted.status(),
                                 submitted.status().message().find("context length") != std::string::npos
                                     ? (api == GenerateApi::kChatCompletions ? "messages" : "prompt")
                                 : submitted.status().message().starts_with("the JSON schema")
                                     ? "response_format.json_schema.schema"
                                     : "");
    return state->stream ? reply(std::move(error)) : state->reply(std::move(error));
  }
  {
    std::lock_guard lock(state->mu);
    state->generation = *submitted;
    if (state->gone) state->generation->Cancel();
  }
  if (state->stream) {
    HttpReply r;
    r.status = 200;
    r.content_type = "text/event-stream";
    r.headers.emplace_back("Cache-Control", "no-cache");
    r.stream = state->events;
    reply(std::move(r));
  }
}

}  // namespace hone::serve::http
