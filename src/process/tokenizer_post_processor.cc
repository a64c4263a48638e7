#include "process/tokenizer_post_processor.h"

#include <string>
#include <utility>
#include <vector>

namespace hone::process {
namespace {

constexpr std::string_view kSupported = "TemplateProcessing, BertProcessing, RobertaProcessing, ByteLevel, Sequence";

// One element of a template: the text itself (with a type id) or the tokens of a special token.
struct TemplatePiece {
  bool is_sequence = false;
  int64_t type_id = 0;
  std::vector<int64_t> ids;  // special token only
  std::vector<std::string> tokens;
};

class TemplateProcessor final : public PostProcessor {
 public:
  explicit TemplateProcessor(std::vector<TemplatePiece> single) : single_(std::move(single)) {
    for (const TemplatePiece& p : single_) added_ += p.is_sequence ? 0 : p.ids.size();
  }
  size_t AddedTokens() const override { return added_; }
  void Process(Encoding* e, bool add_special_tokens) const override {
    Encoding out;
    out.ids.reserve(e->size() + added_);
    for (const TemplatePiece& p : single_) {
      if (p.is_sequence) {
        for (size_t i = 0; i < e->size(); ++i) {
          out.Push(e->ids[i], std::move(e->tokens[i]), p.type_id, e->attention_mask[i]);
        }
      } else if (add_special_tokens) {
        for (size_t i = 0; i < p.ids.size(); ++i) out.Push(p.ids[i], p.tokens[i], p.type_id);
      }
    }
    *e = std::move(out);
  }

 private:
  std::vector<TemplatePiece> single_;
  size_t added_ = 0;
};

class ByteLevelProcessor final : public PostProcessor {
 public:
  size_t AddedTokens() const override { return 0; }
  void Process(Encoding*, bool) const override {}
};

class SequenceProcessor final : public PostProcessor {
 public:
  explicit SequenceProcessor(std::vector<std::unique_ptr<PostProcessor>> parts) : parts_(std::move(parts)) {}
  size_t AddedTokens() const override {
    size_t n = 0;
    for (const auto& p : parts_) n += p->AddedTokens();
    return n;
  }
  void Process(Encoding* e, bool add_special_tokens) const override {
    for (const auto& p : parts_) p->Process(e, add_special_tokens);
  }

