// What a measurement ran on: the machine and the software. Every report carries it.
#pragma once

#include <string>
#include <vector>

namespace hone::report {

struct SystemInfo {
  std::string cpu_model;                  // "AMD EPYC 9R14 96-Core Processor"
  int logical_cores = 0;                  // cores this process may run on (its affinity mask)
  std::vector<std::string> cpu_features;  // the instruction-set features that matter for inference (avx2, ...)
  uint64_t memory_bytes = 0;              // physical memory
  std::string kernel;                     // "Linux 6.1.0-18-amd64 x86_64"
  std::string hostname;
  std::string onnxruntime_version;        // of the library loaded at run time
  std::string hone_version;
  std::string compiler;
};

// Reads /proc and uname once; fields it cannot read stay empty.
SystemInfo ReadSystemInfo();

// One line for a text report: "AMD EPYC 9R14 96-Core Processor, 2 logical cores, Linux 6.1.0 x86_64, hone 0.1.0,
// GCC 12.2.0".
std::string DescribeMachine(const SystemInfo& info);

}  // namespace hone::report
