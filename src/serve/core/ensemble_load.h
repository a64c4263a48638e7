// Loading an ensemble: its plan, checked against the models its steps name, and its scheduler. Called by
// LoadVersion for platform "ensemble".
#pragma once

#include <memory>

#include "base/result.h"
#include "serve/core/loaded_version.h"

namespace hone::serve {

// Fills `loaded` (whose config is the ensemble's, completed) with metadata from the config, statistics and the
// ensemble's scheduler. InvalidArgument naming the config file, the step and the tensor when a step maps a tensor
// its model does not have, or a type differs between the ensemble and a step's model; Unavailable when a step's
// model is not serving.
Status LoadEnsemble(const LoadVersionRequest& request, LoadedVersion& loaded);

}  // namespace hone::serve
