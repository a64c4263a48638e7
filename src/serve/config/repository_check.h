// Whether a folder given as --model-repository is one: a repository that holds no model is almost always the
// wrong folder (a model's own folder, a version folder, a typo, an empty directory), and a server that starts on it
// serves nothing while saying it is ready.
#pragma once

#include <string>

#include "base/status.h"

namespace hone::serve {

// What a repository looks like, for messages: "<repository>/<model>/config.pbtxt (optional) and
// <repository>/<model>/<version>/model.onnx".
std::string RepositoryLayout();

// Ok when `repository` holds at least one model (ListModels). Otherwise NotFound when it is not a directory, and
// InvalidArgument saying what is there instead and what a repository looks like; a folder that looks like a
// model's own folder (config.pbtxt, numbered version folders) or a version folder (model.onnx) says so and names
// the folder that was probably meant: "... it looks like a model's own folder (it has config.pbtxt, version
// folder 1): did you mean its parent, 'models'? ...".
Status ExpectModels(const std::string& repository);

}  // namespace hone::serve
