#include "serve/http/generate_request.h"

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include "generate/json_schema_grammar.h"

namespace hone::serve::http {
namespace {

// Ordered: a JSON schema's properties keep the order they were written in, which is the order the output follows.
using json = nlohmann::ordered_json;

struct Fault {
  std::string param;
  std::string message;
};

// Reads `key` from `object` as the type the caller asks; a wrong type is a Fault naming it.
class Params {
 public:
  Params(const json& top, const json* nested) : top_(top), nested_(nested) {}

  const json* Find(const char* key) const {
    if (auto it = top_.find(key); it != top_.end() && !it->is_null()) return &*it;
    if (nested_)
      if (auto it = nested_->find(key); it != nested_->end() && !it->is_null()) return &*it;
    return nullptr;
  }
  std::optional<double> Number(const char* key) const {
    const json* v = Find(key);
    if (!v) return std::nullopt;
    if (!v->is_number()) throw Fault{key, fmt::format("'{}' must be a number", key)};
    return v->get<double>();
  }
  std::optional<int64_t> Integer(const char* key) const {
    const json* v = Find(key);
    if (!v) return std::nullopt;
    if (!v->is_number_integer()) throw Fault{key, fmt::format("'{}' must be an integer", key)};
    return v->get<int64_t>();
  }
  std::optional<bool> Bool(const char* key) const {
    const json* v = Find(key);
    if (!v) return std::nullopt;
    if (!v->is_boolean()) throw Fault{key, fmt::format("'{}' must be true or false", key)};
    return v->get<bool>();
  }

