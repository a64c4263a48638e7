// hone's commands run in this process: the command line as a function (cli/run.h), with what it prints captured.
#pragma once

#include <nanobind/nanobind.h>

namespace hone::python {

void RegisterCommands(nanobind::module_& m);

}  // namespace hone::python
