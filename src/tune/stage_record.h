// What one stage of `hone tune` did: its status, its candidates and the search's verdict on them, and the facts
// only some stages have (the variant checks of precision, the saved graph of the graph stage). Plain data: the
// report (tune_report.cc) turns it into JSON.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "harness/variant_check.h"
#include "tune/search.h"

namespace hone::tune {

// What a stage came to.
enum class StageStatus {
  kMeasured,  // the baseline: the reference every later stage is measured against
  kImproved,  // a candidate beat the incumbent
  kNoGain,    // candidates were measured and none beat the incumbent (or the profile ran: it chooses nothing)
  kSkipped,   // nothing to try, or no room in the budget
  kFailed,    // the stage could not measure what it had to
};
std::string_view StageStatusName(StageStatus status);  // "measured", "improved", "no gain", "skipped", "failed"

// One lower-precision variant made and verified (precision_stage.cc).
struct VariantCheckRecord {
  std::string variant;  // "int8-dynamic"
  std::string what;     // "dynamic INT8"
  harness::VariantOutcome outcome;     // the last try
  std::vector<std::string> kept_fp32;  // nodes the FP32 fallback kept (empty: none)
  std::optional<harness::VariantOutcome> first_try;  // the failed outcome before the fallback, when there was one
  std::pair<int64_t, int64_t> probed{0, 0};  // nodes whose sensitivity was measured, of the quantized ones
};

// The winner's optimized graph, saved and served when it makes the model ready sooner (tune_graph_save.cc).
struct SavedGraphFacts {
  bool used = false;
  std::string reason;
  std::string level;  // the level saved; empty: not saved
  std::optional<double> cold_start_without_s, cold_start_with_s;
};

struct StageRecord {
  std::string name;
  int index = 0;
  StageStatus status = StageStatus::kSkipped;
  std::string reason;
  Signal decided_by = Signal::kNone;  // a search stage: what told its winner apart
  int rounds = 0;                     // a search stage: its confirming rounds
  double noise = 0;                   // a search stage: the half-width of its deciding interval
  std::string winner;
  double delta_vs_baseline = 0, delta_vs_previous = 0;  // score ratios; 0: not measured
  double wall_s = 0;
  std::vector<Entry> entries;
  std::vector<VariantCheckRecord> variant_checks;  // precision and exhaustive
  std::optional<SavedGraphFacts> saved_graph;      // graph

  // A stage that measured nothing, or whose record is filled in afterwards.
  static StageRecord Of(std::string name, int index, StageStatus status, std::string reason) {
    StageRecord r;
    r.name = std::move(name);
    r.index = index;
    r.status = status;
    r.reason = std::move(reason);
    return r;
  }
};

}  // namespace hone::tune
