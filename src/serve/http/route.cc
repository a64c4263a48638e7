#include "serve/http/route.h"

#include <array>
#include <vector>

#include "serve/config/model_name.h"

namespace hone::serve::http {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Splits "/a/b/c" into {"a","b","c"}; an empty segment (from "//" or a trailing '/') is kept, so that it fails to
// match rather than silently vanishing.
std::vector<std::string_view> Segments(std::string_view path) {
  std::vector<std::string_view> out;
  if (path.empty() || path.front() != '/') return out;
  path.remove_prefix(1);
  while (true) {
    size_t slash = path.find('/');
    out.push_back(path.substr(0, slash));
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return out;
}

Route Error(int status, std::string message) {
  Route r;
  r.error_status = status;
  r.error = std::move(message);
  return r;
}

// The endpoint, once the path matched: checks the method.
Route Found(Endpoint endpoint, Method method, Method wanted) {
  if (method != wanted) {
    Route r = Error(405, "Method Not Allowed");
    r.allow = wanted == Method::kGet ? "GET" : "POST";
    return r;
  }
  Route r;
  r.endpoint = endpoint;
  return r;
}

// Decodes and validates a model name segment into `route.model`; on failure turns `route` into a 400.
void SetModel(Route& route, std::string_view segment) {
  if (route.endpoint == Endpoint::kNone) return;
  std::string name;
  if (!PercentDecode(segment, name)) {
    route = Error(400, "malformed percent-encoding in model name '" + std::string(segment) + "'");
    return;
  }
  if (Status s = ValidateModelName(name); !s.ok()) {
    route = Error(400, s.message());
    return;
  }
  route.model = std::move(name);
}

void SetVersion(Route& route, std::string_view segment) {
  if (route.endpoint == Endpoint::kNone) return;
  std::string text;
  if (!PercentDecode(segment, text)) {
    route = Error(400, "malformed percent-encoding in model version '" + std::string(segment) + "'");
    return;
  }
  auto version = ParseModelVersion(text);
  if (!version.ok() || *version == 0) {
    route = Error(400, version.ok() ? "model version is empty" : version.status().message());
    return;
  }
  route.version = *version;
}

Route MatchModel(Method method, const std::vector<std::string_view>& s) {
  // s = {"v2", "models", m, ...}
  size_t rest = 3;
  bool has_version = false;
  if (s.size() >= 5 && s[3] == "versions") {
    has_version = true;
    rest = 5;
  }
  Route r;
  if (s.size() == rest) {
    r = Found(Endpoint::kModelMetadata, method, Method::kGet);
  } else if (s.size() == rest + 1) {
    const std::string_view action = s[rest];
    if (action == "ready") r = Found(Endpoint::kModelReady, method, Method::kGet);
    else if (action == "config") r = Found(Endpoint::kModelConfig, method, Method::kGet);
    else if (action == "stats") r = Found(Endpoint::kModelStats, method, Method::kGet);
    else if (action == "infer") r = Found(Endpoint::kInfer, method, Method::kPost);
    else if (action == "generate") r = Found(Endpoint::kGenerate, method, Method::kPost);
    else if (action == "generate_stream") r = Found(Endpoint::kGenerateStream, method, Method::kPost);
    else return Error(404, "");
  } else {
    return Error(404, "");
  }
  SetModel(r, s[2]);
  if (has_version) SetVersion(r, s[4]);
  return r;
}

}  // namespace

bool PercentDecode(std::string_view in, std::string& out) {
  out.clear();
  out.reserve(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] != '%') {
      out.push_back(in[i]);
      continue;
    }
    if (i + 2 >= in.size()) return false;
    const int hi = HexValue(in[i + 1]), lo = HexValue(in[i + 2]);
    if (hi < 0 || lo < 0) return false;
    out.push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return true;
}

Route MatchRoute(Method method, std::string_view target) {
  const std::string_view path = target.substr(0, target.find('?'));
  const std::vector<std::string_view> s = Segments(path);
  Route r = Error(404, "");

  if (s.size() == 1 && s[0] == "metrics") {
    r = Found(Endpoint::kMetrics, method, Method::kGet);
  } else if (s.size() == 2 && s[0] == "v1" && s[1] == "models") {
    r = Found(Endpoint::kOpenAiModels, method, Method::kGet);
  } else if (s.size() == 2 && s[0] == "v1" && s[1] == "completions") {
    r = Found(Endpoint::kOpenAiCompletions, method, Method::kPost);
  } else if (s.size() == 3 && s[0] == "v1" && s[1] == "chat" && s[2] == "completions") {
    r = Found(Endpoint::kOpenAiChatCompletions, method, Method::kPost);
  } else if (!s.empty() && s[0] == "v2") {
    if (s.size() == 1 || (s.size() == 2 && s[1].empty())) {
      r = Found(Endpoint::kServerMetadata, method, Method::kGet);
    } else if (s.size() == 3 && s[1] == "health" && s[2] == "live") {
      r = Found(Endpoint::kHealthLive, method, Method::kGet);
    } else if (s.size() == 3 && s[1] == "health" && s[2] == "ready") {
      r = Found(Endpoint::kHealthReady, method, Method::kGet);
    } else if (s.size() == 3 && s[1] == "models" && s[2] == "stats") {
      r = Found(Endpoint::kModelStats, method, Method::kGet);
    } else if (s.size() >= 3 && s[1] == "models") {
      r = MatchModel(method, s);
    } else if (s.size() == 3 && s[1] == "repository" && s[2] == "index") {
      r = Found(Endpoint::kRepositoryIndex, method, Method::kPost);
    } else if (s.size() == 5 && s[1] == "repository" && s[2] == "models" && (s[4] == "load" || s[4] == "unload")) {
      r = Found(s[4] == "load" ? Endpoint::kRepositoryLoad : Endpoint::kRepositoryUnload, method, Method::kPost);
      SetModel(r, s[3]);
    }
  }
  if (r.endpoint == Endpoint::kNone && r.error_status == 404)
    r.error = "no endpoint at '" + std::string(path) + "'";
  return r;
}

}  // namespace hone::serve::http
