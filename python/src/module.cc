// The extension module hone._hone: the C++ parts the command line uses, for Python (python/hone wraps it).
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include "base/version.h"
#include "runtime/session.h"
#include "check_binding.h"
#include "command_binding.h"
#include "output_binding.h"
#include "serve_binding.h"
#include "session_binding.h"
#include "status_binding.h"

namespace nb = nanobind;

NB_MODULE(_hone, m) {
  m.doc() = "hone's C++ core (use the hone package, not this module)";
  m.attr("__version__") = std::string(hone::HoneVersion());
  m.def("onnxruntime_version", &hone::runtime::OrtVersion, "The version of the ONNX Runtime library loaded.");
  hone::python::RegisterStatus(m);
  hone::python::RegisterSession(m);
  hone::python::RegisterCommands(m);
  hone::python::RegisterServe(m);
  hone::python::RegisterChecks(m);
  hone::python::RegisterOutput(m);
}
