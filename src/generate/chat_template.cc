#include "generate/chat_template.h"

#include <fmt/format.h>

namespace hone::generate {
namespace {

constexpr std::string_view kStart = "<|im_start|>";
constexpr std::string_view kEnd = "<|im_end|>";

}  // namespace

ChatTemplate ChatTemplate::FromJinja(const std::string& jinja) {
  ChatTemplate t;
  if (jinja.empty()) {
    t.what_ = "the model carries no chat template (hone.chat_template)";
    return t;
  }
  if (jinja.find(kStart) == std::string::npos || jinja.find(kEnd) == std::string::npos) {
    t.what_ = fmt::format("the model's chat template is not ChatML (the only format hone renders): {:.80}...", jinja);
    return t;
  }
  t.chatml_ = true;
  t.end_of_turn_ = std::string(kEnd);
  // A default system message is written into the template as a literal: '<|im_start|>system\n...<|im_end|>'.
  const std::string system = std::string(kStart) + "system\n";
  if (size_t at = jinja.find(system); at != std::string::npos) {
    const size_t from = at + system.size();
    if (size_t end = jinja.find(kEnd, from); end != std::string::npos) t.default_system_ = jinja.substr(from, end - from);
  }
  return t;
}

Result<std::string> ChatTemplate::Render(const std::vector<ChatMessage>& messages) const {
  if (!chatml_) return Status::Unimplemented(what_);
  if (messages.empty()) return Status::InvalidArgument("'messages' is empty");
  std::string out;
  if (messages.front().role != "system" && !default_system_.empty())
    out += fmt::format("{}system\n{}{}\n", kStart, default_system_, kEnd);
  for (const ChatMessage& m : messages) out += fmt::format("{}{}\n{}{}\n", kStart, m.role, m.content, kEnd);
  out += fmt::format("{}assistant\n", kStart);
  return out;
}

}  // namespace hone::generate
