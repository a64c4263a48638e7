#include <cerrno>
#include <cstring>
#include <fstream>

#include "bench/report.h"

namespace hone::bench {

Status WriteTextFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return Status::NotFound("cannot write '" + path + "': " + std::strerror(errno));
  out << text;
  out.close();
  if (!out) return Status::Internal("writing '" + path + "' failed");
  return Status::Ok();
}

}  // namespace hone::bench
