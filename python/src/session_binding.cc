#include "session_binding.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "runtime/session.h"
#include "status_binding.h"

namespace nb = nanobind;

namespace hone::python {
namespace {

using InputArray = nb::ndarray<nb::ro, nb::c_contig, nb::device::cpu>;
using OutputArray = nb::ndarray<nb::numpy>;

struct DtypeName {
  DataType type;
  nb::dlpack::dtype dlpack;
  const char* numpy;  // numpy's name for it; bfloat16 has none in numpy itself
};
constexpr uint8_t kInt = static_cast<uint8_t>(nb::dlpack::dtype_code::Int);
constexpr uint8_t kUInt = static_cast<uint8_t>(nb::dlpack::dtype_code::UInt);
constexpr uint8_t kFloat = static_cast<uint8_t>(nb::dlpack::dtype_code::Float);
constexpr uint8_t kBfloat = static_cast<uint8_t>(nb::dlpack::dtype_code::Bfloat);
constexpr uint8_t kBool = static_cast<uint8_t>(nb::dlpack::dtype_code::Bool);
constexpr DtypeName kDtypes[] = {
    {DataType::kBool, {kBool, 8, 1}, "bool"},        {DataType::kUint8, {kUInt, 8, 1}, "uint8"},
    {DataType::kUint16, {kUInt, 16, 1}, "uint16"},   {DataType::kUint32, {kUInt, 32, 1}, "uint32"},
    {DataType::kUint64, {kUInt, 64, 1}, "uint64"},   {DataType::kInt8, {kInt, 8, 1}, "int8"},
    {DataType::kInt16, {kInt, 16, 1}, "int16"},      {DataType::kInt32, {kInt, 32, 1}, "int32"},
    {DataType::kInt64, {kInt, 64, 1}, "int64"},      {DataType::kFp16, {kFloat, 16, 1}, "float16"},
    {DataType::kBf16, {kBfloat, 16, 1}, "bfloat16"}, {DataType::kFp32, {kFloat, 32, 1}, "float32"},
    {DataType::kFp64, {kFloat, 64, 1}, "float64"},
};

const DtypeName* ByType(DataType t) {
  for (const DtypeName& d : kDtypes)
    if (d.type == t) return &d;
  return nullptr;
}
const DtypeName* ByDlpack(nb::dlpack::dtype t) {
  for (const DtypeName& d : kDtypes)
    if (d.dlpack == t) return &d;
  return nullptr;
}
std::string NumpyName(const runtime::IoSpec& io) {
  if (const DtypeName* d = ByType(io.type)) return d->numpy;
  return io.type == DataType::kBytes ? "bytes" : io.onnx_type;
}

// One model input or output as Python sees it: (name, numpy dtype name, shape with None for a dynamic dimension,
// the dimensions' symbolic names).
nb::tuple Describe(const runtime::IoSpec& io) {
  nb::list shape;
  for (int64_t d : io.shape) {
    if (d < 0) shape.append(nb::none());
    else shape.append(nb::int_(d));
  }
  return nb::make_tuple(io.name, NumpyName(io), nb::tuple(shape), io.symbols);
}

class SessionHandle {
 public:
  SessionHandle(const std::string& path, int intra_op_threads, int inter_op_threads, const std::string& optimization,
                bool allow_spinning) {
    runtime::SessionOptions o;
    o.intra_op_threads = intra_op_threads;
    o.inter_op_threads = inter_op_threads;
    o.allow_spinning = allow_spinning;
    if (optimization == "disable") o.graph_optimization = runtime::GraphOptimization::kDisable;
    else if (optimization == "basic") o.graph_optimization = runtime::GraphOptimization::kBasic;
    else if (optimization == "extended") o.graph_optimization = runtime::GraphOptimization::kExtended;
    else if (optimization == "all") o.graph_optimization = runtime::GraphOptimization::kAll;
    else ThrowIfError(Status::InvalidArgument(fmt::format(
        "optimization must be one of disable, basic, extended, all; got '{}'", optimization)));
    ThrowIfError(o.Validate());
    nb::gil_scoped_release unlocked;  // loading a large model takes a while; other Python threads go on
    session_ = ValueOrThrow(runtime::Session::Open(path, o));
  }

  nb::list Inputs() const {
    nb::list out;
    for (const auto& io : session_->metadata().inputs) out.append(Describe(io));
    return out;
  }
  nb::list Outputs() const {
    nb::list out;
    for (const auto& io : session_->metadata().outputs) out.append(Describe(io));
    return out;
  }
  std::string path() const { return session_->model_path(); }

