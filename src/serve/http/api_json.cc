#include "serve/http/api_json.h"

#include "client/json_writer.h"

namespace hone::serve::http {
namespace {

void WriteTensorMetadata(client::JsonWriter& w, const std::vector<client::TensorMetadata>& tensors) {
  w.BeginArray();
  for (const auto& t : tensors) {
    w.BeginObject();
    w.Field("name", t.name);
    w.Field("datatype", DataTypeName(t.type));
    w.Key("shape");
    w.BeginArray();
    for (int64_t d : t.shape) w.Int(d);
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
}

void WriteDuration(client::JsonWriter& w, std::string_view key, const client::DurationStat& d) {
  w.Key(key);
  w.BeginObject();
  w.Field("count", d.count);
  w.Field("ns", d.ns);
  w.EndObject();
}

}  // namespace

std::string ServerMetadataJson(const ServerMetadataInfo& info) {
  std::string out;
  client::JsonWriter w(out);
  w.BeginObject();
  w.Field("name", info.name);
  w.Field("version", info.version);
  w.Key("extensions");
  w.BeginArray();
  for (const auto& e : info.extensions) w.String(e);
  w.EndArray();
  w.EndObject();
  return out;
}

std::string ModelMetadataJson(const client::ModelMetadataInfo& info) {
  std::string out;
  client::JsonWriter w(out);
  w.BeginObject();
  w.Field("name", info.name);
  w.Key("versions");
  w.BeginArray();
  for (const auto& v : info.versions) w.String(v);
  w.EndArray();
  w.Field("platform", info.platform);
  w.Key("inputs");
  WriteTensorMetadata(w, info.inputs);
  w.Key("outputs");
  WriteTensorMetadata(w, info.outputs);
  w.EndObject();
  return out;
}

std::string StatisticsJson(const std::vector<client::ModelStatsSnapshot>& stats) {
  std::string out;
  out.reserve(512 * stats.size() + 32);
  client::JsonWriter w(out);
  w.BeginObject();
  w.Key("model_stats");
  w.BeginArray();
  for (const auto& s : stats) {
    w.BeginObject();
    w.Field("name", s.name);
    w.Field("version", std::to_string(s.version));
    w.Field("last_inference", s.last_inference_ms);
    w.Field("inference_count", s.inference_count);
    w.Field("execution_count", s.execution_count);
    w.Key("inference_stats");
    w.BeginObject();
    WriteDuration(w, "success", s.success);
    WriteDuration(w, "fail", s.fail);
    WriteDuration(w, "queue", s.queue);
    WriteDuration(w, "compute_input", s.compute_input);
    WriteDuration(w, "compute_infer", s.compute_infer);
    WriteDuration(w, "compute_output", s.compute_output);
    WriteDuration(w, "cache_hit", {});
    WriteDuration(w, "cache_miss", {});
    w.EndObject();
    w.Key("batch_stats");
    w.BeginArray();
    for (const auto& b : s.batch_stats) {
      w.BeginObject();
      w.Field("batch_size", static_cast<uint64_t>(b.batch_size));
      WriteDuration(w, "compute_input", b.compute_input);
      WriteDuration(w, "compute_infer", b.compute_infer);
      WriteDuration(w, "compute_output", b.compute_output);
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return out;
}

std::string RepositoryIndexJson(const std::vector<RepositoryEntry>& entries) {
  std::string out;
  client::JsonWriter w(out);
  w.BeginArray();
  for (const auto& e : entries) {
    w.BeginObject();
    w.Field("name", e.name);
    if (!e.version.empty()) w.Field("version", e.version);
    if (!e.state.empty()) w.Field("state", e.state);
    if (!e.reason.empty()) w.Field("reason", e.reason);
    w.EndObject();
  }
  w.EndArray();
  return out;
}

}  // namespace hone::serve::http
