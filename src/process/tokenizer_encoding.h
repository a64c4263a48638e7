// What a tokenizer gives for one text: parallel vectors, one entry per token, ready to become a model's
// input_ids / token_type_ids / attention_mask tensors.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hone::process {

struct Encoding {
  std::vector<int64_t> ids;
  std::vector<int64_t> type_ids;        // segment of each token (0 for a single text)
  std::vector<int64_t> attention_mask;  // 1 for a real token, 0 for padding
  std::vector<std::string> tokens;      // the vocabulary's spelling of each token ("##ing", "Ġthe", "[PAD]")

  size_t size() const { return ids.size(); }
  // Appends one token.
  void Push(int64_t id, std::string token, int64_t type_id, int64_t mask = 1) {
    ids.push_back(id);
    tokens.push_back(std::move(token));
    type_ids.push_back(type_id);
    attention_mask.push_back(mask);
  }
};

}  // namespace hone::process
