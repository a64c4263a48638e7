// A variant's verdict for programs: the body of `hone quantize --json` and `hone convert --json` (inside the
// report envelope, report/report_envelope.h), and of each tune stage to come.
#pragma once

#include <nlohmann/json.hpp>

#include "harness/variant_check.h"

namespace hone::harness {

// {passed, failures, notes, identical, load_error, size {source_bytes, variant_bytes, ratio}, data_note,
//  compare (hone compare's body), evaluate (hone evaluate's body, or null without labels),
//  speed ({verdict, detail, rounds [...], medians and spreads}, or null when not measured)}
nlohmann::json VariantOutcomeToJson(const VariantCheck& check, const VariantOutcome& outcome);

// The speed comparison alone (null-free figures; ratios are variant / source).
nlohmann::json SpeedComparisonToJson(const SpeedComparison& speed);

}  // namespace hone::harness
