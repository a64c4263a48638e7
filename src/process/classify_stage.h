// hone_classify: a classifier's logits to its k best classes, with their names and scores, as Triton's
// classification extension gives them (a labels file of one name a line, like a config's label_filename).
//
//   input    logits FP32 [batch, classes]
//   outputs  class_index INT64 [batch, top_k], class_name BYTES [batch, top_k], score FP32 [batch, top_k]: best
//            first; equal scores in class order
//   parameters
//     labels_file   in the version directory (default "labels.txt"): line i names class i. A final newline ends
//                   the last line rather than adding an empty one; "\r\n" endings are accepted; other empty
//                   lines are empty names
//     top_k         how many classes per row (default 1); more than the logits have is InvalidArgument
//     softmax       true (default: scores are probabilities, softmax over the row computed in double) or false
//                   (scores are the logits themselves)
//
// Every request checks that the labels file names every class the logits have: a file with fewer lines fails the
// request (FailedPrecondition: the repository is wrong, not the request), naming the first class without a name,
// whether or not that class made the top k, so a short file fails every request alike.
// Non-finite logits (NaN, infinity) are InvalidArgument naming the row and the class.
#pragma once

#include <memory>

#include "process/stage.h"

namespace hone::process {

Result<std::unique_ptr<Stage>> CreateClassifyStage(const StageConfig& config);

}  // namespace hone::process