 private:
  std::vector<std::unique_ptr<PostProcessor>> parts_;
};

// "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [101], "tokens": ["[CLS]"]}, ...}
Result<TemplatePiece> SpecialPiece(const Json& specials, const std::string& name, int64_t type_id,
                                   std::string_view path) {
  const std::string specials_path = JsonPath(path, "special_tokens");
  if (!specials.is_object() || !specials.contains(name)) {
    return Status::InvalidArgument(specials_path + ": the template uses '" + name + "', which it does not define");
  }
  const Json& entry = specials.at(name);
  const std::string at = JsonPath(specials_path, name);
  HONE_ASSIGN_OR_RETURN(const Json* ids, RequiredArray(entry, "ids", at));
  HONE_ASSIGN_OR_RETURN(const Json* tokens, RequiredArray(entry, "tokens", at));
  if (ids->size() != tokens->size()) {
    return Status::InvalidArgument(at + ": 'ids' and 'tokens' differ in length");
  }
  TemplatePiece p;
  p.type_id = type_id;
  for (size_t i = 0; i < ids->size(); ++i) {
    if (!(*ids)[i].is_number_integer() || !(*tokens)[i].is_string()) {
      return Status::InvalidArgument(at + ": expected integer ids and string tokens");
    }
    p.ids.push_back((*ids)[i].get<int64_t>());
    p.tokens.push_back((*tokens)[i].get<std::string>());
  }
  return p;
}

// A template: [{"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "[SEP]", "type_id": 0}}] or the
// string form "[CLS] $A [SEP]" ("$A:1" / "[SEP]:1" set type ids). `allow_b` is false for the single template.
Result<std::vector<TemplatePiece>> ParseTemplate(const Json& json, const Json& specials, std::string_view path,
                                                 bool allow_b) {
  std::vector<std::pair<std::string, int64_t>> items;  // ("$A" / "$B" / special name, type id)
  if (json.is_string()) {
    const std::string s = json.get<std::string>();
    size_t pos = 0;
    while (pos < s.size()) {
      const size_t end = std::min(s.find(' ', pos), s.size());
      std::string item = s.substr(pos, end - pos);
      pos = end + 1;
      if (item.empty()) continue;
      int64_t type_id = 0;
      if (const size_t colon = item.rfind(':'); colon != std::string::npos && colon + 1 < item.size() &&
                                                item.find_first_not_of("0123456789", colon + 1) == std::string::npos) {
        type_id = std::stoll(item.substr(colon + 1));
        item.resize(colon);
      }
      if (item == "$" || item == "$0") item = "$A";
      if (item == "$1") item = "$B";
      items.emplace_back(item, type_id);
    }
  } else if (json.is_array()) {
    for (size_t i = 0; i < json.size(); ++i) {
      const Json& piece = json[i];
      const std::string at = JsonPath(path, i);
      if (piece.is_object() && piece.contains("Sequence")) {
        HONE_ASSIGN_OR_RETURN(const std::string id, RequiredString(piece["Sequence"], "id", JsonPath(at, "Sequence")));
        HONE_ASSIGN_OR_RETURN(const int64_t type_id, RequiredInt(piece["Sequence"], "type_id", JsonPath(at, "Sequence")));
        if (id != "A" && id != "B") {
          return Status::InvalidArgument(JsonPath(at, "Sequence.id") + " '" + id + "': expected A or B");
        }
        items.emplace_back("$" + id, type_id);
      } else if (piece.is_object() && piece.contains("SpecialToken")) {
        const std::string sp = JsonPath(at, "SpecialToken");
        HONE_ASSIGN_OR_RETURN(const std::string id, RequiredString(piece["SpecialToken"], "id", sp));
        HONE_ASSIGN_OR_RETURN(const int64_t type_id, RequiredInt(piece["SpecialToken"], "type_id", sp));
        items.emplace_back(id, type_id);
      } else {
        return Status::InvalidArgument(at + ": expected {\"Sequence\": ...} or {\"SpecialToken\": ...}");
      }
    }
  } else {
    return Status::InvalidArgument(std::string(path) + ": expected a template (array or string), got " +
                                   JsonTypeName(json));
  }
  std::vector<TemplatePiece> pieces;
  for (const auto& [name, type_id] : items) {
    if (name == "$A" || (name == "$B" && allow_b)) {
      pieces.push_back({true, type_id, {}, {}});
    } else if (name == "$B") {
      return Status::InvalidArgument(std::string(path) + ": the single template uses the second sequence $B");
    } else {
      HONE_ASSIGN_OR_RETURN(TemplatePiece p, SpecialPiece(specials, name, type_id, path.substr(0, path.rfind('.'))));
      pieces.push_back(std::move(p));
    }
  }
  return pieces;
}

// BertProcessing / RobertaProcessing: "cls": ["[CLS]", 101], "sep": ["[SEP]", 102].
Result<TemplatePiece> TokenPair(const Json& json, std::string_view key, std::string_view path) {
  HONE_ASSIGN_OR_RETURN(const Json* pair, RequiredArray(json, key, path));
  if (pair->size() != 2 || !(*pair)[0].is_string() || !(*pair)[1].is_number_integer()) {
    return Status::InvalidArgument(JsonPath(path, key) + ": expected [token, id], got " + pair->dump());
  }
  return TemplatePiece{false, 0, {(*pair)[1].get<int64_t>()}, {(*pair)[0].get<std::string>()}};
}

}  // namespace

Result<std::unique_ptr<PostProcessor>> ParsePostProcessor(const Json& json, std::string_view path) {
  HONE_ASSIGN_OR_RETURN(const std::string type, ComponentType(json, path));
  if (type == "TemplateProcessing") {
    const Json empty = Json::object();
    const Json& specials = json.contains("special_tokens") ? json["special_tokens"] : empty;
    HONE_ASSIGN_OR_RETURN(const Json* single, RequiredField(json, "single", path));
    HONE_ASSIGN_OR_RETURN(auto pieces, ParseTemplate(*single, specials, JsonPath(path, "single"), false));
    if (json.contains("pair") && !json["pair"].is_null()) {
      HONE_RETURN_IF_ERROR(ParseTemplate(json["pair"], specials, JsonPath(path, "pair"), true).status());
    }
    return std::unique_ptr<PostProcessor>(new TemplateProcessor(std::move(pieces)));
  }
  if (type == "BertProcessing" || type == "RobertaProcessing") {
    HONE_ASSIGN_OR_RETURN(TemplatePiece cls, TokenPair(json, "cls", path));
    HONE_ASSIGN_OR_RETURN(TemplatePiece sep, TokenPair(json, "sep", path));
    std::vector<TemplatePiece> pieces{std::move(cls), TemplatePiece{true, 0, {}, {}}, std::move(sep)};
    return std::unique_ptr<PostProcessor>(new TemplateProcessor(std::move(pieces)));
  }
  if (type == "ByteLevel") return std::unique_ptr<PostProcessor>(new ByteLevelProcessor());
  if (type == "Sequence") {
    HONE_ASSIGN_OR_RETURN(const Json* list, RequiredArray(json, "processors", path));
    std::vector<std::unique_ptr<PostProcessor>> parts;
    for (size_t i = 0; i < list->size(); ++i) {
      HONE_ASSIGN_OR_RETURN(auto part, ParsePostProcessor((*list)[i], JsonPath(JsonPath(path, "processors"), i)));
      parts.push_back(std::move(part));
    }
    return std::unique_ptr<PostProcessor>(new SequenceProcessor(std::move(parts)));
  }
  return UnsupportedType(path, type, kSupported);
}

}  // namespace hone::process
