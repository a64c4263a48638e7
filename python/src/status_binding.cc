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
      PyErr_SetObject(cls.ptr(), nb::str(e.status.message().c_str()).ptr());
    }
  });
}

}  // namespace hone::python
