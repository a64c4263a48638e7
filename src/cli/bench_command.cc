// hone bench MODEL: the in-process benchmark, from flags to report.
#include <unistd.h>

#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "base/log.h"
#include "base/progress.h"
#include "bench/bench_runner.h"
#include "bench/interrupt.h"
#include "bench/llm_bench.h"
#include "bench/remote_client.h"
#include "bench/remote_runner.h"
#include "bench/report.h"
#include "cli/commands.h"
#include "cli/common_flags.h"
#include "cli/report_output.h"
#include "harness/in_process_client.h"
#include "onnx/model_json.h"

namespace hone::cli {
namespace {

struct BenchFlags {
  bench::BenchSettings settings;
  InputFlags inputs;
  RuntimeFlags runtime;
  std::string arrival = "poisson";
  double window_ms = 1000;
  double max_window_ms = 60000;
  double tolerance_percent = 10;
  std::string json_path, csv_path;
  bool quiet = false;
  bench::RemoteSettings remote;  // with --url
  std::string repository;        // with --model-repository
  std::string protocol = "http";
  std::string tensors = "binary";
  // --protocol openai: an LLM server through streamed completions (bench/llm_bench.h)
  bench::LlmBenchSettings llm;
  std::string api = "completions";
  std::string slo;
};

// "ttft<=500ms,tpot<=50ms" (units ms or s; ms when none).
Status ParseLlmSlo(const std::string& text, bench::LlmBenchSettings& s) {
  size_t start = 0;
  while (start < text.size()) {
    size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    start = comma == std::string::npos ? text.size() : comma + 1;
    const size_t op = item.find("<=");
    if (op == std::string::npos)
      return Status::InvalidArgument("--slo '" + item + "': expected ttft<=VALUE or tpot<=VALUE (ms or s)");
    const std::string name = item.substr(0, op);
    std::string value = item.substr(op + 2);
    double scale = 1;
    if (value.ends_with("ms")) {
      value.resize(value.size() - 2);
    } else if (value.ends_with("s")) {
      value.resize(value.size() - 1);
      scale = 1000;
    }
    char* end = nullptr;
    const double v = std::strtod(value.c_str(), &end);
    if (value.empty() || end != value.c_str() + value.size() || !(v > 0))
      return Status::InvalidArgument("--slo '" + item + "': the bound must be a positive number of ms or s");
    if (name == "ttft")
      s.slo_ttft_ms = v * scale;
    else if (name == "tpot")
      s.slo_tpot_ms = v * scale;
    else
      return Status::InvalidArgument("--slo '" + item + "': the LLM bounds are ttft and tpot");
  }
  return Status::Ok();
}

// Which load mode the flags ask for: --rate is open loop, --concurrency closed loop, --batch alone offline.
Status ResolveMode(CLI::App& sub, BenchFlags& f) {
  bool rate = sub.count("--rate") > 0, concurrency = sub.count("--concurrency") > 0, batch = sub.count("--batch") > 0;
  if (rate && concurrency)
    return Status::InvalidArgument("give --rate (open loop) or --concurrency (closed loop), not both");
  if (rate)
    f.settings.mode = bench::LoadMode::kOpenLoop;
  else if (!concurrency && batch)
    f.settings.mode = bench::LoadMode::kOffline;
  else
    f.settings.mode = bench::LoadMode::kClosedLoop;
  if (f.arrival == "poisson")
    f.settings.arrival = bench::ArrivalProcess::kPoisson;
  else if (f.arrival == "constant")
    f.settings.arrival = bench::ArrivalProcess::kConstant;
  else
    return Status::InvalidArgument("--arrival '" + f.arrival + "': expected poisson or constant");
  if (f.protocol == "http") {
    f.remote.protocol = bench::RemoteProtocol::kHttp;
  } else if (f.protocol == "grpc") {
    f.remote.protocol = bench::RemoteProtocol::kGrpc;
  } else if (f.protocol != "openai") {
    return Status::InvalidArgument("--protocol '" + f.protocol + "': expected http, grpc or openai");
  }
  if (f.tensors != "binary" && f.tensors != "json")
    return Status::InvalidArgument("--tensors '" + f.tensors + "': expected binary or json");
  f.remote.binary = f.tensors == "binary";
  if (!f.repository.empty() && !f.remote.url.empty())
    return Status::InvalidArgument("give --url (a running server) or --model-repository (one in this process), not "
                                   "both");
  if (f.remote.url.empty()) {
    for (const char* flag : {"--protocol", "--tensors"})
      if (sub.count(flag)) return Status::InvalidArgument(std::string(flag) + " needs --url");
    if (sub.count("--model-version") && f.repository.empty())
      return Status::InvalidArgument("--model-version needs --url or --model-repository");
  }
  if (!f.remote.url.empty() || !f.repository.empty()) {
    f.remote.model = f.settings.model_path;
    // The server decides how the model runs; a runtime flag here would be silently meaningless.
    for (const char* flag : {"--intra-op-threads", "--inter-op-threads", "--execution-mode", "--graph-opt", "--spin",
                             "--arena", "--save-optimized"})
      if (sub.count(flag))
        return Status::InvalidArgument(std::string(flag) + " does not apply with --url: set it in the model's "
                                       "config.pbtxt on the server");
    if (f.remote.protocol == bench::RemoteProtocol::kGrpc && sub.count("--tensors"))
      return Status::InvalidArgument("--tensors applies to HTTP only (gRPC always sends raw tensor bytes)");
  }
  f.settings.run.window_s = f.window_ms / 1000.0;
  f.settings.run.max_window_s = f.max_window_ms / 1000.0;
  f.settings.run.stability.tolerance = f.tolerance_percent / 100.0;
  return Status::Ok();
}

void AddFlags(CLI::App& sub, BenchFlags& f) {
  bench::BenchSettings& s = f.settings;
  sub.add_option("model", s.model_path,
                 "the .onnx file; with --url or --model-repository, the model's name")
      ->required();
  sub.add_option("--url", f.remote.url, "measure a running KServe v2 server at HOST:PORT instead of in process");
  sub.add_option("--protocol", f.protocol,
                 "with --url: http | grpc (KServe v2) | openai (an LLM server: streamed completions, TTFT/ITL/TPOT)")
      ->capture_default_str();
  sub.add_option("--api", f.api, "with --protocol openai: completions | chat")->capture_default_str();
  sub.add_option("--input-tokens", f.llm.input_tokens, "with --protocol openai: synthetic prompts' length in tokens")
      ->capture_default_str();
  sub.add_option("--output-tokens", f.llm.output_tokens,
                 "with --protocol openai: tokens each request generates (max_tokens, with ignore_eos)")
      ->capture_default_str();
  sub.add_option("--tokenizer", f.llm.tokenizer_path,
                 "with --protocol openai: the model's tokenizer.json, for synthetic prompts of exact length");
  sub.add_option("--prompts", f.llm.prompts_path,
                 "with --protocol openai: prompts to send in turn (.txt one a line, .jsonl one JSON string a line)");
  sub.add_option("--requests", f.llm.requests,
                 "with --protocol openai: measured requests per point (0: max(16, 4 x concurrency))")
      ->capture_default_str();
  sub.add_option("--slo", f.slo, "with --protocol openai: goodput bounds, e.g. ttft<=500ms,tpot<=50ms");
  sub.add_option("--tensors", f.tensors, "with --url over HTTP: binary (the binary data extension) | json")
      ->capture_default_str();
  sub.add_option("--model-repository", f.repository,
                 "measure the repository's model MODEL in this process, through hone serve's scheduler, batcher "
                 "and statistics without the network: an ensemble with its processing stages, each step's share "
                 "reported");
  sub.add_option("--model-version", f.remote.version,
                 "with --url or --model-repository: the version to use (0: the server picks)")
      ->capture_default_str();
  AddInputFlags(sub, s.inputs, f.inputs);
  sub.add_option("--concurrency", s.concurrency, "closed loop: requests outstanding (list, e.g. 1,2,4,8)")
      ->delimiter(',');
  sub.add_option("--rate", s.rates, "open loop: arrivals per second (list, e.g. 100,500)")->delimiter(',');
  sub.add_option("--batch", s.batch_sizes,
                 "samples per request (list); alone, it selects offline mode. Only for a model whose inputs share "
                 "a batch dimension (dimension 0 of every input dynamic with one name, or fixed to one size); "
                 "otherwise each request is one sample of whole tensors")
      ->delimiter(',');
  sub.add_option("--arrival", f.arrival, "open loop arrivals: poisson|constant")->capture_default_str();
  sub.add_option("--arrival-seed", s.arrival_seed, "seed for Poisson arrivals")->capture_default_str();
  sub.add_option("--workers", s.open_loop_workers, "open loop: sending threads (0: 64)")->capture_default_str();
  sub.add_option("--warmup-requests", s.run.warmup_requests, "warm-up requests (not measured)")
      ->capture_default_str();
  sub.add_option("--warmup-s", s.run.warmup_s, "warm-up seconds (not measured)")->capture_default_str();
  sub.add_option("--window-ms", f.window_ms, "length of one measurement window (the shortest: see --max-window-ms)")
      ->capture_default_str();
  sub.add_option("--max-window-ms", f.max_window_ms,
                 "for a slow target, windows grow from --window-ms to hold a handful of requests (from the warm-up's "
                 "latency), up to this; warm-up waits for its requests at most this long too")
      ->capture_default_str();
  sub.add_option("--stability-windows", s.run.stability.windows, "windows that must agree")->capture_default_str();
  sub.add_option("--stability-percent", f.tolerance_percent, "how closely they must agree, +-%")
      ->capture_default_str();
  sub.add_option("--max-windows", s.run.stability.max_windows, "give up (unstable, exit 1) after this many windows")
      ->capture_default_str();
  sub.add_option("--min-duration-s", s.run.stability.min_duration_s, "least measured seconds (reported windows)")
      ->capture_default_str();
  sub.add_option("--min-requests", s.run.stability.min_requests, "least measured requests (reported windows)")
      ->capture_default_str();
  AddRuntimeFlags(sub, s.runtime, f.runtime, RuntimeFlagUse::kSweep);
  sub.add_option("--cost-per-hour", s.cost_per_hour, "the machine's price per hour, for cost per 1,000 predictions");
  sub.add_option("--json", f.json_path, "write the report as JSON to FILE (-: standard output, the text report then "
                                       "going to standard error)");
  sub.add_option("--csv", f.csv_path, "write one row per point as CSV to FILE or - (perf_analyzer's column names)");
  sub.add_flag("--quiet", f.quiet, "no progress on standard error (Ctrl-C still reports the points that finished)");
}

// --protocol openai: the LLM benchmark.
int RunLlm(CLI::App& sub, BenchFlags& f) {
  auto fail = [](const Status& s) {
    std::cerr << "hone bench: " << s.message() << "\n";
    return kExitUsage;
  };
  bench::LlmBenchSettings& s = f.llm;
  if (f.remote.url.empty()) return fail(Status::InvalidArgument("--protocol openai needs --url HOST:PORT"));
  for (const char* flag : {"--batch", "--data", "--tensors", "--model-repository", "--model-version", "--csv"})
    if (sub.count(flag)) return fail(Status::InvalidArgument(std::string(flag) + " does not apply to --protocol openai"));
  if (f.api != "completions" && f.api != "chat")
    return fail(Status::InvalidArgument("--api '" + f.api + "': expected completions or chat"));
  if (Status st = bench::ParseUrl(f.remote.url, &s.host, &s.port); !st.ok()) return fail(st);
  s.model = f.settings.model_path;
  s.chat = f.api == "chat";
  if (sub.count("--concurrency")) s.concurrency = f.settings.concurrency;
  s.rates = f.settings.rates;
  if (sub.count("--concurrency") && sub.count("--rate"))
    return fail(Status::InvalidArgument("give --rate (open loop) or --concurrency (closed loop), not both"));
  if (s.concurrency.empty() && s.rates.empty()) s.concurrency = {1};
  s.arrival = f.arrival == "constant" ? bench::ArrivalProcess::kConstant : bench::ArrivalProcess::kPoisson;
  s.seed = f.settings.arrival_seed;
  if (sub.count("--warmup-requests")) s.warmup_requests = f.settings.run.warmup_requests;
  s.tolerance = f.tolerance_percent / 100.0;
  if (Status st = ParseLlmSlo(f.slo, s); !st.ok()) return fail(st);
  if (Status st = RouteReports({{"--json", f.json_path}}, {s.tokenizer_path, s.prompts_path}); !st.ok()) return fail(st);
  std::unique_ptr<Progress> progress = f.quiet ? nullptr : Progress::ForStderr("point");
  bench::InterruptScope interrupt;
  auto report = bench::RunLlmBench(s, interrupt.flag(), [&progress](const std::string& what) {
    if (progress) progress->Update(what);
  });
  if (progress) progress->Finish();
  if (!report.ok()) return fail(report.status());
  std::cout << bench::LlmReportToText(*report);
  int code = kExitOk;
  int64_t errors = 0;
  for (const auto& p : report->points) errors += p.errors;
  if (errors > 0) {
    std::cerr << "hone bench: some requests failed; see the report above\n";
    code = kExitCheckFailed;
  }
  if (!f.json_path.empty()) {
    // An LLM server describes no tensors: inputs and outputs are empty.
    nlohmann::json model = onnx::ServedModelJson(s.model, f.remote.url, "openai", runtime::ModelMetadata{});
    if (Status st = WriteJsonReport(f.json_path, "bench", model, bench::LlmReportToJson(*report)); !st.ok())
      code = fail(st);
  }
  if (report->interrupted && code != kExitUsage) code = bench::kExitInterrupted;
  return code;
}

int Run(CLI::App& sub, BenchFlags& f) {
  auto fail = [](const Status& s) {
    std::cerr << "hone bench: " << s.message() << "\n";
    return kExitUsage;
  };
  if (f.protocol == "openai") return RunLlm(sub, f);
  for (const char* flag : {"--api", "--input-tokens", "--output-tokens", "--tokenizer", "--prompts", "--requests", "--slo"})
    if (sub.count(flag)) return fail(Status::InvalidArgument(std::string(flag) + " needs --protocol openai"));
  if (Status s = ResolveMode(sub, f); !s.ok()) return fail(s);
  if (Status s = ApplyInputFlags(f.inputs, f.settings.inputs); !s.ok()) return fail(s);
  if (Status s = ApplyRuntimeFlags(f.runtime, f.settings.runtime); !s.ok()) return fail(s);
  if (Status s = RefuseOverwritingInputs({{"--save-optimized", f.settings.runtime.save_optimized_path}},
                                         {f.settings.model_path, f.settings.inputs.data_path});
      !s.ok())
    return fail(s);
  if (Status s = RouteReports({{"--json", f.json_path}, {"--csv", f.csv_path}},
                              {f.settings.model_path, f.settings.inputs.data_path});
      !s.ok())
    return fail(s);

  // Progress on standard error: one updating line on a terminal, one line per finished point when piped.
  std::unique_ptr<Progress> progress = f.quiet ? nullptr : Progress::ForStderr("point");
  // Quiet means quiet: the in-process server's information lines (model loads, thread splits) go too; its warnings
  // and errors still show.
  if (f.quiet && !f.repository.empty()) SetMinLogLevel(LogLevel::kWarning);
  bench::RunnerHooks hooks;
  hooks.progress = progress.get();
  if (progress) hooks.status = [&progress](const std::string& s) { progress->Update(s); };
  // Ctrl-C stops the sweep and still reports the points that finished; a second Ctrl-C quits at once.
  bench::InterruptScope interrupt;
  hooks.stop = interrupt.flag();
  auto report = !f.repository.empty()
                    ? harness::RunRepositoryBench(f.settings, f.repository, f.settings.model_path, f.remote.version, hooks)
                : f.remote.url.empty() ? bench::RunBench(f.settings, hooks)
                                       : bench::RunRemoteBench(f.settings, f.remote, hooks);
  if (progress) progress->Finish();
  if (!report.ok()) return fail(report.status());

  std::cout << bench::ReportToText(*report);
  int code = kExitOk;
  if (!report->all_stable() || report->total_errors() > 0) {
    std::cerr << "hone bench: " << (report->all_stable() ? "" : "some points were unstable; ")
              << (report->total_errors() ? "some requests failed; " : "") << "see the report above\n";
    code = kExitCheckFailed;
  }
  if (!f.json_path.empty()) {
    Result<nlohmann::json> model =
        !f.repository.empty()
            ? Result<nlohmann::json>(onnx::ServedModelJson(f.settings.model_path, "in process: " + f.repository,
                                                           "in-process", report->model_metadata))
        : f.remote.url.empty()
            ? onnx::ModelFileJson(f.settings.model_path)
            : Result<nlohmann::json>(onnx::ServedModelJson(f.remote.model, f.remote.url, f.protocol,
                                                           report->model_metadata));
    Status s = model.ok() ? WriteJsonReport(f.json_path, "bench", *model, bench::ReportToJson(*report))
                          : model.status();
    if (!s.ok()) code = fail(s);
  }
  if (!f.csv_path.empty())
    if (Status s = WriteReport(f.csv_path, bench::ReportToCsv(*report)); !s.ok()) code = fail(s);
  if (report->interrupted) {
    std::cerr << fmt::format("hone bench: interrupted: {} of {} points finished and are reported; {} did not run\n",
                             report->points.size(), report->points.size() + report->points_not_run.size(),
                             report->points_not_run.size());
    if (code != kExitUsage) code = bench::kExitInterrupted;
  }
  return code;
}

}  // namespace

Command AddBenchCommand(CLI::App& app) {
  auto flags = std::make_shared<BenchFlags>();
  CLI::App* sub = app.add_subcommand("bench", "measure a model in process, or a server with --url: latency "
                                              "percentiles, throughput, CPU, memory, cold start, cost");
  sub->footer("Examples:\n"
                 "  hone bench models/fashion_mnist/model.onnx --concurrency 1,8 --json report.json\n"
                 "  hone bench models/fashion_mnist/model.onnx --rate 500,1000\n"
                 "  hone bench models/fashion_mnist/model.onnx --batch 1,32 --intra-op-threads 1,2\n"
                 "  hone bench fashion_mnist --url 127.0.0.1:8000 --concurrency 1,8 --csv pa.csv\n"
                 "  hone bench minilm --model-repository examples/text-embedding --data texts.txt --concurrency 1,16\n"
                 "  hone bench smollm2 --url 127.0.0.1:8000 --protocol openai --concurrency 1,4 --input-tokens 128 "
                 "--output-tokens 64");
  AddFlags(*sub, *flags);
  return [sub, flags] { return Run(*sub, *flags); };
}

}  // namespace hone::cli
