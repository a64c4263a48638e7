#include "report/system_info.h"

#include <sched.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>
#include <set>
#include <sstream>

#include "base/version.h"
#include "runtime/session.h"


namespace hone::report {
namespace {

// Features that change which kernels ONNX Runtime's MLAS picks (and so the speed of int8, fp16 and bf16 paths).
const std::set<std::string>& InterestingFeatures() {
  static const std::set<std::string> kFeatures = {
      "sse4_2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512vl", "avx512_vnni", "avx512_bf16",
      "avx512_fp16", "avx_vnni", "amx_tile", "amx_int8", "amx_bf16", "asimd", "asimddp", "sve", "i8mm", "bf16"};
  return kFeatures;
}

void ReadCpuInfo(SystemInfo& info) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, line.find_last_not_of(" \t", colon - 1) + 1);
    std::string value = colon + 2 <= line.size() ? line.substr(colon + 2) : "";
    if (info.cpu_model.empty() && (key == "model name" || key == "Model")) info.cpu_model = value;
    if (info.cpu_features.empty() && (key == "flags" || key == "Features")) {
      std::istringstream words(value);
      std::string w;
      while (words >> w)
        if (InterestingFeatures().count(w)) info.cpu_features.push_back(w);
    }
  }
}

uint64_t ReadMemTotal() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  uint64_t kib = 0;
  while (in >> key >> kib) {
    if (key == "MemTotal:") return kib * 1024;
    in.ignore(256, '\n');
  }
  return 0;
}

}  // namespace

SystemInfo ReadSystemInfo() {
  SystemInfo info;
  ReadCpuInfo(info);
  cpu_set_t set;
  info.logical_cores = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set)
                                                                    : static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  info.memory_bytes = ReadMemTotal();
  utsname u{};
  if (uname(&u) == 0) {
    info.kernel = std::string(u.sysname) + " " + u.release + " " + u.machine;
    info.hostname = u.nodename;
  }
  info.onnxruntime_version = runtime::OrtVersion();
  info.hone_version = std::string(HoneVersion());
#if defined(__clang__)
  info.compiler = "clang " __clang_version__;
#elif defined(__GNUC__)
  info.compiler = "gcc " __VERSION__;
#endif
  return info;
}

std::string DescribeMachine(const SystemInfo& s) {
  return s.cpu_model + ", " + std::to_string(s.logical_cores) + " logical cores, " + s.kernel + ", hone " +
         s.hone_version + ", " + s.compiler;
}

}  // namespace hone::report
