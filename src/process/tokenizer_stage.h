// hone_tokenizer: text to token ids, for the encoder behind it (process/tokenizer.h does the work).
//
//   input    text BYTES [batch, 1]: one UTF-8 string per row
//   outputs  input_ids, attention_mask, token_type_ids INT64 [batch, tokens]: every row padded to the batch's
//            longest (or to max_length), the mask 0 on padding
//   parameters
//     tokenizer_file       the Hugging Face tokenizer.json, in the version directory (default "tokenizer.json")
//     max_length           truncate every text to this many tokens, special tokens included (default: the file's
//                          truncation, or none). Set it to what the model was trained with: a file's own value
//                          is often not the model's (all-MiniLM-L6-v2's says 128; sentence-transformers uses 256)
//     padding              longest (default: to the longest row of the batch) or max_length
//     pad_to_multiple_of   round the padded length up to a multiple of this (default: the file's, else none).
//                          Requests batch behind this stage only when their lengths agree: a multiple of 16 or
//                          32 lets texts of similar length share a batch in the encoder, for a little padding
//     add_special_tokens   true (default: [CLS] ... [SEP] or whatever the file's post-processor adds) or false
#pragma once

#include <memory>

#include "process/stage.h"

namespace hone::process {

Result<std::unique_ptr<Stage>> CreateTokenizerStage(const StageConfig& config);

}  // namespace hone::process
