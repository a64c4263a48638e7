// NaN and infinities in KServe v2 JSON tensors, and the one JSON parse that every request and response goes
// through. JSON has no literal for them, but Triton reads and writes `NaN`,
// `Infinity` and `-Infinity` (RapidJSON's NaN/Inf extension, which also reads `Inf`, `-Inf` and `-NaN`), and so do
// its clients: perf_analyzer's random FP32 data holds NaNs in most large requests, and hone's own JSON writer emits
// them (json_writer.h). simdjson, which parses every request and response here, rejects them, so a document that
// fails to parse is scanned once for these literals outside strings; each becomes a marker string that
// ReadJsonTensorData (tensor_json.h) reads back as the value, and the document is parsed again. Valid JSON never
// takes this path and pays nothing.
//
//   simdjson::dom::element root;
//   Status s = ParseJsonDocument(parser, text, size, readable, &root);  // InvalidArgument: simdjson's message
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"

namespace simdjson::dom {
class element;
class parser;
}  // namespace simdjson::dom

namespace hone::client {

// Parses json[0, size) with `parser` into `root` (valid while `parser` lives and parses nothing else), reading
// Triton's NaN/Infinity literals as the markers below. `readable` bytes from `json` may be read: with simdjson's
// padding past `size` the text is parsed in place, else copied. InvalidArgument with simdjson's message for the
// document as sent when it is not JSON even with the literals marked.
Status ParseJsonDocument(simdjson::dom::parser& parser, const char* json, size_t size, size_t readable,
                         simdjson::dom::element* root);

// `json` with every bare NaN, Inf and Infinity literal (optionally signed) outside strings replaced by a marker
// string; nullopt when there are none, or when a letter that starts no such literal stands outside a string (the
// document is malformed for another reason, which the caller's error then names).
std::optional<std::string> QuoteNonFiniteLiterals(std::string_view json);

// The value a marker string written by QuoteNonFiniteLiterals stands for (NaN, +inf or -inf), given the string's
// decoded contents; nullopt for any other string.
std::optional<double> NonFiniteFromMarker(std::string_view decoded);

// The literal a marker stands for, as Triton writes it ("NaN", "Infinity", "-Infinity"), for error messages;
// empty for any other string.
std::string_view NonFiniteLiteral(std::string_view decoded);

}  // namespace hone::client
