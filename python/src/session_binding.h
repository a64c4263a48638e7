// hone.Session: one model loaded by hone's runtime (runtime/session.h), run on numpy arrays.
#pragma once

#include <nanobind/nanobind.h>

namespace hone::python {

void RegisterSession(nanobind::module_& m);

}  // namespace hone::python
