// Faults in the pages of the files a loaded model maps: ONNX Runtime maps a model's page-aligned external data
// (hone quantize --external-data) instead of copying it, and a mapped page becomes resident only when first read.
// Left lazy, an LLM's embedding rows came in one token at a time under load: memory that is the model's showed up
// as growth per request, and the first requests paid page faults (from disk when the file was not cached). Faulted
// in at load, the weights are resident from the start, as llama.cpp's warm-up leaves its mapped GGUF.
#pragma once

#include <cstdint>
#include <filesystem>

#include "base/result.h"

namespace hone::runtime {

// Makes resident every readable page of this process's mappings of files in `dir` (compared after resolving
// links, as /proc/self/maps names the files), with MADV_POPULATE_READ or, where the kernel lacks it (before 5.14),
// by reading a byte of each page. Returns the bytes of the mappings it populated; NotFound when /proc/self/maps
// cannot be read.
Result<int64_t> PrefaultMappedFiles(const std::filesystem::path& dir);

}  // namespace hone::runtime
