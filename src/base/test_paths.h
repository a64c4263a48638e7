// Where the tests find the source tree and the built binaries.
//
// The paths are compiled into one generated file per build directory (test_paths.cc, written by CMake), not into
// every test object: a test object then embeds no absolute path, so ccache can reuse it from a build of another
// clone of the repository (CI builds a fresh clone in another folder). Include through the tests' precompiled
// header list, so that every test file sees the macros.
#pragma once

namespace hone::testing {

const char* SourceDir();  // the repository root, absolute
const char* BinaryDir();  // the build directory (where `hone` is), absolute

}  // namespace hone::testing

#define HONE_SOURCE_DIR (::hone::testing::SourceDir())
#define HONE_BINARY_DIR (::hone::testing::BinaryDir())
