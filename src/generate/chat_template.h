// Chat messages to one prompt. hone does not run Jinja: it recognises the template a model carries and renders the
// format it spells. Supported: ChatML (<|im_start|>role\ncontent<|im_end|>\n ... <|im_start|>assistant\n), which
// SmolLM2, Qwen and many others use; a default system message the template inserts when the conversation has none
// is taken from the template's text. Any other template is Unimplemented, naming what was found, rather than a
// prompt the model was not trained on.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"

namespace hone::generate {

struct ChatMessage {
  std::string role;  // "system", "user", "assistant" (others are passed through as ChatML roles)
  std::string content;
};

class ChatTemplate {
 public:
  // From a model's jinja template text ("" when the model has none: Unimplemented on use).
  static ChatTemplate FromJinja(const std::string& jinja);

  // The prompt for `messages`, ending with the assistant's turn opened (add_generation_prompt). InvalidArgument
  // for an empty conversation.
  Result<std::string> Render(const std::vector<ChatMessage>& messages) const;
  bool supported() const { return chatml_; }
  // The text that ends an assistant's turn ("<|im_end|>"), a stop sequence for chat requests.
  const std::string& end_of_turn() const { return end_of_turn_; }

 private:
  bool chatml_ = false;
  std::string default_system_;  // "" when the template inserts none
  std::string end_of_turn_;
  std::string what_;  // for the error when unsupported
};

}  // namespace hone::generate
