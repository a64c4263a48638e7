#include "process/tokenizer.h"

#include "process/byte_level.h"
#include "process/tokenizer_added_vocabulary.h"
#include "process/tokenizer_decoder.h"
#include "process/tokenizer_json.h"
#include "process/tokenizer_model.h"
#include "process/tokenizer_normalizer.h"
#include "process/tokenizer_post_processor.h"
#include "process/tokenizer_pre_tokenizer.h"
#include "process/unicode_text.h"
#include "tensor/file_io.h"

namespace hone::process {
namespace {

// The section `key` of the top-level object, or null when it is missing or JSON null.
const Json* Section(const Json& root, std::string_view key) {
  auto it = root.find(key);
  return it == root.end() || it->is_null() ? nullptr : &*it;
}

}  // namespace

Tokenizer::Tokenizer() = default;
Tokenizer::~Tokenizer() = default;

Result<std::unique_ptr<Tokenizer>> Tokenizer::FromFile(const std::string& path) {
  HONE_ASSIGN_OR_RETURN(const std::vector<std::byte> bytes, ReadFileBytes(path));
  return FromJson(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), path);
}

Result<std::unique_ptr<Tokenizer>> Tokenizer::FromJson(std::string_view text, std::string_view source_name) {
  auto fail = [&](const Status& s) { return s.WithContext(source_name); };
  Json root = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded()) {
    // Parse again with exceptions only to learn where and why: the message names the byte offset.
    std::string why = "not valid JSON";
    try {
      Json ignored = Json::parse(text);
    } catch (const Json::parse_error& e) {
      why = e.what();
    }
    return fail(Status::InvalidArgument(why));
  }
  if (!root.is_object()) return fail(Status::InvalidArgument("expected a JSON object, got " + JsonTypeName(root)));

  std::unique_ptr<Tokenizer> t(new Tokenizer());
  if (const Json* n = Section(root, "normalizer")) {
    auto normalizer = ParseNormalizer(*n, "normalizer");
    if (!normalizer.ok()) return fail(normalizer.status());
    t->normalizer_ = std::move(normalizer).value();
  }
  if (const Json* p = Section(root, "pre_tokenizer")) {
    auto pre = ParsePreTokenizer(*p, "pre_tokenizer");
    if (!pre.ok()) return fail(pre.status());
    t->pre_tokenizer_ = std::move(pre).value();
  }
  const Json* model_json = Section(root, "model");
  if (model_json == nullptr) return fail(Status::InvalidArgument("model: missing"));
  auto model = ParseModel(*model_json, "model");
  if (!model.ok()) return fail(model.status());
  t->model_ = std::move(model).value();
  if (const Json* p = Section(root, "post_processor")) {
    auto post = ParsePostProcessor(*p, "post_processor");
    if (!post.ok()) return fail(post.status());
    t->post_processor_ = std::move(post).value();
  }
  if (const Json* d = Section(root, "decoder")) {
    auto decoder = ParseDecoder(*d, "decoder");
    if (!decoder.ok()) return fail(decoder.status());
    t->decoder_ = std::move(decoder).value();
  }
  auto added = AddedVocabulary::FromJson(Section(root, "added_tokens"), "added_tokens", t->normalizer_.get());
  if (!added.ok()) return fail(added.status());
  t->added_ = std::make_unique<AddedVocabulary>(std::move(added).value());
  auto truncation = ParseTruncation(Section(root, "truncation"), "truncation");
  if (!truncation.ok()) return fail(truncation.status());
  if (Status s = t->set_truncation(std::move(truncation).value()); !s.ok()) return fail(s);
  auto padding = ParsePadding(Section(root, "padding"), "padding");
  if (!padding.ok()) return fail(padding.status());
  t->padding_ = std::move(padding).value();
  return t;
}

Status Tokenizer::set_truncation(std::optional<TruncationOptions> options) {
  if (options) {
    const size_t added = post_processor_ ? post_processor_->AddedTokens() : 0;
    if (options->max_length < added + options->stride) {
      return Status::InvalidArgument("truncation.max_length " + std::to_string(options->max_length) +
                                     " leaves no room: the special tokens take " + std::to_string(added) +
                                     " and the stride is " + std::to_string(options->stride));
    }
  }
  truncation_ = std::move(options);
  return Status::Ok();
}

Status Tokenizer::EncodeSegment(std::string text, Encoding* out) const {
  if (normalizer_) HONE_RETURN_IF_ERROR(normalizer_->Normalize(&text));
  std::vector<TextSegment> segments;
  added_->SplitNormalized(text, &segments);
  std::vector<std::string> words;
  std::vector<Token> tokens;
  for (TextSegment& segment : segments) {
    if (segment.id) {
      out->Push(*segment.id, std::move(segment.text), 0);
      continue;
    }
    words.clear();
    words.push_back(std::move(segment.text));
    if (pre_tokenizer_) HONE_RETURN_IF_ERROR(pre_tokenizer_->PreTokenize(&words));
    for (const std::string& word : words) {
      if (word.empty()) continue;
      tokens.clear();
      HONE_RETURN_IF_ERROR(model_->Tokenize(word, &tokens));
      for (Token& token : tokens) out->Push(token.id, std::move(token.value), 0);
    }
  }
  return Status::Ok();
}

