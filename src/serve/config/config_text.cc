#include "serve/config/config_text.h"

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "serve/config/triton_fields.h"

namespace hone::serve {
namespace {

// Keeps the first error protobuf's parser reports (it stops there anyway), with its position.
class FirstErrorCollector : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column, const std::string& message) override {
    if (has_error_) return;
    has_error_ = true;
    line_ = line;
    column_ = column;
    message_ = message;
  }
  void AddWarning(int, google::protobuf::io::ColumnNumber, const std::string&) override {}

  bool has_error() const { return has_error_; }
  int line() const { return line_; }
  int column() const { return column_; }
  const std::string& message() const { return message_; }

 private:
  bool has_error_ = false;
  int line_ = 0;
  int column_ = 0;
  std::string message_;
};

// The text between the first pair of double quotes after `key` in `s`, or "" when there is none.
std::string QuotedAfter(const std::string& s, std::string_view key) {
  size_t at = s.find(key);
  if (at == std::string::npos) return "";
  size_t open = s.find('"', at + key.size());
  if (open == std::string::npos) return "";
  size_t close = s.find('"', open + 1);
  if (close == std::string::npos) return "";
  return s.substr(open + 1, close - open - 1);
}

std::string ShortTypeName(std::string full) {
  const std::string prefix = "inference.";
  if (full.rfind(prefix, 0) == 0) full.erase(0, prefix.size());
  return full;
}

// The text of 0-based line `line` of `text`.
std::string_view Line(std::string_view text, int line) {
  size_t begin = 0;
  for (int i = 0; i < line; ++i) {
    begin = text.find('\n', begin);
    if (begin == std::string_view::npos) return {};
    ++begin;
  }
  size_t end = text.find('\n', begin);
  return text.substr(begin, end == std::string_view::npos ? std::string_view::npos : end - begin);
}

// The field whose value starts at byte `column` of `line` ("max_batch_size" in "max_batch_size: 9x"), or "".
std::string FieldBefore(std::string_view line, int column) {
  if (column < 0 || static_cast<size_t>(column) > line.size()) return "";
  size_t i = static_cast<size_t>(column);
  auto skip_space = [&] {
    while (i > 0 && (line[i - 1] == ' ' || line[i - 1] == '\t')) --i;
  };
  skip_space();
  if (i == 0 || line[i - 1] != ':') return "";
  --i;
  skip_space();
  size_t end = i;
  while (i > 0 && (std::isalnum(static_cast<unsigned char>(line[i - 1])) || line[i - 1] == '_')) --i;
  return std::string(line.substr(i, end - i));
}

struct Reworded {
  std::string message;
  std::string field;  // the unknown field's name, when the error is about one
  StatusCode code = StatusCode::kInvalidArgument;
};

// Rewrites protobuf's wording of the common mistakes into hone's ("unknown field 'x' in ModelConfig"); other
// messages pass through with protobuf's wording, which already names the field.
Reworded Reword(const std::string& message) {
  // 'Message type "inference.ModelConfig" has no field named "max_batch".'
  if (message.find("has no field named") != std::string::npos) {
    std::string type = QuotedAfter(message, "Message type");
    std::string field = QuotedAfter(message, "has no field named");
    if (!type.empty() && !field.empty()) {
      const std::string short_type = ShortTypeName(type);
      // A Triton field hone leaves out is a feature to wait for, not a typo to fix.
      if (std::string_view what = UnsupportedTritonField(short_type, field); !what.empty())
        return {"hone does not support '" + field + "' in " + short_type + " yet (" + std::string(what) + ")",
                field, StatusCode::kUnimplemented};
      const std::string nearest = NearestConfigField(short_type, field);
      return {"unknown field '" + field + "' in " + short_type +
                  (nearest.empty() ? "" : " (did you mean '" + nearest + "'?)"),
              field};
    }
  }
  // 'Unknown enumeration value of "KIND_TPU" for field "kind".'
  if (message.find("Unknown enumeration value of") != std::string::npos) {
    std::string value = QuotedAfter(message, "Unknown enumeration value of");
    std::string field = QuotedAfter(message, "for field");
    if (!value.empty() && !field.empty()) return {"field '" + field + "': unknown enum value '" + value + "'", ""};
  }
  std::string m = message;
  while (!m.empty() && m.back() == '.') m.pop_back();
  if (m.size() >= 5 && m.compare(m.size() - 5, 5, "got: ") == 0) m += "end of input";
  return {m, ""};
}

}  // namespace

Result<inference::ModelConfig> ParseModelConfig(std::string_view text, const std::string& file) {
  if (text.size() > kMaxConfigBytes)
    return Status::InvalidArgument(file + ": " + std::to_string(text.size()) +
                                   " bytes, more than a config can need (" + std::to_string(kMaxConfigBytes) + ")");
  inference::ModelConfig config;
  FirstErrorCollector errors;
  google::protobuf::TextFormat::Parser parser;
  parser.RecordErrorsTo(&errors);
  parser.AllowUnknownField(false);
  parser.AllowUnknownExtension(false);
  bool ok = parser.ParseFromString(std::string(text), &config);
  if (!ok || errors.has_error()) {
    if (!errors.has_error()) return Status::InvalidArgument(file + ": not a valid model config");
    Reworded r = Reword(errors.message());
    // protobuf reports an unknown field at the token after its name; point at the name itself.
    int column = errors.column();
    if (!r.field.empty()) {
      std::string_view line = Line(text, errors.line());
      size_t at = line.rfind(r.field, static_cast<size_t>(std::max(column, 0)));
      if (at != std::string_view::npos) column = static_cast<int>(at);
    }
    // A bad value: name its field when protobuf's message does not.
    if (r.field.empty() && r.message.find("field") == std::string::npos) {
      std::string field = FieldBefore(Line(text, errors.line()), column);
      if (!field.empty()) r.message = "field '" + field + "': " + r.message;
    }
    // protobuf counts lines and columns from 0.
    return Status(r.code, file + ":" + std::to_string(errors.line() + 1) + ":" + std::to_string(column + 1) + ": " +
                              r.message);
  }
  return config;
}

Result<inference::ModelConfig> ReadModelConfig(const std::string& path) {
  std::error_code ec;
  const uintmax_t size = std::filesystem::file_size(path, ec);
  if (!ec && size > kMaxConfigBytes)
    return Status::InvalidArgument("model config '" + path + "': " + std::to_string(size) +
                                   " bytes, more than a config can need (" + std::to_string(kMaxConfigBytes) + ")");
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound("model config '" + path + "': cannot open");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return Status::NotFound("model config '" + path + "': cannot read");
  return ParseModelConfig(text.str(), path);
}

std::string ModelConfigToText(const inference::ModelConfig& config) {
  std::string text;
  google::protobuf::TextFormat::PrintToString(config, &text);
  return text;
}

}  // namespace hone::serve
