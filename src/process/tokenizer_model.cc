#include "process/tokenizer_model.h"

#include "process/bpe_model.h"
#include "process/wordpiece_model.h"

namespace hone::process {

Result<std::unique_ptr<Model>> ParseModel(const Json& json, std::string_view path) {
  if (!json.is_object()) {
    return Status::InvalidArgument(std::string(path) + ": expected an object, got " + JsonTypeName(json));
  }
  std::string type;
  if (json.contains("type")) {
    HONE_ASSIGN_OR_RETURN(type, RequiredString(json, "type", path));
  } else if (json.contains("merges")) {  // files written before models carried a type
    type = "BPE";
  } else if (json.contains("continuing_subword_prefix")) {
    type = "WordPiece";
  }
  if (type == "BPE") return BpeModel::FromJson(json, path);
  if (type == "WordPiece") return WordPieceModel::FromJson(json, path);
  return UnsupportedType(path, type.empty() ? "(none)" : type, "BPE, WordPiece");
}

}  // namespace hone::process
