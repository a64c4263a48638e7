#include "output_binding.h"

#include <memory>
#include <string>
#include <string_view>

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
  // Never throws: it runs on whatever C++ thread reported. Invalid UTF-8 (a path in another encoding) is replaced.
  void operator()(std::string_view text) const noexcept {
    nb::gil_scoped_acquire gil;
    PyObject* str = PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "replace");
    if (str == nullptr) {
      PyErr_Clear();
      return;
    }
    try {
      fn(nb::steal<nb::str>(str));
    } catch (nb::python_error& e) {
      e.discard_as_unraisable(fn);
    } catch (...) {
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
  Progress::SetStderrSink([callback](std::string_view text) { (*callback)(text); });
}

void SetLogSink(nb::object fn) {
  if (fn.is_none()) {
    nb::gil_scoped_release unlocked;
    hone::SetLogSink({});
    return;
  }
  auto callback = std::make_shared<PyCallback>(std::move(fn));
  nb::gil_scoped_release unlocked;
  hone::SetLogSink([callback](LogLevel, std::string_view line) { (*callback)(line); });
}

}  // namespace

void RegisterOutput(nb::module_& m) {
  m.def("set_progress_sink", &SetProgressSink, nb::arg("fn").none(),
        "Progress lines to fn(text) instead of standard error; None restores standard error.");
  m.def("set_log_sink", &SetLogSink, nb::arg("fn").none(),
        "Log lines to fn(line) instead of standard error; None restores standard error.");
}

}  // namespace hone::python