  // Runs on `feeds` (every input by name, C-contiguous arrays of its dtype: hone.Session checks and converts
  // first) and returns every output by name. Inputs are read where they are and outputs are ONNX Runtime's own
  // buffers handed to numpy: no copy either way. The GIL is released while the model runs.
  nb::dict Run(nb::dict feeds) const {
    const runtime::ModelMetadata& md = session_->metadata();
    std::vector<Tensor> inputs(md.inputs.size());
    std::vector<bool> given(md.inputs.size(), false);
    // The arrays the tensors borrow from, alive until the run is over. No conversion: a cast that copied would
    // leave the tensor pointing at a copy freed at the end of this loop (hone.Session makes arrays contiguous).
    std::vector<InputArray> held;
    held.reserve(md.inputs.size());
    for (auto [key, value] : feeds) {
      const std::string name = nb::cast<std::string>(key);
      const int index = md.FindInput(name);
      if (index < 0) {
        std::string names;
        for (const auto& io : md.inputs) names += (names.empty() ? "" : ", ") + io.name;
        ThrowIfError(Status::InvalidArgument(fmt::format("the model has no input '{}' (its inputs: {})", name, names)));
      }
      InputArray array;
      if (!nb::try_cast<InputArray>(value, array, /*convert=*/false))
        ThrowIfError(Status::InvalidArgument(fmt::format(
            "input '{}' must be a C-contiguous array on the CPU (hone.Session converts other layouts)", name)));
      const DtypeName* dtype = ByDlpack(array.dtype());
      const runtime::IoSpec& io = md.inputs[static_cast<size_t>(index)];
      if (dtype == nullptr || dtype->type != io.type)
        ThrowIfError(Status::InvalidArgument(fmt::format("input '{}' is {}; the model takes {}", name,
                                                         dtype ? dtype->numpy : "an unsupported dtype", NumpyName(io))));
      Shape shape;
      for (size_t d = 0; d < array.ndim(); ++d) shape.push_back(static_cast<int64_t>(array.shape(d)));
      inputs[static_cast<size_t>(index)] = ValueOrThrow(Tensor::Borrow(
          dtype->type, std::move(shape), const_cast<void*>(array.data()), array.nbytes()));
      held.push_back(std::move(array));
      given[static_cast<size_t>(index)] = true;
    }
    for (size_t i = 0; i < given.size(); ++i)
      if (!given[i]) ThrowIfError(Status::InvalidArgument(fmt::format("input '{}' is missing", md.inputs[i].name)));
    std::optional<Result<std::vector<Tensor>>> ran;
    {
      nb::gil_scoped_release unlocked;
      ran.emplace(session_->Run(inputs));
    }
    std::vector<Tensor> outputs_now = ValueOrThrow(std::move(*ran));
    std::vector<Tensor>* outputs = &outputs_now;
    nb::dict result;
    for (size_t i = 0; i < outputs->size(); ++i) {
      Tensor& t = (*outputs)[i];
      const DtypeName* dtype = ByType(t.type());
      if (dtype == nullptr || t.type() == DataType::kBf16)
        ThrowIfError(Status::Unimplemented(fmt::format("output '{}' is {}, which numpy cannot hold", md.outputs[i].name,
                                                       DataTypeName(t.type()))));
      std::vector<size_t> shape(t.shape().begin(), t.shape().end());
      auto* owner = new Tensor(t);  // shares the buffer: the array keeps it alive
      nb::capsule keep(owner, [](void* p) noexcept { delete static_cast<Tensor*>(p); });
      result[md.outputs[i].name.c_str()] =
          OutputArray(owner->mutable_data(), shape.size(), shape.data(), keep, nullptr, dtype->dlpack).cast();
    }
    return result;
  }

 private:
  std::unique_ptr<runtime::Session> session_;
};

}  // namespace

void RegisterSession(nb::module_& m) {
  nb::class_<SessionHandle>(m, "Session")
      .def(nb::init<const std::string&, int, int, const std::string&, bool>(), nb::arg("path"),
           nb::arg("intra_op_threads"), nb::arg("inter_op_threads"), nb::arg("optimization"),
           nb::arg("allow_spinning"))
      .def("inputs", &SessionHandle::Inputs)
      .def("outputs", &SessionHandle::Outputs)
      .def_prop_ro("path", &SessionHandle::path)
      .def("run", &SessionHandle::Run, nb::arg("feeds"));
}

}  // namespace hone::python
