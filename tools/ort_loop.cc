// ort_loop: the bare baseline for `hone bench`. One ONNX Runtime session, one preallocated input tensor per model
// input, and session.Run in a tight loop on the calling thread; nothing of hone, so that the ratio
// hone/ort_loop shows what hone's in-process bench costs on top of ONNX Runtime itself.
//
//   ort_loop MODEL --batch B --intra-op-threads N --seconds S --warmup-s W
//
// Prints one JSON line:
//   {"batch":B,"intra_op_threads":N,"runs":R,"seconds":S,"requests_per_s":..,"samples_per_s":..,"p50_us":..,
//    "p99_us":..}
// Exit codes: 0 ok, 1 the model failed to load or run, 2 bad usage.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include <onnxruntime_cxx_api.h>

namespace {

using Clock = std::chrono::steady_clock;

struct Args {
  std::string model;
  int64_t batch = 1;
  int intra_op_threads = 0;
  double seconds = 3.0;
  double warmup_s = 1.0;
};

[[noreturn]] void Usage(const std::string& problem) {
  if (!problem.empty()) std::fprintf(stderr, "ort_loop: %s\n", problem.c_str());
  std::fprintf(stderr,
               "usage: ort_loop MODEL [--batch B] [--intra-op-threads N] [--seconds S] [--warmup-s W]\n"
               "  runs ONNX Runtime's Session::Run in a loop on one preallocated input at batch B for S seconds\n"
               "  (after W seconds of warm-up) and prints one JSON line of throughput and p50/p99 latency\n"
               "  defaults: --batch 1 --intra-op-threads 0 (ONNX Runtime's default) --seconds 3 --warmup-s 1\n");
  std::exit(2);
}

double ParseNumber(const std::string& flag, const char* text) {
  char* end = nullptr;
  double v = std::strtod(text, &end);
  if (end == text || *end != '\0') Usage(flag + ": expected a number, got '" + text + "'");
  return v;
}

Args ParseArgs(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") Usage("");
    if (arg.rfind("--", 0) == 0) {
      if (i + 1 >= argc) Usage(arg + ": expected a value");
      double v = ParseNumber(arg, argv[++i]);
      if (arg == "--batch") {
        if (v < 1 || v != static_cast<int64_t>(v)) Usage("--batch: expected a whole number >= 1");
        a.batch = static_cast<int64_t>(v);
      } else if (arg == "--intra-op-threads") {
        if (v < 0 || v != static_cast<int>(v)) Usage("--intra-op-threads: expected a whole number >= 0");
        a.intra_op_threads = static_cast<int>(v);
      } else if (arg == "--seconds") {
        if (!(v > 0)) Usage("--seconds: expected a number > 0");
        a.seconds = v;
      } else if (arg == "--warmup-s") {
        if (!(v >= 0)) Usage("--warmup-s: expected a number >= 0");
        a.warmup_s = v;
      } else {
        Usage("unknown flag '" + arg + "'");
      }
    } else if (a.model.empty()) {
      a.model = arg;
    } else {
      Usage("unexpected argument '" + arg + "' (one model only)");
    }
  }
  if (a.model.empty()) Usage("expected a MODEL (.onnx file)");
  return a;
}

// One input's buffer and the Ort::Value over it; the buffer outlives the value.
struct Input {
  std::string name;
  std::vector<int64_t> shape;
  std::vector<std::byte> buffer;
  Ort::Value value{nullptr};
};

// Deterministic values in [0,1): a fixed linear congruential sequence, the same on every run.
template <typename T>
void FillUnit(std::vector<std::byte>& buffer, size_t count) {
  T* out = reinterpret_cast<T*>(buffer.data());
  uint32_t state = 12345;
  for (size_t i = 0; i < count; ++i) {
    state = state * 1664525u + 1013904223u;
    out[i] = static_cast<T>(static_cast<double>(state >> 8) / static_cast<double>(1u << 24));
  }
}

