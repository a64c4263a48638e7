#include "process/tokenizer_stage.h"

#include "process/stage_parameters.h"
#include "process/tokenizer.h"

namespace hone::process {
namespace {

class TokenizerStage final : public Stage {
 public:
  TokenizerStage(std::unique_ptr<Tokenizer> tokenizer, bool add_special_tokens, std::string description)
      : tokenizer_(std::move(tokenizer)), add_special_tokens_(add_special_tokens),
        description_(std::move(description)) {}

  const std::vector<StageTensorSpec>& inputs() const override { return inputs_; }
  const std::vector<StageTensorSpec>& outputs() const override { return outputs_; }
  const std::string& description() const override { return description_; }

  Result<std::vector<Tensor>> Run(std::span<const Tensor> in) const override {
    const Tensor& text = in[0];
    if (text.shape().size() != 2 || text.shape()[1] != 1)
      return Status::InvalidArgument("input 'text': shape " + ShapeToString(text.shape()) +
                                     ": expected [batch, 1], one string per row");
    const std::vector<std::string_view> texts = text.bytes_elements();
    Result<std::vector<Encoding>> encoded = tokenizer_->EncodeBatch(texts, add_special_tokens_);
    if (!encoded.ok()) return Status::InvalidArgument("input 'text': " + encoded.status().message());
    const int64_t rows = static_cast<int64_t>(encoded->size());
    // EncodeBatch pads every row to one length (the stage always pads: a batch is one rectangular tensor).
    const int64_t length = rows == 0 ? 0 : static_cast<int64_t>(encoded->front().size());
    std::vector<Tensor> out;
    for (int k = 0; k < 3; ++k) {
      HONE_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(DataType::kInt64, {rows, length}));
      std::span<int64_t> values = t.mutable_values<int64_t>();
      for (int64_t r = 0; r < rows; ++r) {
        const Encoding& e = (*encoded)[static_cast<size_t>(r)];
        if (static_cast<int64_t>(e.size()) != length)
          return Status::Internal("hone_tokenizer: row " + std::to_string(r) + " has " + std::to_string(e.size()) +
                                  " tokens after padding, expected " + std::to_string(length));
        const std::vector<int64_t>& from = k == 0 ? e.ids : k == 1 ? e.attention_mask : e.type_ids;
        std::copy(from.begin(), from.end(), values.begin() + r * length);
      }
      out.push_back(std::move(t));
    }
    return out;
  }

 private:
  std::unique_ptr<Tokenizer> tokenizer_;
  bool add_special_tokens_;
  std::string description_;
  std::vector<StageTensorSpec> inputs_ = {{"text", DataType::kBytes, {-1, 1}}};
  std::vector<StageTensorSpec> outputs_ = {{"input_ids", DataType::kInt64, {-1, -1}},
                                           {"attention_mask", DataType::kInt64, {-1, -1}},
                                           {"token_type_ids", DataType::kInt64, {-1, -1}}};
};

}  // namespace

Result<std::unique_ptr<Stage>> CreateTokenizerStage(const StageConfig& config) {
  StageParameters params(config.kind, config.parameters);
  HONE_ASSIGN_OR_RETURN(const std::string path, params.File("tokenizer_file", "tokenizer.json", config.directory));
  HONE_ASSIGN_OR_RETURN(int64_t max_length, params.Int("max_length", 0, 1, 1 << 20));
  HONE_ASSIGN_OR_RETURN(std::string padding, params.Choice("padding", "longest", {"longest", "max_length"}));
  HONE_ASSIGN_OR_RETURN(bool special, params.Bool("add_special_tokens", true));
  HONE_ASSIGN_OR_RETURN(int64_t multiple, params.Int("pad_to_multiple_of", 0, 0, 1 << 16));
  HONE_RETURN_IF_ERROR(params.CheckAllRead());
  HONE_ASSIGN_OR_RETURN(std::unique_ptr<Tokenizer> tokenizer, Tokenizer::FromFile(path));

  if (max_length > 0) {
    TruncationOptions truncation = tokenizer->truncation().value_or(TruncationOptions{});
    truncation.max_length = static_cast<size_t>(max_length);
    HONE_RETURN_IF_ERROR(tokenizer->set_truncation(truncation));
  }
  PaddingOptions pad = tokenizer->padding().value_or(PaddingOptions{});
  if (!tokenizer->padding()) {
    // No padding section: pad with the vocabulary's [PAD] when it has one, else id 0 (the mask hides it).
    if (auto id = tokenizer->TokenToId(pad.pad_token)) pad.pad_id = *id;
  }
  if (padding == "max_length") {
    if (!tokenizer->truncation())
      return Status::InvalidArgument(config.kind + " parameter 'padding': max_length needs a max_length (the "
                                     "parameter, or the file's truncation)");
    pad.fixed_length = tokenizer->truncation()->max_length;
  } else {
    pad.fixed_length.reset();
  }
  if (multiple > 0) pad.pad_to_multiple_of = static_cast<size_t>(multiple);
  tokenizer->set_padding(pad);
  std::string description = config.kind + " (" + path;
  if (tokenizer->truncation()) description += ", max_length " + std::to_string(tokenizer->truncation()->max_length);
  description += ")";
  return std::unique_ptr<Stage>(std::make_unique<TokenizerStage>(std::move(tokenizer), special, description));
}

}  // namespace hone::process