 private:
  const json& top_;
  const json* nested_;
};

std::string TextContent(const json& content, size_t index) {
  if (content.is_string()) return content.get<std::string>();
  const std::string param = fmt::format("messages[{}].content", index);
  if (!content.is_array()) throw Fault{param, fmt::format("'{}' must be a string or an array of text parts", param)};
  std::string text;
  for (const json& part : content) {
    if (!part.is_object() || part.value("type", "") != "text" || !part.contains("text") || !part["text"].is_string())
      throw Fault{param, fmt::format("'{}': hone takes text parts only ({{\"type\": \"text\", \"text\": ...}})", param)};
    text += part["text"].get<std::string>();
  }
  return text;
}

void ReadPrompt(const json& body, ParsedGeneration& out) {
  auto it = body.find("prompt");
  if (it == body.end() || it->is_null()) throw Fault{"prompt", "'prompt' is required"};
  const json& p = *it;
  if (p.is_string()) {
    out.request.prompt = p.get<std::string>();
  } else if (p.is_array() && p.size() == 1 && p[0].is_string()) {
    out.request.prompt = p[0].get<std::string>();
  } else if (p.is_array() && !p.empty() && p[0].is_number_integer()) {
    for (const json& id : p) {
      if (!id.is_number_integer()) throw Fault{"prompt", "'prompt': an array of token ids holds integers only"};
      out.request.prompt_ids.push_back(id.get<int64_t>());
    }
  } else if (p.is_array() && p.size() > 1) {
    throw Fault{"prompt", "'prompt': hone takes one prompt per request (send several requests)"};
  } else {
    throw Fault{"prompt", "'prompt' must be a string, a one-string array or an array of token ids"};
  }
}

void ReadMessages(const json& body, ParsedGeneration& out) {
  auto it = body.find("messages");
  if (it == body.end() || !it->is_array() || it->empty())
    throw Fault{"messages", "'messages' must be a non-empty array of {\"role\", \"content\"} objects"};
  for (size_t i = 0; i < it->size(); ++i) {
    const json& m = (*it)[i];
    if (!m.is_object() || !m.contains("role") || !m["role"].is_string())
      throw Fault{fmt::format("messages[{}].role", i), fmt::format("messages[{}] needs a string 'role'", i)};
    const json content = m.value("content", json());
    if (content.is_null())
      throw Fault{fmt::format("messages[{}].content", i), fmt::format("messages[{}] needs 'content'", i)};
    out.messages.push_back({m["role"].get<std::string>(), TextContent(content, i)});
  }
}

void ReadStop(const Params& p, ParsedGeneration& out) {
  const json* stop = p.Find("stop");
  if (!stop) return;
  if (stop->is_string()) {
    out.request.stop.push_back(stop->get<std::string>());
    return;
  }
  if (!stop->is_array() || stop->size() > 4)
    throw Fault{"stop", "'stop' must be a string or an array of at most 4 strings"};
  for (const json& s : *stop) {
    if (!s.is_string()) throw Fault{"stop", "'stop' must be a string or an array of at most 4 strings"};
    out.request.stop.push_back(s.get<std::string>());
  }
}

// OpenAI's response_format: {"type": "text"}, {"type": "json_object"}, or {"type": "json_schema", "json_schema":
// {"name": ..., "schema": {...}, "strict": ...}}. The schema itself is checked when the engine compiles it.
void ReadResponseFormat(const Params& p, ParsedGeneration& out) {
  const json* f = p.Find("response_format");
  if (!f) return;
  const char* kParam = "response_format";
  if (!f->is_object() || !f->contains("type") || !(*f)["type"].is_string())
    throw Fault{kParam, "'response_format' must be an object with a 'type': \"text\", \"json_object\" or \"json_schema\""};
  const std::string type = (*f)["type"].get<std::string>();
  if (type == "text") return;
  if (type == "json_object") {
    out.request.format = generate::OutputFormat::kJsonObject;
    return;
  }
  if (type != "json_schema")
    throw Fault{kParam, fmt::format("'response_format.type' must be \"text\", \"json_object\" or \"json_schema\", got \"{}\"", type)};
  auto spec = f->find("json_schema");
  if (spec == f->end() || !spec->is_object())
    throw Fault{"response_format.json_schema", "'response_format.json_schema' must be an object with a 'schema'"};
  auto schema = spec->find("schema");
  if (schema == spec->end() || !(schema->is_object() || schema->is_boolean()))
    throw Fault{"response_format.json_schema.schema", "'response_format.json_schema.schema' must be a JSON schema (an object)"};
  // Checked before dump(), which recurses: a schema nested thousands deep would overflow the stack.
  if (generate::JsonDepth(*schema, generate::kMaxJsonSchemaDepth) > generate::kMaxJsonSchemaDepth)
    throw Fault{"response_format.json_schema.schema",
                fmt::format("the JSON schema nests deeper than {} levels", generate::kMaxJsonSchemaDepth)};
  out.request.format = generate::OutputFormat::kJsonSchema;
  out.request.json_schema = schema->dump();
}

void ReadSampling(const Params& p, GenerateApi api, ParsedGeneration& out) {
  generate::GenerationRequest& r = out.request;
  if (api == GenerateApi::kChatCompletions) {
    if (auto v = p.Integer("max_completion_tokens")) r.max_tokens = *v;
  }
  if (auto v = p.Integer("max_tokens")) r.max_tokens = *v;
  // OpenAI's legacy completions default to 16 tokens; chat (and the generate extension) to the model's default.
  if (!r.max_tokens && api == GenerateApi::kCompletions) r.max_tokens = 16;
  if (r.max_tokens && *r.max_tokens < 1) throw Fault{"max_tokens", fmt::format("'max_tokens' must be >= 1, got {}", *r.max_tokens)};
  if (auto v = p.Number("temperature")) r.sampling.temperature = *v;
  if (auto v = p.Number("top_p")) r.sampling.top_p = *v;
  if (auto v = p.Integer("top_k")) r.sampling.top_k = *v < 0 ? 0 : *v;  // vLLM: -1 means no limit
  if (auto v = p.Integer("seed")) r.sampling.seed = static_cast<uint64_t>(*v);
  if (auto v = p.Bool("ignore_eos")) r.ignore_eos = *v;
  if (Status s = r.sampling.Validate(); !s.ok()) {
    const std::string& m = s.message();
    throw Fault{m.starts_with("temperature") ? "temperature" : m.starts_with("top_p") ? "top_p" : "top_k", m};
  }
  ReadStop(p, out);
  ReadResponseFormat(p, out);
  if (auto n = p.Integer("n"); n && *n != 1) throw Fault{"n", "'n': hone generates one choice per request (n = 1)"};
  if (auto n = p.Integer("best_of"); n && *n != 1) throw Fault{"best_of", "'best_of': only 1 is supported"};
  if (auto e = p.Bool("echo"); e && *e) throw Fault{"echo", "'echo' is not supported"};
  if (const json* l = p.Find("logprobs"); l && !(l->is_boolean() && !l->get<bool>()))
    throw Fault{"logprobs", "'logprobs' is not supported"};
  for (const char* penalty : {"presence_penalty", "frequency_penalty"})
    if (auto v = p.Number(penalty); v && *v != 0) throw Fault{penalty, fmt::format("'{}' is not supported (0 only)", penalty)};
  if (auto s = p.Bool("stream")) out.stream = *s;
  if (const json* o = p.Find("stream_options")) {
    if (!o->is_object()) throw Fault{"stream_options", "'stream_options' must be an object"};
    if (auto it = o->find("include_usage"); it != o->end() && !it->is_null()) {
      if (!it->is_boolean()) throw Fault{"stream_options.include_usage", "'include_usage' must be true or false"};
      out.include_usage = it->get<bool>();
    }
  }
}

}  // namespace

Result<ParsedGeneration> ParseGeneration(GenerateApi api, std::string_view body, std::string* param_at_fault) {
  json doc = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return Status::InvalidArgument("the request body is not valid JSON");
  if (!doc.is_object()) return Status::InvalidArgument("the request body must be a JSON object");
  ParsedGeneration out;
  try {
    if (api == GenerateApi::kKServeGenerate) {
      const json* parameters = nullptr;
      if (auto it = doc.find("parameters"); it != doc.end() && !it->is_null()) {
        if (!it->is_object()) throw Fault{"parameters", "'parameters' must be an object"};
        parameters = &*it;
      }
      auto text = doc.find("text_input");
      if (text == doc.end() || !text->is_string()) throw Fault{"text_input", "'text_input' (a string) is required"};
      out.request.prompt = text->get<std::string>();
      ReadSampling(Params(doc, parameters), api, out);
      return out;
    }
    auto model = doc.find("model");
    if (model == doc.end() || !model->is_string()) throw Fault{"model", "'model' (a string) is required"};
    out.model = model->get<std::string>();
    if (api == GenerateApi::kChatCompletions)
      ReadMessages(doc, out);
    else
      ReadPrompt(doc, out);
    ReadSampling(Params(doc, nullptr), api, out);
  } catch (const Fault& f) {
    if (param_at_fault) *param_at_fault = f.param;
    return Status::InvalidArgument(f.message);
  } catch (const json::exception& e) {
    return Status::InvalidArgument(std::string("the request body could not be read: ") + e.what());
  }
  return out;
}

}  // namespace hone::serve::http
