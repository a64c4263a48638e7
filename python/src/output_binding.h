// Where hone's progress lines and log lines go when it runs inside Python: standard error by default (as for the
// command line), or a Python callable (hone.set_progress, hone.set_log wrap loggers into one).
#pragma once

#include <nanobind/nanobind.h>

namespace hone::python {

void RegisterOutput(nanobind::module_& m);

}  // namespace hone::python
