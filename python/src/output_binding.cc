#include "output_binding.h"

#include <memory>
#include <string>

#include "base/log.h"
#include "base/progress.h"

namespace nb = nanobind;

namespace hone::python {
namespace {

// A Python callable kept alive by the C++ sink that calls it. The callable is called with the GIL taken, from
// whatever thread reports (a load generator's measuring thread, a server's loader); an exception it raises is
// reported as unraisable and the work goes on.
struct PyCallback {
  explicit PyCallback(nb::object f) : fn(std::move(f)) {}
  ~PyCallback() {
    nb::gil_scoped_acquire gil;
    fn.reset();
  }
  void operator()(nb::str text) const {
    nb::gil_scoped_acquire gil;
    try {
      fn(text);
    } catch (nb::python_error& e) {
      e.discard_as_unraisable(fn);
    }
  }
  nb::object fn;
};

void SetProgressSink(nb::object fn) {
  if (fn.is_none()) {
    nb::gil_scoped_release unlocked;  // the old sink's holder takes the GIL to release its callable
    Progress::SetStderrSink({});
    return;
  }
  auto callback = std::make_shared<PyCallback>(std::move(fn));
  nb::gil_scoped_release unlocked;
  Progress::SetStderrSink([callback](std::string_view text) {
    nb::gil_scoped_acquire gil;
    (*callback)(nb::str(text.data(), text.size()));
  });
}

void SetLogSink(nb::object fn) {
  if (fn.is_none()) {
    nb::gil_scoped_release unlocked;
    hone::SetLogSink({});
    return;
  }
  auto callback = std::make_shared<PyCallback>(std::move(fn));
  nb::gil_scoped_release unlocked;
  hone::SetLogSink([callback](LogLevel, std::string_view line) {
    nb::gil_scoped_acquire gil;
    (*callback)(nb::str(line.data(), line.size()));
  });
}

}  // namespace

void RegisterOutput(nb::module_& m) {
  m.def("set_progress_sink", &SetProgressSink, nb::arg("fn").none(),
        "Progress lines to fn(text) instead of standard error; None restores standard error.");
  m.def("set_log_sink", &SetLogSink, nb::arg("fn").none(),
        "Log lines to fn(line) instead of standard error; None restores standard error.");
}

}  // namespace hone::python
