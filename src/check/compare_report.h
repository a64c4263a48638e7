// A CompareReport as terminal text and as JSON. Absolute errors are in the output's own units, relative errors
// and agreements are ratios; the text says so once, the JSON in a "units" object.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "check/compare.h"

namespace hone::check {

// The rules outputs are judged by, in words (printed in both reports; each output says which applies to it).
inline constexpr const char* kCompareRule =
    "by default a floating-point output matches when it has no NaN or Inf the reference lacks, cosine similarity "
    ">= --min-cosine and its largest |c - r| <= --max-range-error of the reference's range; other outputs must be "
    "equal. With --atol/--rtol: an element fails when |c - r| > atol and |c - r| > rtol * |r|, or c is NaN where r "
    "is not; infinities match only the same infinity; NaN in r is not judged";

std::string CompareReportToText(const CompareReport& report);
nlohmann::json CompareReportToJson(const CompareReport& report);

}  // namespace hone::check
