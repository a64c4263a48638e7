// hone's Status as Python exceptions: a failed Status raises the hone.Error subclass of its code (hone/errors.py),
// carrying the same message the command line prints.
#pragma once

#include <nanobind/nanobind.h>

#include "base/result.h"

namespace hone::python {

// Thrown by ThrowIfError; translated into hone.errors' class for its code when it reaches Python.
struct StatusError {
  Status status;
};

inline void ThrowIfError(const Status& s) {
  if (!s.ok()) throw StatusError{s};
}
template <typename T>
T ValueOrThrow(Result<T> r) {
  if (!r.ok()) throw StatusError{r.status()};
  return std::move(r).value();
}

void RegisterStatus(nanobind::module_& m);

}  // namespace hone::python
