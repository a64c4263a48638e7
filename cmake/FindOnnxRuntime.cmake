# Finds ONNX Runtime: headers (onnxruntime_cxx_api.h) and the shared library.
# Looks in ONNXRUNTIME_ROOT (an official release, or wherever you unpacked one), then in third_party/onnxruntime,
# where scripts/setup puts the npm-packaged 1.30 library. Defines the imported target OnnxRuntime::onnxruntime.
set(ONNXRUNTIME_ROOT "" CACHE PATH "An ONNX Runtime install (include/ and lib/)")
set(_ort_hints ${ONNXRUNTIME_ROOT} ${PROJECT_SOURCE_DIR}/third_party/onnxruntime)

find_path(OnnxRuntime_INCLUDE_DIR onnxruntime_cxx_api.h
  HINTS ${_ort_hints} PATH_SUFFIXES include include/onnxruntime include/onnxruntime/core/session NO_DEFAULT_PATH)
find_library(OnnxRuntime_LIBRARY NAMES onnxruntime libonnxruntime.so.1
  HINTS ${_ort_hints} PATH_SUFFIXES lib lib64 NO_DEFAULT_PATH)

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(OnnxRuntime
  REQUIRED_VARS OnnxRuntime_LIBRARY OnnxRuntime_INCLUDE_DIR
  REASON_FAILURE_MESSAGE "run scripts/setup, or pass -DONNXRUNTIME_ROOT=<an ONNX Runtime release>")

if(OnnxRuntime_FOUND AND NOT TARGET OnnxRuntime::onnxruntime)
  add_library(OnnxRuntime::onnxruntime SHARED IMPORTED)
  set_target_properties(OnnxRuntime::onnxruntime PROPERTIES
    IMPORTED_LOCATION ${OnnxRuntime_LIBRARY}
    INTERFACE_INCLUDE_DIRECTORIES ${OnnxRuntime_INCLUDE_DIR})
  get_filename_component(OnnxRuntime_LIBRARY_DIR ${OnnxRuntime_LIBRARY} DIRECTORY)
endif()
