#include "process/stage.h"

#include <array>

#include "process/classify_stage.h"
#include "process/ctc_stage.h"
#include "process/image_stage.h"
#include "process/pooling_stage.h"
#include "process/tokenizer_stage.h"

namespace hone::process {
namespace {

struct Kind {
  std::string_view name;
  Result<std::unique_ptr<Stage>> (*create)(const StageConfig&);
};

// Sorted by name.
constexpr std::array kKinds = {
    Kind{"hone_classify", &CreateClassifyStage},
    Kind{"hone_ctc", &CreateCtcStage},
    Kind{"hone_image", &CreateImageStage},
    Kind{"hone_pooling", &CreatePoolingStage},
    Kind{"hone_tokenizer", &CreateTokenizerStage},
};

}  // namespace

bool IsStageKind(std::string_view backend) {
  for (const Kind& k : kKinds)
    if (k.name == backend) return true;
  return false;
}

std::string StageKinds() {
  std::string out;
  for (const Kind& k : kKinds) out += (out.empty() ? "" : ", ") + std::string(k.name);
  return out;
}

Result<std::unique_ptr<Stage>> CreateStage(const StageConfig& config) {
  for (const Kind& k : kKinds)
    if (k.name == config.kind) return k.create(config);
  return Status::Unimplemented("backend '" + config.kind + "': not one of hone's processing stages (" +
                               StageKinds() + ")");
}

}  // namespace hone::process
