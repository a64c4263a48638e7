// hone.serve: a hone server (harness/server_assembly.h, what `hone serve` runs) in this process, on loopback.
#pragma once

#include <nanobind/nanobind.h>

namespace hone::python {

void RegisterServe(nanobind::module_& m);

}  // namespace hone::python
