#include "status_binding.h"

#include <string>

#include <nanobind/stl/string.h>

namespace nb = nanobind;

namespace hone::python {

void RegisterStatus(nb::module_& m) {
  (void)m;
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const StatusError& e) {
      // hone.errors maps the code's name ("INVALID_ARGUMENT") to its class; imported here, when an error is first
      // raised, so that the module loads without it.
      nb::object errors = nb::module_::import_("hone.errors");
      nb::object cls = errors.attr("error_class")(std::string(StatusCodeName(e.status.code())));
      const std::string& m = e.status.message();
      nb::object text = nb::steal(PyUnicode_DecodeUTF8(m.data(), static_cast<Py_ssize_t>(m.size()), "replace"));
      PyErr_SetObject(cls.ptr(), text.ptr());
    }
  });
}

}  // namespace hone::python
