// hone profile MODEL: where the time goes, from ONNX Runtime's profiler; with --url, the served path's split.
#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/common_flags.h"
#include "cli/report_output.h"
#include "harness/profile.h"
#include "onnx/model_json.h"

namespace hone::cli {
namespace {

struct ProfileFlags {
  harness::ProfileSettings settings;
  InputFlags inputs;
  RuntimeFlags runtime_raw;
  bench::RuntimeSweep runtime;
  std::string json_path;
  // With --url.
  harness::ServedProfileSettings served;
  std::string protocol = "http";
};

void AddFlags(CLI::App& sub, ProfileFlags& f) {
  harness::ProfileSettings& s = f.settings;
  sub.add_option("model", s.model_path, "the .onnx file; with --url, the model's name on the server")->required();
  AddInputFlags(sub, s.inputs, f.inputs);
  sub.add_option("--batch", s.batch,
                 "samples per run (default: the inputs' own, usually 1); only for a model whose inputs share a batch "
                 "dimension")
      ->capture_default_str();
  sub.add_option("--runs", s.runs, "profiled runs, after the warm-up")->capture_default_str();
  sub.add_option("--warmup-runs", s.warmup_runs, "runs before the profiled ones (not counted)")->capture_default_str();
  AddRuntimeFlags(sub, f.runtime, f.runtime_raw, RuntimeFlagUse::kSingleRun);
  sub.add_option("--url", f.served.remote.url,
                 "profile the served path of a running KServe v2 server at HOST:PORT instead: one short closed-loop "
                 "point split into client send and receive, server queue and compute, and the rest");
  sub.add_option("--protocol", f.protocol, "with --url: http | grpc")->capture_default_str();
  sub.add_option("--concurrency", f.served.concurrency, "with --url: requests outstanding")->capture_default_str();
  sub.add_option("--json", f.json_path, "write the report as JSON to FILE (-: standard output, the text report then "
                                       "going to standard error)");
}

Status Resolve(CLI::App& sub, ProfileFlags& f) {
  HONE_RETURN_IF_ERROR(ApplyInputFlags(f.inputs, f.settings.inputs));
  if (f.served.remote.url.empty()) {
    for (const char* flag : {"--protocol", "--concurrency"})
      if (sub.count(flag)) return Status::InvalidArgument(std::string(flag) + " needs --url");
    HONE_RETURN_IF_ERROR(ApplyRuntimeFlags(f.runtime_raw, f.runtime));
    HONE_ASSIGN_OR_RETURN(f.settings.session, SingleSession(f.runtime, "profile"));
    return f.settings.Validate();
  }
  // The server decides how the model runs; its profile is the split, not ONNX Runtime's trace.
  for (const char* flag : {"--intra-op-threads", "--inter-op-threads", "--execution-mode", "--graph-opt", "--spin",
                           "--arena", "--save-optimized", "--runs", "--warmup-runs"})
    if (sub.count(flag))
      return Status::InvalidArgument(std::string(flag) + " does not apply with --url: the server runs the model "
                                     "(set its runtime in the model's config.pbtxt)");
  if (f.protocol == "http")
    f.served.remote.protocol = bench::RemoteProtocol::kHttp;
  else if (f.protocol == "grpc")
    f.served.remote.protocol = bench::RemoteProtocol::kGrpc;
  else
    return Status::InvalidArgument("--protocol '" + f.protocol + "': expected http or grpc");
  f.served.remote.model = f.settings.model_path;
  f.served.inputs = f.settings.inputs;
  f.served.batch = f.settings.batch;
  if (f.served.batch < 0) return Status::InvalidArgument("--batch " + std::to_string(f.served.batch) + ": expected >= 1");
  return Status::Ok();
}

int Run(CLI::App& sub, ProfileFlags& f) {
  auto fail = [](const Status& s) {
    std::cerr << "hone profile: " << s.message() << "\n";
    return kExitUsage;
  };
  if (Status s = Resolve(sub, f); !s.ok()) return fail(s);
  const bool served = !f.served.remote.url.empty();
  std::vector<std::string> inputs = {f.settings.inputs.data_path};
  if (!served) inputs.push_back(f.settings.model_path);
  if (Status s = RefuseOverwritingInputs({{"--save-optimized", f.runtime.save_optimized_path}}, inputs); !s.ok())
    return fail(s);
  if (Status s = RouteReports({{"--json", f.json_path}}, inputs); !s.ok()) return fail(s);

  nlohmann::json model, body;
  if (served) {
    auto profile = harness::ProfileServed(f.served);
    if (!profile.ok()) return fail(profile.status());
    std::cout << harness::ServedProfileToText(*profile);
    model = onnx::ServedModelJson(f.served.remote.model, f.served.remote.url, f.protocol, profile->metadata);
    body = {{"target", "server"}, {"summary", profile->split.summary}, {"served", harness::ServedProfileToJson(*profile)}};
  } else {
    auto profile = harness::ProfileModel(f.settings);
    if (!profile.ok()) return fail(profile.status());
    std::cout << harness::ProfileToText(*profile);
    if (!f.json_path.empty()) {
      Result<nlohmann::json> file = onnx::ModelFileJson(f.settings.model_path);
      if (!file.ok()) return fail(file.status());
      model = *file;
    }
    body = harness::ProfileToJson(*profile);
    body["target"] = "model";
  }
  if (!f.json_path.empty())
    if (Status s = WriteJsonReport(f.json_path, "profile", model, body); !s.ok()) return fail(s);
  return kExitOk;
}

}  // namespace

Command AddProfileCommand(CLI::App& app) {
  auto flags = std::make_shared<ProfileFlags>();
  CLI::App* sub = app.add_subcommand("profile", "where the time goes: per-operator and per-op-type time from ONNX "
                                                "Runtime's profiler, threads, CPU, memory; with --url, the served "
                                                "path split into queueing, compute, parsing and serialisation");
  sub->footer("Examples:\n"
              "  hone profile models/fashion_mnist/model.onnx\n"
              "  hone profile models/fashion_mnist/model.onnx --data models/fashion_mnist/test.npz --batch 32\n"
              "  hone profile models/fashion_mnist/model.onnx --intra-op-threads 1 --json - | jq .profile.op_types\n"
              "  hone profile fashion_mnist --url 127.0.0.1:8000 --concurrency 8");
  AddFlags(*sub, *flags);
  return [sub, flags] { return Run(*sub, *flags); };
}

}  // namespace hone::cli
