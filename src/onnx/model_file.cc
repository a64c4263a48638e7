#include "onnx/model_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>

#include "onnx/onnx_pb.h"

namespace hone::onnx {
namespace {

Status NotAModel(const std::string& path, const std::string& why) {
  return Status::InvalidArgument("'" + path + "' is not an ONNX model: " + why);
}

}  // namespace

Status CheckLooksLikeModel(const ::onnx::ModelProto& model) {
  if (model.ir_version() <= 0) return Status::InvalidArgument("it has no IR version (ir_version must be > 0)");
  if (!model.has_graph()) return Status::InvalidArgument("it has no graph");
  if (model.graph().output_size() == 0) return Status::InvalidArgument("its graph has no outputs");
  if (model.ir_version() >= 3 && model.opset_import_size() == 0)
    return Status::InvalidArgument("it has no opset_import (required from IR version 3)");
  return Status::Ok();
}

Status ReadModelProto(const std::string& path, ::onnx::ModelProto* model) {
  model->Clear();
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::NotFound("cannot open model file '" + path + "': " + std::strerror(errno));
  // From here the stream owns fd and closes it on every path.
  google::protobuf::io::FileInputStream raw(fd);
  raw.SetCloseOnDelete(true);

  struct stat st {};
  if (::fstat(fd, &st) != 0) return Status::NotFound("cannot stat model file '" + path + "': " + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) return NotAModel(path, "it is a directory");
  if (!S_ISREG(st.st_mode)) return NotAModel(path, "it is not a regular file");
  if (st.st_size == 0) return NotAModel(path, "the file is empty");
  if (st.st_size > INT_MAX)
    return Status::InvalidArgument("'" + path + "' is " + std::to_string(st.st_size) +
                                   " bytes, over protobuf's 2 GiB limit; models that large must keep their "
                                   "weights in external data files");

  bool parsed = false;
  int64_t consumed = 0;
  {
    google::protobuf::io::CodedInputStream coded(&raw);
    // The default limit (64 MiB in older protobufs) would reject ordinary large models; 2 GiB is the format's own.
    coded.SetTotalBytesLimit(INT_MAX);
    parsed = model->ParseFromCodedStream(&coded);
    consumed = coded.CurrentPosition();
  }
  if (raw.GetErrno() != 0)
    return Status::NotFound("cannot read model file '" + path + "': " + std::strerror(raw.GetErrno()));
  if (!parsed) return NotAModel(path, "the bytes are not a protobuf ModelProto");
  // A stray zero byte or end-group tag ends a protobuf parse early but "successfully"; a model uses every byte.
  if (consumed != st.st_size)
    return NotAModel(path, "parsing stopped at byte " + std::to_string(consumed) + " of " +
                               std::to_string(st.st_size));
  Status plausible = CheckLooksLikeModel(*model);
  if (!plausible.ok()) return NotAModel(path, plausible.message());
  return Status::Ok();
}

}  // namespace hone::onnx
