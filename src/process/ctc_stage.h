// hone_ctc: a speech or OCR model's per-frame class scores to text, by CTC greedy decoding: the best class of each
// frame, repeats collapsed, blanks dropped, the rest looked up in a dictionary.
//
//   input    logits FP32 [batch, frames, classes] (logits or log-probabilities: only each frame's argmax counts)
//   output   text BYTES [batch, 1]: the decoded string of each row (UTF-8, the dictionary's entries joined)
//   parameters
//     dictionary_file   in the version directory (default "dictionary.txt"): line i is what class i writes (a
//                       character, a word piece; a line holding one space writes a space). The blank class has a
//                       line too (any text: it is never written)
//     blank_index       the blank class (default 0)
//
// A dictionary with fewer lines than the logits have classes fails the request naming the first class without an
// entry (FailedPrecondition: the repository is wrong). Non-finite scores are InvalidArgument naming the row and the
// frame.
#pragma once

#include <memory>

#include "process/stage.h"

namespace hone::process {

Result<std::unique_ptr<Stage>> CreateCtcStage(const StageConfig& config);

}  // namespace hone::process
