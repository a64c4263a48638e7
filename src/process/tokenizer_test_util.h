// Small tokenizer.json documents for the unit tests, built from parts.
#pragma once

#include <memory>
#include <string>

#include "process/tokenizer.h"

namespace hone::process::testing {

// A tokenizer.json with the given sections (each a JSON value as text; "null" for none).
inline std::string TokenizerJson(const std::string& model, const std::string& normalizer = "null",
                                 const std::string& pre_tokenizer = "null", const std::string& post_processor = "null",
                                 const std::string& added_tokens = "[]", const std::string& decoder = "null",
                                 const std::string& truncation = "null", const std::string& padding = "null") {
  return R"({"version":"1.0","truncation":)" + truncation + R"(,"padding":)" + padding +
         R"(,"added_tokens":)" + added_tokens + R"(,"normalizer":)" + normalizer + R"(,"pre_tokenizer":)" +
         pre_tokenizer + R"(,"post_processor":)" + post_processor + R"(,"decoder":)" + decoder +
         R"(,"model":)" + model + "}";
}

// A BERT-like WordPiece model over a tiny vocabulary.
inline std::string BertModel() {
  return R"({"type":"WordPiece","unk_token":"[UNK]","continuing_subword_prefix":"##","max_input_chars_per_word":10,
    "vocab":{"[PAD]":0,"[UNK]":1,"[CLS]":2,"[SEP]":3,"hello":4,"world":5,"un":6,"##aff":7,"##able":8,",":9,"!":10,
    "cafe":11,"中":12,"文":13,"a":14,"##b":15}})";
}

inline std::string BertTemplate() {
  return R"({"type":"TemplateProcessing","single":[{"SpecialToken":{"id":"[CLS]","type_id":0}},
    {"Sequence":{"id":"A","type_id":0}},{"SpecialToken":{"id":"[SEP]","type_id":0}}],
    "pair":[{"Sequence":{"id":"A","type_id":0}},{"Sequence":{"id":"B","type_id":1}}],
    "special_tokens":{"[CLS]":{"id":"[CLS]","ids":[2],"tokens":["[CLS]"]},
                      "[SEP]":{"id":"[SEP]","ids":[3],"tokens":["[SEP]"]}}})";
}

inline std::string BertSpecials() {
  return R"([{"id":0,"content":"[PAD]","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true},
             {"id":2,"content":"[CLS]","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true},
             {"id":3,"content":"[SEP]","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true}])";
}

inline std::unique_ptr<Tokenizer> MustParse(const std::string& json) {
  auto t = Tokenizer::FromJson(json, "test.json");
  if (!t.ok()) ADD_FAILURE() << t.status().ToString();
  return t.ok() ? std::move(t).value() : nullptr;
}

}  // namespace hone::process::testing
