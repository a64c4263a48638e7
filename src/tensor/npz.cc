#include "tensor/npz.h"

#include <unordered_set>

#include "tensor/file_io.h"
#include "tensor/npy.h"
#include "tensor/zip_reader.h"
#include "tensor/zip_writer.h"

namespace hone {
namespace {

constexpr std::string_view kSuffix = ".npy";

}  // namespace

Result<std::vector<NamedTensor>> ParseNpz(std::span<const std::byte> bytes, std::string_view what) {
  HONE_ASSIGN_OR_RETURN(std::vector<ZipEntry> entries, ListZipEntries(bytes, what));
  // Check every name before inflating anything, so that a wrong file fails fast.
  for (const ZipEntry& e : entries) {
    if (e.name.size() <= kSuffix.size() || !e.name.ends_with(kSuffix))
      return Status::InvalidArgument(std::string(what) + ": entry '" + e.name +
                                     "': expected a name ending in .npy, as np.savez writes");
  }
  std::vector<NamedTensor> tensors;
  tensors.reserve(entries.size());
  std::vector<std::byte> scratch;
  for (const ZipEntry& e : entries) {
    std::string name = e.name.substr(0, e.name.size() - kSuffix.size());
    HONE_ASSIGN_OR_RETURN(std::span<const std::byte> contents, ReadZipEntry(e, scratch, what));
    HONE_ASSIGN_OR_RETURN(Tensor tensor, ParseNpy(contents, "array '" + name + "' in " + std::string(what)));
    tensors.push_back({std::move(name), std::move(tensor)});
  }
  return tensors;
}

Result<std::vector<NamedTensor>> ReadNpz(const std::string& path) {
  HONE_ASSIGN_OR_RETURN(std::vector<std::byte> bytes, ReadFileBytes(path));
  return ParseNpz(bytes, "file '" + path + "'");
}

Result<std::string> EncodeNpz(const std::vector<NamedTensor>& tensors, bool compress) {
  ZipWriter zip;
  std::unordered_set<std::string_view> names;
  for (const NamedTensor& t : tensors) {
    if (t.name.empty()) return Status::InvalidArgument("npz array name: expected a non-empty name");
    if (!names.insert(t.name).second)
      return Status::InvalidArgument("npz array '" + t.name + "': expected unique names, got it twice");
    auto npy = EncodeNpy(t.tensor);
    if (!npy.ok()) return npy.status().WithContext("npz array '" + t.name + "'");
    HONE_RETURN_IF_ERROR(zip.Add(t.name + std::string(kSuffix), std::as_bytes(std::span(npy->data(), npy->size())),
                                 compress));
  }
  return zip.Finish();
}

Status WriteNpz(const std::string& path, const std::vector<NamedTensor>& tensors, bool compress) {
  auto encoded = EncodeNpz(tensors, compress);
  if (!encoded.ok()) return encoded.status().WithContext("writing '" + path + "'");
  return WriteFileBytes(path, std::as_bytes(std::span(encoded->data(), encoded->size())));
}

}  // namespace hone