Result<Encoding> Tokenizer::Encode(std::string_view text, bool add_special_tokens) const {
  HONE_RETURN_IF_ERROR(ValidateUtf8(text));
  Encoding encoding;
  std::vector<TextSegment> segments;
  added_->SplitRaw(text, &segments);
  for (TextSegment& segment : segments) {
    if (segment.id) {
      encoding.Push(*segment.id, std::move(segment.text), 0);
    } else {
      HONE_RETURN_IF_ERROR(EncodeSegment(std::move(segment.text), &encoding));
    }
  }
  if (truncation_) {
    if (truncation_->strategy == TruncationOptions::Strategy::kOnlySecond) {
      return Status::InvalidArgument("truncation.strategy OnlySecond needs a second text; hone encodes one");
    }
    const size_t added = add_special_tokens && post_processor_ ? post_processor_->AddedTokens() : 0;
    Truncate(&encoding, truncation_->max_length - added, truncation_->direction);  // set_truncation keeps it >= 0
  }
  if (post_processor_) post_processor_->Process(&encoding, add_special_tokens);
  if (padding_) Pad(std::span<Encoding>(&encoding, 1), *padding_);
  return encoding;
}

Result<std::vector<Encoding>> Tokenizer::EncodeBatch(std::span<const std::string_view> texts,
                                                     bool add_special_tokens) const {
  std::vector<Encoding> out;
  out.reserve(texts.size());
  for (size_t i = 0; i < texts.size(); ++i) {
    auto e = Encode(texts[i], add_special_tokens);
    if (!e.ok()) return e.status().WithContext("text " + std::to_string(i));
    out.push_back(std::move(e).value());
  }
  if (padding_) Pad(out, *padding_);
  return out;
}

Result<std::string> Tokenizer::Decode(std::span<const int64_t> ids, bool skip_special_tokens) const {
  std::vector<std::string> tokens;
  tokens.reserve(ids.size());
  for (int64_t id : ids) {
    if (const AddedToken* t = added_->FindById(id)) {
      if (!(skip_special_tokens && t->special)) tokens.push_back(t->content);
    } else if (auto token = model_->IdToToken(id)) {
      tokens.emplace_back(*token);
    } else {
      return Status::InvalidArgument("id " + std::to_string(id) + " is in neither the vocabulary (" +
                                     std::to_string(model_->VocabSize()) + " tokens) nor the added tokens");
    }
  }
  if (decoder_ == nullptr) {
    std::string text;
    for (size_t i = 0; i < tokens.size(); ++i) text.append(i ? " " : "").append(tokens[i]);
    return text;
  }
  HONE_RETURN_IF_ERROR(decoder_->DecodeChain(&tokens));
  std::string text;
  for (const std::string& t : tokens) text += t;
  return text;
}

bool Tokenizer::byte_level() const { return decoder_ != nullptr && decoder_->byte_level(); }

std::optional<std::string> Tokenizer::TokenBytes(int64_t id) const {
  if (const AddedToken* t = added_->FindById(id)) {
    if (t->special) return std::nullopt;
    return t->content;
  }
  auto token = model_->IdToToken(id);
  if (!token) return std::nullopt;
  if (byte_level()) {
    std::string bytes;
    size_t pos = 0;
    while (pos < token->size()) {
      auto b = ByteLevelByte(NextCodePoint(*token, &pos));
      if (!b) return std::nullopt;
      bytes.push_back(static_cast<char>(*b));
    }
    return bytes;
  }
  const int64_t one[] = {id};
  Result<std::string> text = Decode(one, /*skip_special_tokens=*/false);
  if (!text.ok() || text->find("\xEF\xBF\xBD") != std::string::npos) return std::nullopt;
  return *text;
}

std::optional<int64_t> Tokenizer::TokenToId(std::string_view token) const {
  if (auto id = added_->TokenToId(token)) return id;
  return model_->TokenToId(token);
}

std::optional<std::string> Tokenizer::IdToToken(int64_t id) const {
  if (const AddedToken* t = added_->FindById(id)) return t->content;
  if (auto token = model_->IdToToken(id)) return std::string(*token);
  return std::nullopt;
}

size_t Tokenizer::VocabSize() const {
  size_t n = model_->VocabSize();
  for (const AddedToken& t : added_->tokens()) n += model_->IdToToken(t.id).has_value() ? 0 : 1;
  return n;
}

}  // namespace hone::process