// Builds the input for model input `index` at `batch`; an error message in `error` if it cannot.
bool MakeInput(Ort::Session& session, size_t index, int64_t batch, const Ort::MemoryInfo& memory, Input& input,
               std::string& error) {
  Ort::AllocatorWithDefaultOptions allocator;
  input.name = session.GetInputNameAllocated(index, allocator).get();
  Ort::TypeInfo type_info = session.GetInputTypeInfo(index);
  if (type_info.GetONNXType() != ONNX_TYPE_TENSOR) {
    error = "input '" + input.name + "': not a tensor; ort_loop feeds tensors only";
    return false;
  }
  auto tensor_info = type_info.GetTensorTypeAndShapeInfo();
  input.shape = tensor_info.GetShape();
  if (input.shape.empty()) {
    error = "input '" + input.name + "': a scalar; expected a batch dimension first";
    return false;
  }
  input.shape[0] = batch;
  for (size_t d = 1; d < input.shape.size(); ++d) {
    if (input.shape[d] < 0) {
      error = "input '" + input.name + "': dimension " + std::to_string(d) +
              " is dynamic; ort_loop fixes only the first (batch) dimension";
      return false;
    }
  }
  size_t count = 1;
  for (int64_t d : input.shape) count *= static_cast<size_t>(d);

  ONNXTensorElementDataType type = tensor_info.GetElementType();
  size_t element_size = 0;
  switch (type) {
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT: element_size = sizeof(float); break;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE: element_size = sizeof(double); break;
    // Integers and booleans: zeros, the only whole value in [0,1).
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8: element_size = 1; break;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT16:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT16: element_size = 2; break;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT32: element_size = 4; break;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64:
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT64: element_size = 8; break;
    default:
      error = "input '" + input.name + "': element type " + std::to_string(static_cast<int>(type)) +
              " is not supported; ort_loop feeds float, double, integer and bool inputs";
      return false;
  }
  input.buffer.assign(count * element_size, std::byte{0});
  if (type == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT) FillUnit<float>(input.buffer, count);
  if (type == ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE) FillUnit<double>(input.buffer, count);
  input.value = Ort::Value::CreateTensor(memory, input.buffer.data(), input.buffer.size(), input.shape.data(),
                                         input.shape.size(), type);
  return true;
}

double Percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0.0;
  size_t rank = static_cast<size_t>(p / 100.0 * static_cast<double>(sorted.size() - 1) + 0.5);
  return sorted[std::min(rank, sorted.size() - 1)];
}

int Run(const Args& args) {
  Ort::Env env(ORT_LOGGING_LEVEL_WARNING, "ort_loop");
  Ort::SessionOptions options;
  options.SetIntraOpNumThreads(args.intra_op_threads);
  options.SetGraphOptimizationLevel(ORT_ENABLE_ALL);
  options.SetExecutionMode(ORT_SEQUENTIAL);
  Ort::Session session(env, args.model.c_str(), options);

  Ort::MemoryInfo memory = Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault);
  std::vector<Input> inputs(session.GetInputCount());
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::string error;
    if (!MakeInput(session, i, args.batch, memory, inputs[i], error)) {
      std::fprintf(stderr, "ort_loop: model '%s': %s\n", args.model.c_str(), error.c_str());
      return 2;
    }
  }
  std::vector<const char*> input_names;
  std::vector<Ort::Value> input_values;
  for (Input& in : inputs) {
    input_names.push_back(in.name.c_str());
    input_values.push_back(Ort::Value{in.value.release()});  // moved: the buffers stay in `inputs`
  }
  Ort::AllocatorWithDefaultOptions allocator;
  std::vector<std::string> output_name_strings;
  for (size_t i = 0; i < session.GetOutputCount(); ++i)
    output_name_strings.push_back(session.GetOutputNameAllocated(i, allocator).get());
  std::vector<const char*> output_names;
  for (const std::string& n : output_name_strings) output_names.push_back(n.c_str());

  Ort::RunOptions run_options;
  auto run_once = [&] {
    return session.Run(run_options, input_names.data(), input_values.data(), input_values.size(),
                       output_names.data(), output_names.size());
  };

  // Warm-up: at least one run, then until W seconds have passed. Not measured.
  auto warmup = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(args.warmup_s));
  Clock::time_point warmup_start = Clock::now();
  do run_once();
  while (Clock::now() - warmup_start < warmup);

  auto length = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(args.seconds));
  std::vector<double> latencies_us;
  latencies_us.reserve(1 << 20);
  Clock::time_point start = Clock::now();
  Clock::time_point now = start;
  while (now - start < length) {
    Clock::time_point t0 = now;
    run_once();  // outputs are freed here, as a caller that reads and drops them would
    now = Clock::now();
    latencies_us.push_back(std::chrono::duration<double, std::micro>(now - t0).count());
  }
  double measured_s = std::chrono::duration<double>(now - start).count();

  std::sort(latencies_us.begin(), latencies_us.end());
  double runs = static_cast<double>(latencies_us.size());
  double requests_per_s = runs / measured_s;
  std::printf(
      "{\"batch\":%lld,\"intra_op_threads\":%d,\"runs\":%zu,\"seconds\":%.6f,\"requests_per_s\":%.3f,"
      "\"samples_per_s\":%.3f,\"p50_us\":%.3f,\"p99_us\":%.3f}\n",
      static_cast<long long>(args.batch), args.intra_op_threads, latencies_us.size(), measured_s, requests_per_s,
      requests_per_s * static_cast<double>(args.batch), Percentile(latencies_us, 50), Percentile(latencies_us, 99));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Args args = ParseArgs(argc, argv);
  try {
    return Run(args);
  } catch (const Ort::Exception& e) {
    std::fprintf(stderr, "ort_loop: model '%s': %s\n", args.model.c_str(), e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ort_loop: %s\n", e.what());
    return 1;
  }
}
