// Running a model under ONNX Runtime's profiler: load with profiling on, warm up, run, end the profile, parse the
// trace (profile_trace.cc) and remove it.
#include "harness/profile.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "bench/bench_runner.h"
#include "bench/resource_usage.h"
#include "runtime/input_pool.h"
#include "runtime/session.h"

namespace hone::harness {
namespace {

// A fresh folder for one trace, removed with whatever ONNX Runtime wrote into it. Declared before the session, so
// that the session (which writes its trace on close if profiling was not ended) is gone before the folder goes.
class TraceDir {
 public:
  static Result<TraceDir> Create(const std::string& parent) {
    static std::atomic<int> counter{0};
    std::error_code ec;
    std::filesystem::path base = parent.empty() ? std::filesystem::temp_directory_path(ec) : std::filesystem::path(parent);
    if (ec) return Status::FailedPrecondition("no temporary folder for the profile trace: " + ec.message());
    if (!parent.empty() && !std::filesystem::is_directory(base, ec))
      return Status::InvalidArgument("profile work folder '" + parent + "': no such folder");
    TraceDir dir;
    dir.path_ = base / ("hone_profile_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    std::filesystem::remove_all(dir.path_, ec);
    if (!std::filesystem::create_directories(dir.path_, ec))
      return Status::FailedPrecondition("cannot create '" + dir.path_.string() + "' for the profile trace: " +
                                        ec.message());
    return dir;
  }
  TraceDir(TraceDir&& other) noexcept : path_(std::move(other.path_)) { other.path_.clear(); }
  TraceDir& operator=(TraceDir&&) = delete;
  ~TraceDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  std::string Prefix() const { return (path_ / "ort_profile").string(); }

 private:
  TraceDir() = default;
  std::filesystem::path path_;
};

Result<std::string> ReadTrace(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound("profile trace '" + path + "': ONNX Runtime wrote no file there");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

Status ProfileSettings::Validate() const {
  if (model_path.empty()) return Status::InvalidArgument("profile: no model given");
  if (runs < 1) return Status::InvalidArgument("--runs " + std::to_string(runs) + ": expected at least 1 run");
  if (warmup_runs < 0)
    return Status::InvalidArgument("--warmup-runs " + std::to_string(warmup_runs) + ": expected >= 0");
  if (batch < 0) return Status::InvalidArgument("--batch " + std::to_string(batch) + ": expected >= 1");
  return session.Validate();
}

Result<ModelProfile> ProfileModel(const ProfileSettings& settings) {
  using Clock = std::chrono::steady_clock;
  HONE_RETURN_IF_ERROR(settings.Validate());
  HONE_ASSIGN_OR_RETURN(TraceDir dir, TraceDir::Create(settings.work_dir));
  runtime::SessionOptions options = settings.session;
  options.profile_prefix = dir.Prefix();

  bench::ResetPeakRss();
  HONE_ASSIGN_OR_RETURN(std::unique_ptr<runtime::Session> session,
                        runtime::Session::Open(settings.model_path, options));
  const int threads = bench::ProcessThreadCount();
  HONE_ASSIGN_OR_RETURN(runtime::InputPool pool, runtime::InputPool::Create(session->metadata(), settings.inputs));
  std::vector<int64_t> asked;
  if (settings.batch > 0) asked.push_back(settings.batch);
  HONE_ASSIGN_OR_RETURN(std::vector<int64_t> batches, bench::ResolveBatches(pool, asked));
  const int64_t batch = batches.front();
  HONE_ASSIGN_OR_RETURN(bench::RequestSet requests, bench::MakeRequests(pool, batch));
  if (requests.empty()) return Status::InvalidArgument("model '" + settings.model_path + "': no inputs to run on");

  auto run = [&](int i) -> Status {
    auto out = session->Run(requests[static_cast<size_t>(i) % requests.size()]);
    return out.ok() ? Status::Ok() : out.status().WithContext("profile run " + std::to_string(i + 1));
  };
  for (int i = 0; i < settings.warmup_runs; ++i) HONE_RETURN_IF_ERROR(run(i));
  const auto cpu0 = bench::ProcessCpuTime();
  const Clock::time_point t0 = Clock::now();
  for (int i = 0; i < settings.runs; ++i) HONE_RETURN_IF_ERROR(run(settings.warmup_runs + i));
  const std::chrono::duration<double> wall = Clock::now() - t0;
  const std::chrono::duration<double> cpu = bench::ProcessCpuTime() - cpu0;
  const uint64_t peak_rss = bench::PeakRssBytes();

  HONE_ASSIGN_OR_RETURN(std::string trace_path, session->EndProfiling());
  HONE_ASSIGN_OR_RETURN(std::string trace, ReadTrace(trace_path));
  HONE_ASSIGN_OR_RETURN(ModelProfile profile, ParseOrtTrace(trace, trace_path, settings.warmup_runs));
  profile.model_path = settings.model_path;
  profile.input_source = pool.description();
  profile.session = options;
  profile.batch = batch;
  profile.process_threads = threads;
  profile.cpu_cores_used = wall.count() > 0 ? cpu.count() / wall.count() : 0;
  profile.peak_rss_bytes = peak_rss;
  return profile;  // the trace goes with `dir`, after the session has closed
}

}  // namespace hone::harness
